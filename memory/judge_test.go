package memory_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

func verdict(store bool, reason, canonical string) fakellm.Reply {
	return fakellm.Reply{JSON: `{"store": ` + map[bool]string{true: "true", false: "false"}[store] + `, "reason": "` + reason + `", "canonical": "` + canonical + `", "sensitive": "", "cues": [], "expires": ""}`}
}

// The model's review runs after the deterministic checks: it can refuse
// (always saying why) or canonicalize, and it is asked with a schema
// through each provider's own structured-output mechanism.
func TestModelReview(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
				switch text := req.Messages[0].Text; {
				case strings.Contains(text, "lunch"):
					return verdict(false, "a passing remark, not durable", "")
				case strings.Contains(text, "standup"):
					return verdict(true, "durable", "Prefers async standups")
				}
				return verdict(true, "durable", "")
			})
			model := llm.Model(llm.NewAnthropic("k", srv.URL, "m"))
			if provider == "openai" {
				model = llm.NewOpenAI("k", srv.URL+"/v1", "m")
			}
			store := memory.New(testdb.New(t).DB, memory.Options{Reviewer: memory.ModelJudge{Model: model}})
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

			secret := remember("my api key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123")
			require.Equal(t, memory.Rejected, secret.Status)
			reqs := srv.Requests()
			require.Len(t, reqs, 2, "one review per write that passed the deterministic checks")
			for _, r := range reqs {
				require.NotContains(t, r.Transcript(), "sk-ant-api03", "secrets never reach the model: deterministic checks run first")
				if provider == "anthropic" {
					require.Equal(t, memory.ReviewSchema.Name, r.ForcedTool(), "a forced tool call")
				} else {
					require.NotNil(t, r.ResponseFormat)
					require.Equal(t, "json_schema", r.ResponseFormat.Type)
					require.Equal(t, memory.ReviewSchema.Name, r.ResponseFormat.Name)
				}
			}
		})
	}
}

// Defect 4: the review failed open. A model error, an answer without a
// verdict, or a rejection without a reason let an explicit write through or
// counted as "reject, no reason". Now each fails closed with a retryable
// error, and nothing is stored.
func TestReviewFailsClosed(t *testing.T) {
	t.Parallel()
	cases := map[string]fakellm.Reply{
		"model error":              {Status: 400, ErrorMessage: "invalid request"},
		"answer without a verdict": {JSON: `{"reason": "looks fine", "canonical": "Prefers tea", "sensitive": "", "cues": [], "expires": ""}`},
		"rejection without reason": {JSON: `{"store": false, "reason": "", "canonical": "", "sensitive": "", "cues": [], "expires": ""}`},
		"prose, not JSON":          {JSON: "I think this is fine!"},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var healthy atomic.Bool
			srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
				if healthy.Load() {
					return verdict(true, "durable", "")
				}
				return bad
			})
			d := testdb.New(t)
			store := memory.New(d.DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
			req := memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer green tea in the afternoon", WrittenBy: provenance.ByExplicit}
			_, err := store.Remember(context.Background(), req)
			require.ErrorIs(t, err, memory.ErrReviewUnavailable)
			stored, err := store.ListAll(context.Background(), memory.Filter{SubjectUser: "UA", IncludeArchived: true})
			require.NoError(t, err)
			require.Empty(t, stored, "nothing stored")

			// Control: once the review answers, the same write is stored and found.
			healthy.Store(true)
			out, err := store.Remember(context.Background(), req)
			require.NoError(t, err)
			require.Equal(t, memory.Stored, out.Status)
			stored, err = store.ListAll(context.Background(), memory.Filter{SubjectUser: "UA"})
			require.NoError(t, err)
			require.Len(t, stored, 1)
		})
	}
}

// Defect 5: structured answers. An invalid answer is asked for once more,
// then it is an error.
func TestStructuredModelAnswersAreRetriedOnceThenAnError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := fakellm.New(t, func(n int, _ *fakellm.Request) fakellm.Reply {
		calls.Add(1)
		if n == 0 {
			return fakellm.Reply{JSON: `{"store": "yes"}`}
		}
		return verdict(true, "durable", "Prefers green tea in the afternoon")
	})
	store := memory.New(testdb.New(t).DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m")}})
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer green tea in the afternoon", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status)
	require.Equal(t, int32(2), calls.Load(), "the invalid answer was asked for once more")
}

func TestModelUpdateDecision(t *testing.T) {
	t.Parallel()
	var older uuid.UUID
	var bogus atomic.Bool
	srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		if bogus.Load() {
			return fakellm.Reply{JSON: `{"decision": "supersede", "target": "", "merged": "", "supersedes": ["not-a-uuid"]}`}
		}
		return fakellm.Reply{JSON: `{"decision": "supersede", "target": "", "merged": "", "supersedes": ["` + older.String() + `"]}`}
	})
	judge := memory.ModelJudge{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m")}
	b := setup(t)
	store := memory.New(b.db.DB, memory.Options{Decider: judge})
	first, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer terse PR summaries", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	older = first.Memory.ID
	second, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer detailed PR summaries", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Len(t, second.Superseded, 1)
	require.Equal(t, older, second.Superseded[0].ID)
	require.Contains(t, srv.Requests()[0].Messages[0].Text, "Prefers terse PR summaries", "the model saw the candidate")
	require.Equal(t, memory.DecideSchema.Name, srv.Requests()[0].ResponseFormat.Name)

	// An answer naming something that is no id fails the write closed.
	bogus.Store(true)
	_, err = store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer PR summaries in bullet points", WrittenBy: provenance.ByExplicit})
	require.ErrorIs(t, err, memory.ErrReviewUnavailable)
}

// Time-bound knowledge: a memory that states its own end gets an expiry from
// the review instead of being refused; a point-in-time figure is still
// refused before the model is asked.
func TestTimeBoundKnowledgeExpires(t *testing.T) {
	t.Parallel()
	friday := time.Now().AddDate(0, 0, 4).Format(time.DateOnly)
	srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		return fakellm.Reply{JSON: `{"store": true, "reason": "holds until it ends", "canonical": "The deploy freeze lasts until Friday", "sensitive": "", "cues": ["deploy freeze", "can I deploy"], "expires": "` + friday + `"}`}
	})
	store := memory.New(testdb.New(t).DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Content: "the deploy freeze lasts until Friday", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.NotNil(t, out.Memory.ExpiresAt)
	require.Equal(t, friday, out.Memory.ExpiresAt.Format(time.DateOnly))

	out, err = store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Content: "revenue was 1.2M yesterday", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Rejected, out.Status)
	require.Len(t, srv.Requests(), 1, "the figure never reached the model")
}
