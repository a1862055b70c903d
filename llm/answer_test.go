package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

// What a structured answer is besides its text: one answer, not several;
// finished, not cut off at the token limit; given, not refused.

const (
	healthAnswer = `{"store":false,"reason":"a health detail"}`
	plainAnswer  = `{"store":true,"reason":"a durable preference"}`
)

// twoAnswers answers a structured request with two calls of the forced
// tool, each valid on its own: Anthropic two tool_use blocks, OpenAI (whose
// server ignores response_format, so the tool mode is reached) two tool
// calls. once, when set, is the single answer given instead.
func twoAnswers(once func() bool) fakellm.Script {
	return func(_ int, req *fakellm.Request) fakellm.Reply {
		if req.ResponseFormat != nil {
			return fakellm.Reply{Text: "Sure! Here is what I found."}
		}
		tool := req.ForcedTool()
		if once != nil && once() {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: tool, Input: json.RawMessage(plainAnswer)}}}
		}
		return fakellm.Reply{ToolCalls: []llm.ToolCall{
			{Name: tool, Input: json.RawMessage(healthAnswer)},
			{Name: tool, Input: json.RawMessage(plainAnswer)},
		}}
	}
}

// The forced tool is asked for once (disable_parallel_tool_use on
// Anthropic; parallel_tool_calls false on OpenAI's own API only, see
// TestOpenAIOwnAPIIsAskedForOneCall), and two calls of it are an invalid
// answer, not the last (or first) one: on a compatible server, which is
// not sent parallel_tool_calls, too.
func TestCompleteJSONRefusesTwoAnswers(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, twoAnswers(nil))
			v := verdict{Reason: "untouched"}
			err := llm.CompleteJSON(context.Background(), p.new(srv.URL), verdictRequest(), &v)
			require.ErrorIs(t, err, llm.ErrInvalidAnswer)
			require.Contains(t, err.Error(), "2 answers")
			require.Equal(t, verdict{Reason: "untouched"}, v, "neither answer is taken")

			tool := toolRequests(srv.Requests())
			require.Len(t, tool, 2, "asked once more, then an error")
			for _, r := range tool {
				var raw struct {
					ToolChoice struct {
						DisableParallelToolUse *bool `json:"disable_parallel_tool_use"`
					} `json:"tool_choice"`
					ParallelToolCalls *bool `json:"parallel_tool_calls"`
				}
				require.NoError(t, json.Unmarshal(r.Raw, &raw))
				switch p.name {
				case "anthropic":
					require.NotNil(t, raw.ToolChoice.DisableParallelToolUse, string(r.Raw))
					require.True(t, *raw.ToolChoice.DisableParallelToolUse, string(r.Raw))
				case "openai":
					require.Nil(t, raw.ParallelToolCalls, "a compatible server is not sent it: %s", r.Raw)
				}
			}
		})
	}
}

// Two answers are retried like any invalid answer: a single one next time
// is taken.
func TestCompleteJSONRetriesTwoAnswers(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := fakellm.New(t, twoAnswers(func() bool { return calls.Add(1) > 1 }))
			var v verdict
			require.NoError(t, llm.CompleteJSON(context.Background(), p.new(srv.URL), verdictRequest(), &v))
			require.Equal(t, verdict{Store: true, Reason: "a durable preference"}, v)
			require.Len(t, toolRequests(srv.Requests()), 2)
		})
	}
}

// toolRequests are the requests that forced the answer tool.
func toolRequests(reqs []*fakellm.Request) []*fakellm.Request {
	var out []*fakellm.Request
	for _, r := range reqs {
		if r.ForcedTool() == verdictSchema.Name {
			out = append(out, r)
		}
	}
	return out
}

// An answer cut off at the output token limit is not accepted even when
// what came back validates (Anthropic keeps a tool input it could parse),
// is asked for once more with twice the budget, and a second cut-off is
// ErrTruncated, not a schema mismatch.
func TestCompleteJSONRefusesACutOffAnswer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		provider string
		reply    fakellm.Reply
		budgets  []int // max tokens of each request
	}{
		// Anthropic is asked for at least 1024 tokens, and spends them.
		{"anthropic", fakellm.Reply{JSON: plainAnswer, CutOff: true, OutputTokens: 1024}, []int{1024, 2048}},
		{"openai", fakellm.Reply{JSON: `{"store":true,"rea`, CutOff: true, OutputTokens: 400}, []int{400, 800}},
	} {
		t.Run(c.provider, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return c.reply })
			req := verdictRequest()
			req.MaxTokens = 400
			v := verdict{Reason: "untouched"}
			err := llm.CompleteJSON(context.Background(), providerNamed(c.provider).new(srv.URL), req, &v)
			require.ErrorIs(t, err, llm.ErrTruncated)
			require.ErrorIs(t, err, llm.ErrInvalidAnswer, "callers checking for an invalid answer still see one")
			require.Contains(t, err.Error(), "cut off")
			require.NotContains(t, err.Error(), "does not match the schema")
			var ve *jsonschema.ValidationError
			require.False(t, errors.As(err, &ve), "not a schema mismatch: %v", err)
			require.Equal(t, verdict{Reason: "untouched"}, v, "a cut-off answer is never taken")

			var budgets []int
			for _, r := range srv.Requests() {
				budgets = append(budgets, r.MaxTokens)
			}
			require.Equal(t, c.budgets, budgets, "one retry, with twice the budget")
		})
	}
}

// A cut-off answer followed by a finished one is the finished one.
func TestCompleteJSONRetriesACutOffAnswerWithMoreTokens(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, fakellm.Queue(
				fakellm.Reply{JSON: healthAnswer, CutOff: true, OutputTokens: 1500},
				fakellm.Reply{JSON: plainAnswer},
			))
			req := verdictRequest()
			req.MaxTokens = 1500
			var v verdict
			require.NoError(t, llm.CompleteJSON(context.Background(), p.new(srv.URL), req, &v))
			require.Equal(t, verdict{Store: true, Reason: "a durable preference"}, v, "the finished answer, not the cut-off one")
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			require.Equal(t, 3000, reqs[1].MaxTokens)
		})
	}
}

// A refusal is an error that says so, carries the model's explanation
// outside its message (model text about the user's request is not logged),
// and is not asked again.
func TestCompleteJSONReportsARefusal(t *testing.T) {
	t.Parallel()
	const why = "I can't help with Alice's medical records."
	for _, c := range []struct {
		provider string
		body     string
		reason   string
	}{
		{"openai", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop","logprobs":null,"message":{"role":"assistant","content":null,"refusal":"` + why + `"}}],"usage":{"prompt_tokens":9,"completion_tokens":9,"total_tokens":18}}`, why},
		{"anthropic", `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":"refusal","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}`, ""},
	} {
		t.Run(c.provider, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return fakellm.Reply{Body: c.body} })
			v := verdict{Reason: "untouched"}
			err := llm.CompleteJSON(context.Background(), providerNamed(c.provider).new(srv.URL), verdictRequest(), &v)
			require.ErrorIs(t, err, llm.ErrRefused)
			require.NotErrorIs(t, err, llm.ErrInvalidAnswer, "a refusal is not a malformed answer")
			var re *llm.RefusalError
			require.ErrorAs(t, err, &re)
			require.Equal(t, c.reason, re.Reason)
			require.Contains(t, err.Error(), "refused")
			require.NotContains(t, err.Error(), "medical", "the model's text stays out of the message")
			require.Equal(t, verdict{Reason: "untouched"}, v)
			require.Len(t, srv.Requests(), 1, "a refusal is not asked again, nor in another mode")
		})
	}
}

func providerNamed(name string) provider {
	for _, p := range providers {
		if p.name == name {
			return p
		}
	}
	panic("no provider " + name)
}
