package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

func TestServeConfig(t *testing.T) {
	t.Parallel()
	type settings struct {
		HTTPAddr        string
		MaxTurns        int
		ShutdownTimeout time.Duration
	}
	for _, c := range []struct {
		name    string
		env     map[string]string
		want    settings
		problem string
	}{
		{"defaults", nil, settings{"127.0.0.1:9464", 16, 20 * time.Second}, ""},
		{"set", map[string]string{"MNEMO_HTTP_ADDR": "0.0.0.0:9000", "MNEMO_MAX_TURNS": "4", "MNEMO_SHUTDOWN_TIMEOUT": "45s"}, settings{"0.0.0.0:9000", 4, 45 * time.Second}, ""},
		{"no port", map[string]string{"MNEMO_HTTP_ADDR": "9464"}, settings{}, "MNEMO_HTTP_ADDR must be host:port"},
		{"zero turns", map[string]string{"MNEMO_MAX_TURNS": "0"}, settings{}, "MNEMO_MAX_TURNS must be a whole number from 1 to 1000"},
		{"too many turns", map[string]string{"MNEMO_MAX_TURNS": "5000"}, settings{}, "MNEMO_MAX_TURNS must be a whole number from 1 to 1000"},
		{"turns not a number", map[string]string{"MNEMO_MAX_TURNS": "many"}, settings{}, `not "many"`},
		{"timeout without a unit", map[string]string{"MNEMO_SHUTDOWN_TIMEOUT": "20"}, settings{}, "MNEMO_SHUTDOWN_TIMEOUT must be a duration such as 20s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := LoadConfig(func(k string) string { return c.env[k] }, "")
			if c.problem == "" {
				require.NoError(t, err)
				require.Equal(t, c.want, settings{string(cfg.HTTPAddr), int(cfg.MaxTurns), time.Duration(cfg.ShutdownTimeout)})
				return
			}
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			require.Len(t, ce.Problems, 1)
			require.Contains(t, ce.Problems[0], c.problem)
		})
	}
	require.Equal(t, int32(26), poolSize(16), "the README's formula: turns + 2 learning workers + 8")
}

// serve's own settings are listed with the rest, all at once, and each
// bad variable once: there is one validator.
func TestServeListsEveryConfigProblemAtOnce(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MNEMO_MAX_TURNS": "0", "MNEMO_SHUTDOWN_TIMEOUT": "soon", "MNEMO_HTTP_ADDR": "9464"}
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, strings.NewReader(""), &bytes.Buffer{}, &errOut)
	require.Equal(t, 1, code)
	for _, want := range []string{"SLACK_BOT_TOKEN is not set", "MNEMO_MAX_TURNS must be", "MNEMO_SHUTDOWN_TIMEOUT must be", "MNEMO_HTTP_ADDR must be"} {
		require.Equal(t, 1, strings.Count(errOut.String(), want), "said once: %s\n%s", want, errOut.String())
	}
}

// A token Slack refuses stops serve before it says it is serving.
func TestServeChecksTheTokenBeforeServing(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	fs.FailNext("auth.test", "invalid_auth")
	env := map[string]string{
		"DATABASE_URL": d.URL, "SLACK_BOT_TOKEN": "xoxb-test-bot-token", "SLACK_APP_TOKEN": "xapp-1-test-app-token",
		"SLACK_API_URL": fs.URL, "MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-test-key-0123456789abcdef",
		"MNEMO_MODEL": "claude-test", "MNEMO_HTTP_ADDR": "127.0.0.1:0",
	}
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, strings.NewReader(""), &bytes.Buffer{}, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, errOut.String(), "SLACK_BOT_TOKEN rejected by auth.test: invalid_auth")
	require.NotContains(t, errOut.String(), "mnemo serving")
	require.Len(t, fs.Calls("auth.test"), 1, "control: the check ran")
}

// When Slack refuses either token, or cannot be reached, serve ends with a
// non-zero exit and a message naming the token or the URL, instead of
// reconnecting forever with nothing said above debug.
func TestServeEndsNamingTheCauseWhenSlackRefusesOrIsUnreachable(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	unreachable := closed.URL + "/api/"
	closed.Close()
	for _, c := range []struct {
		name  string
		setup func(fs *fakeslack.Server)
		url   string // SLACK_API_URL when not the fake's
		want  []string
	}{
		{name: "app token refused by apps.connections.open",
			setup: func(fs *fakeslack.Server) { fs.FailNext("apps.connections.open", "invalid_auth") },
			want:  []string{"mnemo serve: SLACK_APP_TOKEN rejected by apps.connections.open: invalid_auth"}},
		{name: "app token refused by the websocket",
			setup: func(fs *fakeslack.Server) { fs.RefuseSocket(http.StatusForbidden) },
			want:  []string{"mnemo serve: the Socket Mode websocket of SLACK_APP_TOKEN was refused by Slack 3 times in a row (websocket: bad handshake)"}},
		{name: "bot token refused by auth.test",
			setup: func(fs *fakeslack.Server) { fs.FailNext("auth.test", "invalid_auth") },
			want:  []string{"mnemo serve: SLACK_BOT_TOKEN rejected by auth.test: invalid_auth"}},
		{name: "Slack unreachable", url: unreachable,
			want: []string{"mnemo serve: cannot reach Slack at " + unreachable + "auth.test: ", "connection refused"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := testdb.New(t)
			fs := fakeslack.New(t)
			if c.setup != nil {
				c.setup(fs)
			}
			api := fs.URL
			if c.url != "" {
				api = c.url
			}
			env := map[string]string{
				"DATABASE_URL": d.URL, "SLACK_BOT_TOKEN": "xoxb-test-bot-token", "SLACK_APP_TOKEN": "xapp-1-test-app-token",
				"SLACK_API_URL": api, "MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-test-key-0123456789abcdef",
				"MNEMO_MODEL": "claude-test", "MNEMO_HTTP_ADDR": "127.0.0.1:0",
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var errOut harness.Buffer
			code := run(ctx, []string{"serve"}, func(k string) string { return env[k] }, strings.NewReader(""), &bytes.Buffer{}, &errOut)
			require.NoError(t, ctx.Err(), "serve ended by itself:\n%s", errOut.String())
			require.Equal(t, 1, code, errOut.String())
			for _, want := range c.want {
				require.Contains(t, errOut.String(), want)
			}
			t.Logf("serve's output:\n%s", errOut.String())
			require.NotContains(t, errOut.String(), "xoxb-test-bot-token")
			require.NotContains(t, errOut.String(), "xapp-1-test-app-token")
		})
	}
}
