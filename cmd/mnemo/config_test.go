package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/lifecycle"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestConfigNamesEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(env(map[string]string{
		"SLACK_BOT_TOKEN":    "xoxp-user-token",
		"MNEMO_LLM_PROVIDER": "gemini",
		"MNEMO_LOG_LEVEL":    "loud",
		"MNEMO_ADMINS":       "U1,not-an-id",
		"SLACK_API_URL":      "::nope",
	}), "serve")
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"DATABASE_URL", "SLACK_BOT_TOKEN must be a bot token", "SLACK_APP_TOKEN is not set", "MNEMO_LLM_PROVIDER must be anthropic or openai", "MNEMO_MODEL", "MNEMO_LOG_LEVEL", "not-an-id", "SLACK_API_URL"} {
		require.Contains(t, msg, want)
	}
	require.NotContains(t, msg, "xoxp-user-token", "values of tokens are never echoed")
}

func TestConfigKeyFallbackAndDefaults(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(env(map[string]string{
		"DATABASE_URL": "postgres://x", "SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1",
		"MNEMO_LLM_PROVIDER": "OpenAI", "OPENAI_API_KEY": "sk-fallback", "MNEMO_MODEL": "gpt", "MNEMO_ADMINS": "U1, W2",
	}), "serve")
	require.NoError(t, err)
	require.EqualValues(t, "openai", c.Provider)
	require.Equal(t, "sk-fallback", c.LLMKey)
	require.EqualValues(t, "https://slack.com/api/", c.SlackAPIURL)
	require.Equal(t, []string{"U1", "W2"}, []string(c.Admins))
	require.EqualValues(t, "/mnemo", c.SlashCommand)
}

func TestServeWithoutSlackTokensExplainsHowToCreateTheApp(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"serve"}, env(map[string]string{"DATABASE_URL": "postgres://x", "MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "k", "MNEMO_MODEL": "m"}), strings.NewReader(""), &out, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, errOut.String(), "SLACK_BOT_TOKEN is not set")
	require.Contains(t, errOut.String(), "slackapp/manifest.yaml")
}

func TestVersionAndUnknownCommand(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"version"}, env(nil), nil, &out, &errOut))
	require.Contains(t, out.String(), "mnemo ")
	require.Equal(t, 2, run(context.Background(), []string{"frobnicate"}, env(nil), nil, &out, &errOut))
	require.Contains(t, errOut.String(), `unknown command "frobnicate"`)
}

func TestRetentionSettings(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(env(map[string]string{}), "")
	require.NoError(t, err)
	require.Equal(t, lifecycle.Defaults, c.Retention(), "90 days, 7 days, 30 days")
	require.Equal(t, lifecycle.Retention{Conversations: 90 * 24 * time.Hour, Inbox: 7 * 24 * time.Hour, Forgotten: 30 * 24 * time.Hour}, c.Retention())
	require.False(t, bool(c.EraseDeletedUsers), "erasing on Slack's word is the workspace's choice")

	c, err = LoadConfig(env(map[string]string{
		"MNEMO_RETENTION_CONVERSATIONS": "14d", "MNEMO_RETENTION_INBOX": "36h", "MNEMO_RETENTION_FORGOTTEN": "0", "MNEMO_ERASE_DELETED_USERS": "true",
	}), "")
	require.NoError(t, err)
	require.Equal(t, lifecycle.Retention{Conversations: 14 * 24 * time.Hour, Inbox: 36 * time.Hour}, c.Retention())
	require.True(t, bool(c.EraseDeletedUsers))

	_, err = LoadConfig(env(map[string]string{
		"MNEMO_RETENTION_CONVERSATIONS": "three months", "MNEMO_RETENTION_INBOX": "-1d", "MNEMO_RETENTION_FORGOTTEN": "30", "MNEMO_ERASE_DELETED_USERS": "maybe",
	}), "")
	require.Error(t, err)
	for _, want := range []string{"MNEMO_RETENTION_CONVERSATIONS", "MNEMO_RETENTION_INBOX", "MNEMO_RETENTION_FORGOTTEN", "MNEMO_ERASE_DELETED_USERS"} {
		require.Contains(t, err.Error(), want)
	}
}

// A server of one's own (Ollama at MNEMO_LLM_BASE_URL) needs no API key;
// the provider's own service still does.
func TestAPIKeyIsOptionalWithABaseURL(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": "postgres://x", "MNEMO_LLM_PROVIDER": "openai", "MNEMO_MODEL": "llama3.2", "MNEMO_LLM_BASE_URL": "http://127.0.0.1:11434/v1"}
	get := func(k string) string { return env[k] }
	_, err := LoadConfig(get, "chat")
	require.NoError(t, err)
	delete(env, "MNEMO_LLM_BASE_URL")
	_, err = LoadConfig(get, "chat")
	require.ErrorContains(t, err, "MNEMO_LLM_API_KEY is not set")
}

// Each bad variable is one problem, said after its name, however many
// ways it is wrong; the meanings that quote db's form quote it exactly.
func TestOneProblemPerBadVariable(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(env(map[string]string{
		"DATABASE_URL": "mysql://x", "MNEMO_ADMINS": "U1,bad-one,,worse", "MNEMO_MAX_TURNS": "-3",
		"MNEMO_LLM_PROVIDER": "gemini", "MNEMO_MODEL": "m",
	}), "chat")
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, []string{
		"DATABASE_URL is not a PostgreSQL connection string (" + db.CheckURL("mysql://x").Error() + "); expected the form " + db.URLForm,
		`MNEMO_LLM_PROVIDER must be anthropic or openai, not "gemini"`,
		`MNEMO_ADMINS has "bad-one", "worse", which are not Slack user ids (U… or W…)`,
		`MNEMO_MAX_TURNS must be a whole number from 1 to 1000, not "-3"`,
	}, ce.Problems, "in Config's order, and no MNEMO_LLM_API_KEY problem: the provider is the problem")
	require.Equal(t, "DATABASE_URL", Variables[0].Name)
	require.Contains(t, Variables[0].Meaning, db.URLForm)
}
