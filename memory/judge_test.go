package memory_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

func verdict(store bool, reason, canonical string) fakellm.Reply {
	return fakellm.Reply{JSON: `{"store": ` + map[bool]string{true: "true", false: "false"}[store] + `, "reason": "` + reason + `", "canonical": "` + canonical + `", "sensitive": "none", "restated": "", "cues": [], "expires": ""}`}
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
				return verdict(true, "durable", "Prefers the stated option")
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
		"answer without a verdict": {JSON: `{"reason": "looks fine", "canonical": "Prefers tea", "sensitive": "none", "restated": "", "cues": [], "expires": ""}`},
		"rejection without reason": {JSON: `{"store": false, "reason": "", "canonical": "", "sensitive": "none", "restated": "", "cues": [], "expires": ""}`},
		"prose, not JSON":          {JSON: "I think this is fine!"},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var healthy atomic.Bool
			srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
				if healthy.Load() {
					return verdict(true, "durable", "Prefers green tea in the afternoon")
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
		return fakellm.Reply{JSON: `{"store": true, "reason": "holds until it ends", "canonical": "The deploy freeze lasts until Friday", "sensitive": "none", "restated": "", "cues": ["deploy freeze", "can I deploy"], "expires": "` + friday + `"}`}
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

// The review's end must be a date, and a memory it stores must have its
// sentence: "Friday" for an end, or a store without the sentence, is an
// invalid answer that fails the write closed, not a memory kept for ever
// or in words the review never gave. An end the review dates in the past
// is said as the reason nothing is stored.
func TestReviewAnswersItCannotKeepFailTheWrite(t *testing.T) {
	t.Parallel()
	lastWeek := time.Now().AddDate(0, 0, -7).Format(time.DateOnly)
	answer := func(store bool, canonical, expires string) fakellm.Reply {
		b, _ := json.Marshal(map[string]any{"store": store, "reason": "holds until it ends", "canonical": canonical, "sensitive": "none", "restated": "", "cues": []string{}, "expires": expires})
		return fakellm.Reply{JSON: string(b)}
	}
	for name, c := range map[string]struct {
		reply  fakellm.Reply
		status memory.Status // "" when the write fails closed
	}{
		"an end that is no date": {answer(true, "The deploy freeze lasts until Friday", "Friday"), ""},
		"an impossible date":     {answer(true, "The deploy freeze lasts until Friday", "2031-02-30"), ""},
		"store without sentence": {answer(true, "", ""), ""},
		"an end already past":    {answer(true, "The deploy freeze lasts until Friday", lastWeek), memory.Rejected},
		"a date that holds":      {answer(true, "The deploy freeze lasts until Friday", time.Now().AddDate(0, 0, 4).Format(time.DateOnly)), memory.Stored},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return c.reply })
			d := testdb.New(t).DB
			store := memory.New(d, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
			out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Content: "the deploy freeze lasts until Friday", WrittenBy: provenance.ByExplicit})
			var n int
			require.NoError(t, d.Pool().QueryRow(context.Background(), "SELECT count(*) FROM memories").Scan(&n))
			if c.status == "" {
				require.ErrorIs(t, err, memory.ErrReviewUnavailable)
				require.ErrorIs(t, err, llm.ErrInvalidAnswer)
				require.Zero(t, n, "nothing stored")
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.status, out.Status, out.Reason)
			if c.status == memory.Rejected {
				require.Contains(t, out.Reason, lastWeek)
				require.Zero(t, n, "nothing stored")
				return
			}
			require.Equal(t, 1, n, "the count finds a stored memory")
			require.NotNil(t, out.Memory.ExpiresAt)
		})
	}
}

// reviewAnswer is a review answer with sensitive as given ("-" leaves the
// field out).
func reviewAnswer(sensitive string) string {
	a := map[string]any{"store": true, "reason": "durable", "canonical": "Takes antidepressants every morning at nine", "restated": "", "cues": []string{}, "expires": ""}
	if sensitive != "-" {
		a["sensitive"] = sensitive
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// Issue 30, item 1: the review names a sensitive category from a closed set
// that includes "none", and the answer must carry it. Every way of asking
// for structured output (Anthropic's forced tool; OpenAI's json_schema,
// json_object with the schema in the prompt, a forced tool call, and the
// schema in the prompt alone) sends the field as required with its enum,
// and an answer without it or outside the set is an error, never a
// default.
func TestReviewSensitivityIsAClosedSetInEveryStructuredMode(t *testing.T) {
	t.Parallel()
	prose := fakellm.Reply{Text: "It looks fine to store, I think."}
	modes := []struct {
		name     string
		provider string
		// wrap makes a server that takes only this mode.
		wrap func(fakellm.Script) fakellm.Script
		// schema is where the mode's request carried the schema.
		schema func(*fakellm.Request) string
	}{
		{"anthropic forced tool", "anthropic", func(s fakellm.Script) fakellm.Script { return s },
			func(r *fakellm.Request) string { return string(r.Tools[0].InputSchema) }},
		{"json_schema", "openai", func(s fakellm.Script) fakellm.Script { return s },
			func(r *fakellm.Request) string { return string(r.ResponseFormat.Schema) }},
		{"json_object", "openai", func(s fakellm.Script) fakellm.Script {
			return func(n int, r *fakellm.Request) fakellm.Reply {
				if r.ResponseFormat != nil && r.ResponseFormat.Type == "json_schema" {
					return fakellm.Reply{Status: 400, ErrorMessage: "json_schema is not supported"}
				}
				return s(n, r)
			}
		}, schemaInPrompt},
		{"forced tool call", "openai", fakellm.IgnoresResponseFormat,
			func(r *fakellm.Request) string { return string(r.Tools[0].InputSchema) }},
		{"schema in the prompt alone", "openai", func(s fakellm.Script) fakellm.Script {
			return func(n int, r *fakellm.Request) fakellm.Reply {
				if r.ResponseFormat != nil || r.ForcedTool() != "" {
					return prose
				}
				return s(n, r)
			}
		}, schemaInPrompt},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			var answer atomic.Value
			srv := fakellm.New(t, m.wrap(func(int, *fakellm.Request) fakellm.Reply {
				return fakellm.Reply{JSON: answer.Load().(string)}
			}))
			model := llm.Model(llm.NewAnthropic("k", srv.URL, "m"))
			if m.provider == "openai" {
				model = llm.NewOpenAI("k", srv.URL+"/v1", "m")
			}
			judge := memory.ModelJudge{Model: model}
			ctx := context.Background()

			answer.Store(reviewAnswer("none"))
			v, err := judge.Review(ctx, "Takes antidepressants every morning at nine", memory.KindPreference)
			require.NoError(t, err)
			require.True(t, v.Store)
			require.Empty(t, v.Sensitive, `"none" is no category`)
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			var schema struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
				Required []string `json:"required"`
			}
			require.NoError(t, json.Unmarshal([]byte(m.schema(last)), &schema), "the schema travelled with the %s request", m.name)
			require.Equal(t, append([]string{"none"}, memory.SensitiveCategories...), schema.Properties["sensitive"].Enum)
			require.Contains(t, schema.Required, "sensitive")
			require.Contains(t, schema.Required, "restated")

			answer.Store(reviewAnswer("health"))
			v, err = judge.Review(ctx, "Takes antidepressants every morning at nine", memory.KindPreference)
			require.NoError(t, err)
			require.Equal(t, "health", v.Sensitive, "the category is kept")

			for _, bad := range []string{"-", "", "medical"} {
				answer.Store(reviewAnswer(bad))
				before := len(srv.Requests())
				_, err = judge.Review(ctx, "Takes antidepressants every morning at nine", memory.KindPreference)
				require.ErrorIs(t, err, llm.ErrInvalidAnswer, "sensitive %q", bad)
				require.Len(t, srv.Requests(), before+2, "asked once more, then an error")
			}
		})
	}
}

// schemaInPrompt is the schema a request without json_schema carried in
// its system prompt.
func schemaInPrompt(r *fakellm.Request) string {
	_, schema, _ := strings.Cut(r.System, "must match this JSON Schema")
	_, schema, _ = strings.Cut(schema, ":\n")
	return schema
}
