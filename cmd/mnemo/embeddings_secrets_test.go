package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// With MNEMO_EMBEDDING_BASE_URL on another host than the model's (another
// vendor, a local server), the embeddings endpoint is not sent the model's
// key (the harness's Anthropic key): none, or MNEMO_EMBEDDING_API_KEY. Each
// of the three embedders is driven: recall's question, serve's background
// job, and mnemo embeddings backfill.
func TestEmbeddingsEndpointIsNotSentTheModelsKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, key string }{
		{"no embedding key", ""},
		{"its own key", "emb-test-key-0123456789abcdef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emb := fakellm.New(t, scripted.Memory()) // answers embeddings only
			env := []string{"MNEMO_EMBEDDING_MODEL", "text-embedding-3-small", "MNEMO_EMBEDDING_BASE_URL", emb.URL}
			if tc.key != "" {
				env = append(env, "MNEMO_EMBEDDING_API_KEY", tc.key)
			}
			b := startBot(t, scripted.Memory(), env...)
			modelKey := b.env["MNEMO_LLM_API_KEY"]
			require.NotEmpty(t, modelKey)

			const ch = "C0TEAM"
			first, _ := b.mention(alice, ch, "remember that I drink green tea in the morning", "")
			b.waitDone(ch, first)
			ctx := context.Background()
			require.Eventually(t, func() bool { // serve's background job
				var n int
				require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM memory_vectors v JOIN memories m ON m.id = v.id WHERE m.content LIKE '%green tea%'").Scan(&n))
				return n == 1
			}, 30*time.Second, 100*time.Millisecond)
			second, _ := b.mention(alice, ch, "what do you remember about green tea?", "")
			b.waitDone(ch, second)

			var out, errOut bytes.Buffer
			getenv := func(k string) string {
				if k == "MNEMO_EMBEDDING_MODEL" {
					return "text-embedding-other" // nothing is embedded by it yet
				}
				return b.getenv(k)
			}
			require.Equal(t, 0, run(ctx, []string{"embeddings", "backfill"}, getenv, strings.NewReader(""), &out, &errOut), errOut.String())

			reqs := emb.EmbedRequests()
			var models []string
			var question bool
			for _, r := range reqs {
				require.NotEqual(t, modelKey, r.APIKey, "the embeddings endpoint was sent the model's key")
				require.Equal(t, tc.key, r.APIKey, "the embeddings endpoint's key")
				models = append(models, r.Model)
				question = question || slices.ContainsFunc(r.Input, func(s string) bool { return strings.Contains(s, "remember about green tea") })
			}
			require.True(t, question, "recall embedded the question: %+v", reqs)
			require.Contains(t, models, "text-embedding-3-small", "serve embedded")
			require.Contains(t, models, "text-embedding-other", "mnemo embeddings backfill embedded")
			require.Empty(t, b.llm.EmbedRequests(), "nothing is embedded on the model's server")
		})
	}
}

// The embeddings key, by where the embeddings go: the model's key only to
// the model's host.
func TestEmbeddingKeyFollowsTheEndpoint(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://x@h/db", "MNEMO_MODEL": "m"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"anthropic, embeddings elsewhere", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x", "MNEMO_EMBEDDING_BASE_URL": "http://127.0.0.1:11434/v1"}, ""},
		{"anthropic key variable, embeddings elsewhere", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "sk-ant-x", "MNEMO_EMBEDDING_BASE_URL": "https://api.openai.com/v1"}, ""},
		{"anthropic, embeddings at OpenAI's API by default", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x"}, ""},
		{"anthropic, OpenAI's key for OpenAI's API", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x", "OPENAI_API_KEY": "sk-oai"}, "sk-oai"},
		{"own key", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x", "MNEMO_EMBEDDING_BASE_URL": "https://emb.example/v1", "MNEMO_EMBEDDING_API_KEY": "emb-k"}, "emb-k"},
		{"own key on the model's host", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": "sk-1", "MNEMO_EMBEDDING_API_KEY": "emb-k"}, "emb-k"},
		{"openai, OpenAI's API", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-1"}, "sk-1"},
		{"openai, OpenAI's API named", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": "sk-1", "MNEMO_EMBEDDING_BASE_URL": "https://api.openai.com/v1"}, "sk-1"},
		{"anthropic, OpenAI's API named, OpenAI's key", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x", "OPENAI_API_KEY": "sk-oai", "MNEMO_EMBEDDING_BASE_URL": "https://api.openai.com/v1"}, "sk-oai"},
		{"anthropic's own API named for embeddings", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x", "MNEMO_EMBEDDING_BASE_URL": "https://api.anthropic.com/v1"}, "sk-ant-x"},
		{"model's server, base URL unset", map[string]string{"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "sk-ant-x", "MNEMO_LLM_BASE_URL": "http://127.0.0.1:9000"}, "sk-ant-x"},
		{"model's host, another path", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": "sk-1", "MNEMO_LLM_BASE_URL": "https://gw.example/chat/v1", "MNEMO_EMBEDDING_BASE_URL": "https://GW.example/embed/v1/"}, "sk-1"},
		{"same host, another port", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": "sk-1", "MNEMO_LLM_BASE_URL": "http://127.0.0.1:9000", "MNEMO_EMBEDDING_BASE_URL": "http://127.0.0.1:9001"}, ""},
		{"another scheme", map[string]string{"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": "sk-1", "MNEMO_LLM_BASE_URL": "https://gw.example", "MNEMO_EMBEDDING_BASE_URL": "http://gw.example"}, ""},
	} {
		e := map[string]string{}
		for k, v := range base {
			e[k] = v
		}
		for k, v := range tc.env {
			e[k] = v
		}
		cfg, err := LoadConfig(env(e), "")
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, cfg.EmbeddingKey, tc.name)
	}
}
