package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// The model's review runs after the deterministic checks: it can refuse or
// canonicalize; an answer that isn't JSON leaves the deterministic decision.
func TestModelReview(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		text := req.Messages[0].Text
		switch {
		case strings.Contains(text, "lunch"):
			return fakellm.Reply{Text: `{"store": false, "reason": "a passing remark, not durable"}`}
		case strings.Contains(text, "standup"):
			return fakellm.Reply{Text: "```json\n{\"store\": true, \"reason\": \"ok\", \"canonical\": \"Prefers async standups\"}\n```"}
		}
		return fakellm.Reply{Text: "I think this is fine!"}
	})
	judge := memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}
	store := memory.New(testdb.New(t).DB, memory.Options{Reviewer: judge})
	remember := func(content string) memory.Outcome {
		out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		return out
	}
	out := remember("I prefer pizza for lunch on Fridays")
	require.Equal(t, memory.Rejected, out.Status)
	require.Equal(t, "a passing remark, not durable", out.Reason)

	out = remember("I would rather do standups asynchronously")
	require.Equal(t, memory.Stored, out.Status)
	require.Equal(t, "Prefers async standups", out.Memory.Content, "the model's canonical form")

	out = remember("I prefer tabs over spaces")
	require.Equal(t, memory.Stored, out.Status, "an unparseable review leaves the deterministic decision")

	secret := remember("my api key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123")
	require.Equal(t, memory.Rejected, secret.Status)
	for _, r := range srv.Requests() {
		require.NotContains(t, r.Transcript(), "sk-ant-api03", "secrets never reach the model: deterministic checks run first")
	}
}

func TestModelAdjudicator(t *testing.T) {
	t.Parallel()
	var older uuid.UUID
	srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Text: `{"replaces": ["` + older.String() + `", "not-a-uuid"]}`}
	})
	judge := memory.ModelJudge{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m")}
	b := setup(t)
	store := memory.New(b.db.DB, memory.Options{Adjudicator: judge})
	first, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer terse PR summaries", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	older = first.Memory.ID
	second, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer detailed PR summaries", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Len(t, second.Superseded, 1)
	require.Equal(t, older, second.Superseded[0].ID)
	require.Contains(t, srv.Requests()[0].Messages[0].Text, "Prefers terse PR summaries", "the model saw the candidate")
}
