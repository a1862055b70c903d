package main

import (
	"errors"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// A model half configured (a provider without its key or model, a model
// without a provider) stops mnemo mcp at start with the problem
// serve gives for the same configuration: its remember would otherwise
// answer "could not be checked just now … in a minute" to every call, and
// never work. With no model named (none of the variables, an SDK's key,
// often set for other tools, or MNEMO_LLM_API_KEY as the embedder's key),
// mcp starts without a model, as before: the controls.
func TestMCPWithAHalfConfiguredModelStopsAtStartAsServeDoes(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	const key = "sk-test-secret-0123456789abcdef"
	for _, c := range []struct {
		name  string
		model map[string]string
		want  []string // the configuration's problems; none: mcp starts
	}{
		{"a provider without its key", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_MODEL": "claude-test"},
			[]string{"MNEMO_LLM_API_KEY is not set (nor ANTHROPIC_API_KEY)"}},
		{"a provider and a key without a model", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": key},
			[]string{"MNEMO_MODEL is not set"}},
		{"a model without a provider", map[string]string{"MNEMO_MODEL": "gpt-test"},
			[]string{"MNEMO_LLM_PROVIDER is not set"}},
		{"no model", map[string]string{}, nil},
		{"an SDK's key alone", map[string]string{"ANTHROPIC_API_KEY": key}, nil},
		{"the embedder's key and model", map[string]string{"MNEMO_LLM_API_KEY": key, "MNEMO_LLM_BASE_URL": "http://127.0.0.1:9/v1", "MNEMO_EMBEDDING_MODEL": "text-embedding-test"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{"DATABASE_URL": d.URL}
			maps.Copy(vars, c.model)
			code, _, errs := mnemoRun(t, vars, "mcp", "--user", "U0BOB", "--team", "T0TEAM")
			require.NotContains(t, errs, key, "a key is never echoed")
			if c.want == nil {
				require.Equal(t, 0, code, "mcp starts, and ends at its input's end: %s", errs)
				require.Contains(t, errs, "mcp serving on stdio")
				return
			}
			require.Equal(t, 1, code, errs)
			require.NotContains(t, errs, "mcp serving", "mcp never served")
			// serve, given the same model variables, says the same.
			serveVars := maps.Clone(vars)
			maps.Copy(serveVars, map[string]string{"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_APP_TOKEN": "xapp-test"})
			_, serveErr := LoadConfig(env(serveVars), "serve")
			var ce *ConfigError
			require.True(t, errors.As(serveErr, &ce), "serve refuses it too: %v", serveErr)
			for _, want := range c.want {
				require.Contains(t, errs, want)
				require.Contains(t, serveErr.Error(), want)
			}
		})
	}
}
