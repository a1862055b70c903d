package slackapp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"
)

// A response URL is a credential: the error of a post to one that failed
// on the network says what failed, not the URL.
func TestAFailedResponseURLIsLoggedWithoutIt(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now: the post fails on the network
	const secret = "AbCdEf0123456789zqxsecret"
	err = slack.PostWebhookCustomHTTPContext(context.Background(), "http://"+addr+"/commands/T0AAAA/1234567890/"+secret, webhookClient, &slack.WebhookMessage{Text: "hi"})
	require.Error(t, err)
	require.Contains(t, err.Error(), secret, "the control: slack-go's error names the URL")
	require.NotContains(t, withoutURL(err).Error(), secret)
	require.Contains(t, withoutURL(err).Error(), "response_url")
}

// Only Slack's response URLs, and those on the host of the Web API base the
// bots are made with (SLACK_API_URL: a proxy, the fake Slack), are posted
// to; lookalike hosts, plain http to Slack and credentials in the URL are
// not.
func TestResponseURLAllowedIsSlacksOrTheAPIHost(t *testing.T) {
	t.Parallel()
	const api = "http://127.0.0.1:8099/api/"
	for raw, want := range map[string]bool{
		"https://hooks.slack.com/commands/T0AAAA/123/abc":     true,
		"https://HOOKS.slack.com/actions/T0AAAA/123/abc":      true,
		"http://127.0.0.1:8099/response?envelope=1":           true,
		"http://hooks.slack.com/commands/T0AAAA/123/abc":      false, // not https
		"https://hooks.slack.com.evil.test/commands/T0AAAA/1": false,
		"https://evil.test/hooks.slack.com/commands/T0AAAA/1": false,
		"https://hooks.slack.com@evil.test/commands/T0AAAA/1": false,
		"https://u:p@hooks.slack.com/commands/T0AAAA/123/abc": false,
		"http://127.0.0.1:8100/response?envelope=1":           false, // another port
		"https://127.0.0.1:8099/response":                     false, // another scheme
		"http://169.254.169.254/latest/meta-data/":            false,
		"/response?envelope=1":                                false,
		"":                                                    false,
	} {
		require.Equal(t, want, responseURLAllowed(raw, api), raw)
	}
	require.False(t, responseURLAllowed("http://127.0.0.1:8099/response", ""), "without an API base, only Slack's host")
	// GovSlack's hooks, only with GovSlack's Web API.
	require.True(t, responseURLAllowed("https://hooks.slack-gov.com/commands/T0AAAA/123/abc", "https://slack-gov.com/api/"))
	require.False(t, responseURLAllowed("https://hooks.slack-gov.com/commands/T0AAAA/123/abc", "https://slack.com/api/"))
	require.False(t, responseURLAllowed("https://hooks.slack-gov.com/commands/T0AAAA/123/abc", "https://evilslack-gov.com/api/"))
}

// A response URL that answers with a redirect is not followed: the post
// fails, and the answer goes ephemerally, rather than to wherever the
// redirect points.
func TestAResponseURLsRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	followed := make(chan struct{}, 1)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed <- struct{}{} }))
	t.Cleanup(elsewhere.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	err := slack.PostWebhookCustomHTTPContext(context.Background(), redirector.URL+"/response", webhookClient, &slack.WebhookMessage{Text: "an answer"})
	require.Error(t, err, "a redirect is a failed post")
	select {
	case <-followed:
		t.Fatal("the redirect was followed")
	default:
	}
}
