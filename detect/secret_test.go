package detect

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSecretDetectorCorpus(t *testing.T) {
	t.Parallel()
	positives := map[string]string{
		"slack bot token":  "use xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx for the bot",
		"slack user token": "xoxp-1234567890-1234567890-1234567890-abcdef0123456789abcdef0123456789",
		"slack app token":  "app token xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef",
		"slack webhook":    "post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
		// A slash command's or a button's response URL answers the person
		// for 30 minutes: a credential too.
		"slack response url": "Post https://hooks.slack.com/commands/T0AAAA/1234567890/AbCdEf0123456789xyz: i/o timeout",
		"slack action url":   "https://hooks.slack.com/actions/T0AAAA/1234567890/AbCdEf0123456789xyz",
		"github pat":         "ghp_abcdefghijklmnopqrstuvwxyzABCDEF012345",
		"github fine pat":    "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123456789",
		"github app token":   "ghs_abcdefghijklmnopqrstuvwxyzABCDEF012345",
		"aws access key id":  "AKIAIOSFODNN7EXAMPLE is the key",
		"aws secret key":     "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"openai key":         "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
		"openai legacy":      "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH",
		"anthropic key":      "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCD",
		"jwt":                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"private key":        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...",
		"openssh key":        "-----BEGIN OPENSSH PRIVATE KEY-----",
		"password is":        "my password is Tr0ub4dor&3",
		"password colon":     "db password: s3cr3t!",
		"url credentials":    "postgres://admin:hunter2@db.internal:5432/prod",
		"api key":            "the api key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
		"stripe live key":    "sk_live_FAKE4eC39HqLyjWDarjtT1zdp7dc",
		"stripe restricted":  "rk_live_FAKE4eC39HqLyjWDarjtT1zdp7dc",
		"stripe test key":    "sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc",
		"npm token":          "npm_FAKEabcdefghijklmnopqrstuvwxyz012345",
		"gitlab token":       "glpat-AbCdEfGhIjKlMnOpQrSt",
		"google api key":     "AIzaSyFAKE_abcdefghijklmnopqrstuvwxyz01",
		"pw abbreviation":    "pw is hunter2hunter2",
		"user / password":    "admin / S3cr3t!Pass2024",
		"bare pem body":      "MIIEowIBAAKCAQEAuX3n9Yk2lQ8b7Vq0y+QwTr4HcY3dWjLmP1zS8eR6fA5gK2hN\n9sJ0xC4vB7nM1qL3wE5rT8yU2iO6pA9sD4fG7hJ0kL3zX6cV9bN2mQ5wE8rT1y==",
	}
	for name, text := range positives {
		require.NotEmpty(t, DetectSecret(text), name)
	}
	require.Equal(t, "Stripe key", DetectSecret(positives["stripe live key"]))
	require.Equal(t, "npm token", DetectSecret(positives["npm token"]))
	require.Equal(t, "private key body", DetectSecret(positives["bare pem body"]))
	require.Equal(t, "username / password", DetectSecret(positives["user / password"]))
	// Personal data that is not a credential is Sensitive's, not DetectSecret's.
	for _, text := range []string{"My SSN is 123-45-6789", "card 4111 1111 1111 1111", "call me on +44 20 7946 0958"} {
		require.Empty(t, DetectSecret(text), text)
		cat, _ := Sensitive(text)
		require.NotEmpty(t, cat, text)
	}
	negatives := []string{
		"Prefers terse PR summaries",
		"Deploys go out on Tuesdays after QA sign-off",
		"Rotate the password every 90 days via the admin console",
		"The API key rotation procedure lives in the runbook",
		"Uses sk-learn for quick experiments",
		"The ghost town tour starts at 10am",
		"Use postgres://localhost for local development",
		"Ask in #security before sharing any token",
		"Asks for JWTs to be short-lived",
		"Our password policy requires 12 characters",
		"The password is stored in 1Password",
		"Publishes with npm_config_registry set to the mirror",
		"Uses sk_live_ keys only in the payments service",
		"Keeps read/write access for the CI/CD role",
	}
	for _, text := range negatives {
		require.Empty(t, DetectSecret(text), text)
	}
}
