package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

var verdictSchema = &llm.Schema{
	Name:        "verdict",
	Description: "Whether to store the fact, and why.",
	JSON:        json.RawMessage(`{"type":"object","properties":{"store":{"type":"boolean"},"reason":{"type":"string"}},"required":["store","reason"],"additionalProperties":false}`),
}

type verdict struct {
	Store  bool   `json:"store"`
	Reason string `json:"reason"`
}

func verdictRequest() llm.Request {
	return llm.Request{
		System:   "decide",
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "Alice prefers short replies"}},
		Schema:   verdictSchema,
	}
}

// The schema travels by each provider's own mechanism: response_format
// json_schema (strict) on OpenAI, a single forced tool on Anthropic, whose
// input comes back as the answer.
func TestCompleteJSONUsesTheProviderMechanism(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, fakellm.Queue(fakellm.Reply{JSON: `{"store":true,"reason":"a durable preference"}`}))
			var v verdict
			require.NoError(t, llm.CompleteJSON(context.Background(), p.new(srv.URL), verdictRequest(), &v))
			require.Equal(t, verdict{Store: true, Reason: "a durable preference"}, v)

			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			req := reqs[0]
			switch p.name {
			case "anthropic":
				require.Nil(t, req.ResponseFormat)
				require.Len(t, req.Tools, 1)
				require.Equal(t, "verdict", req.Tools[0].Name)
				require.Equal(t, verdictSchema.Description, req.Tools[0].Description)
				require.JSONEq(t, string(verdictSchema.JSON), string(req.Tools[0].InputSchema))
				require.Equal(t, &fakellm.ToolChoice{Type: "tool", Name: "verdict"}, req.ToolChoice)
			case "openai":
				require.Empty(t, req.Tools)
				require.Nil(t, req.ToolChoice)
				require.NotNil(t, req.ResponseFormat)
				require.Equal(t, "json_schema", req.ResponseFormat.Type)
				require.Equal(t, "verdict", req.ResponseFormat.Name)
				require.Equal(t, verdictSchema.Description, req.ResponseFormat.Description)
				require.True(t, req.ResponseFormat.Strict)
				require.JSONEq(t, string(verdictSchema.JSON), string(req.ResponseFormat.Schema))
			}
		})
	}
}

func TestCompleteJSONRetriesOneInvalidAnswer(t *testing.T) {
	t.Parallel()
	invalid := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"prose instead of JSON", fakellm.Reply{Text: "Sure! I think we should store it."}},
		{"JSON not matching the schema", fakellm.Reply{JSON: `{"store":"yes"}`}},
	}
	for _, p := range providers {
		for _, bad := range invalid {
			t.Run(p.name+"/"+bad.name, func(t *testing.T) {
				t.Parallel()
				srv := fakellm.New(t, fakellm.Queue(bad.reply, fakellm.Reply{JSON: `{"store":false,"reason":"passing remark"}`}))
				var v verdict
				require.NoError(t, llm.CompleteJSON(context.Background(), p.new(srv.URL), verdictRequest(), &v))
				require.Equal(t, verdict{Store: false, Reason: "passing remark"}, v)
				require.Len(t, srv.Requests(), 2, "one retry after the invalid answer")
			})
		}
	}
}

func TestCompleteJSONFailsAfterTwoInvalidAnswers(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, fakellm.Queue(
				fakellm.Reply{JSON: `{"store":"yes"}`},
				fakellm.Reply{JSON: `{"store":true}`},
				fakellm.Reply{JSON: `{"store":true,"reason":"never asked for"}`},
			))
			v := verdict{Reason: "untouched"}
			err := llm.CompleteJSON(context.Background(), p.new(srv.URL), verdictRequest(), &v)
			require.ErrorIs(t, err, llm.ErrInvalidAnswer)
			var ve *jsonschema.ValidationError
			require.ErrorAs(t, err, &ve, "the validation error is kept")
			require.Contains(t, err.Error(), "reason", "the last answer's violation (missing reason) is named")
			require.Equal(t, verdict{Reason: "untouched"}, v, "an invalid answer is an error, never a default")
			require.Len(t, srv.Requests(), 2, "exactly one retry")
		})
	}
}

func TestCompleteJSONRefusesBadRequestsBeforeCalling(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		req  llm.Request
		want error
	}{
		{"no schema", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}, llm.ErrNoSchema},
		{"schema not an object", llm.Request{Schema: &llm.Schema{Name: "x", JSON: json.RawMessage(`{"type":"string"}`)}}, llm.ErrBadSchema},
		{"schema not compilable", llm.Request{Schema: &llm.Schema{Name: "x", JSON: json.RawMessage(`{"type":"object","properties":{"a":{"type":12}}}`)}}, llm.ErrBadSchema},
		{"schema name with spaces", llm.Request{Schema: &llm.Schema{Name: "my verdict", JSON: verdictSchema.JSON}}, llm.ErrBadSchema},
		{"schema and tools", llm.Request{Schema: verdictSchema, Tools: []llm.ToolSpec{{Name: "t", InputSchema: verdictSchema.JSON}}}, llm.ErrSchemaWithTools},
	}
	for _, p := range providers {
		for _, c := range cases {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				srv := fakellm.New(t, fakellm.Queue(fakellm.Reply{JSON: `{"store":true,"reason":"ok"}`}))
				m := p.new(srv.URL)
				var v verdict
				err := llm.CompleteJSON(context.Background(), m, c.req, &v)
				require.ErrorIs(t, err, c.want)
				require.Empty(t, srv.Requests())

				// Positive control: the same model and server answer a good request.
				require.NoError(t, llm.CompleteJSON(context.Background(), m, verdictRequest(), &v))
				require.Len(t, srv.Requests(), 1)
			})
		}
	}
}

// An OpenAI-compatible server that refuses or ignores response_format
// still gives structured answers: json_schema, then json_object, then a
// forced tool call, then the schema in the prompt alone. The mode that
// worked is kept for the model and logged once.
func TestStructuredOutputFallsBackToWhatTheServerTakes(t *testing.T) {
	t.Parallel()
	answer := fakellm.Reply{JSON: `{"store":true,"reason":"a durable preference"}`}
	prose := fakellm.Reply{Text: "I think it should be stored, since it is a preference."}
	for _, c := range []struct {
		name   string
		script fakellm.Script
		modes  []string // the request of each attempt: its response_format type, "tool" or "plain"
		chosen string
	}{
		{"takes json_schema", func(int, *fakellm.Request) fakellm.Reply { return answer },
			[]string{"json_schema"}, "json_schema"},
		{"ignores response_format", fakellm.IgnoresResponseFormat(func(int, *fakellm.Request) fakellm.Reply { return answer }),
			[]string{"json_schema", "json_object", "tool"}, "tool"},
		{"refuses response_format", fakellm.RefusesResponseFormat(fakellm.IgnoresResponseFormat(func(int, *fakellm.Request) fakellm.Reply { return answer })),
			[]string{"json_schema", "json_object", "tool"}, "tool"},
		{"follows the prompt alone", func(_ int, req *fakellm.Request) fakellm.Reply {
			if req.ResponseFormat != nil || req.ForcedTool() != "" {
				return prose
			}
			return fakellm.Reply{Text: "```json\n" + answer.JSON + "\n```"}
		}, []string{"json_schema", "json_object", "tool", "plain"}, "plain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, c.script)
			var logs bytes.Buffer
			m := llm.NewOpenAI("", srv.URL+"/v1", "local-model", llm.WithLogger(zerolog.New(&logs)))
			for range 2 {
				var v verdict
				require.NoError(t, llm.CompleteJSON(context.Background(), m, verdictRequest(), &v))
				require.Equal(t, verdict{Store: true, Reason: "a durable preference"}, v)
			}
			got := requestModes(srv.Requests())
			for i, r := range srv.Requests() {
				if got[i] == "plain" {
					require.Contains(t, r.System, "must match this JSON Schema", "the prompt names the schema")
				}
			}
			require.Equal(t, append(c.modes, c.chosen), got, "the second call goes straight to the mode that worked")
			require.Equal(t, 1, strings.Count(logs.String(), "structured output mode chosen"), logs.String())
			require.Contains(t, logs.String(), `"mode":"`+c.chosen+`"`)
		})
	}
}

// An answer that is not JSON because the model ran out of output tokens,
// or one that never is whatever the mode, is an invalid answer: it does
// not move the model to a mode without the schema for every later call.
func TestAnInvalidAnswerDoesNotTurnTheSchemaOff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		bad   fakellm.Reply
		modes []string // the first call's requests
	}{
		// Cut off: the same mode is asked again, and nothing else.
		{"cut off", fakellm.Reply{JSON: `{"store":tr`, CutOff: true}, []string{"json_schema", "json_schema"}},
		// Prose in every mode, plain included: each attempt tries them all.
		{"prose", fakellm.Reply{Text: "It should be stored."},
			[]string{"json_schema", "json_object", "tool", "plain", "json_schema", "json_object", "tool", "plain"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var fixed atomic.Bool
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
				if fixed.Load() {
					return fakellm.Reply{JSON: `{"store":true,"reason":"a durable preference"}`}
				}
				return c.bad
			})
			var logs bytes.Buffer
			m := llm.NewOpenAI("", srv.URL+"/v1", "cut-model-"+c.name, llm.WithLogger(zerolog.New(&logs)))
			var v verdict
			require.ErrorIs(t, llm.CompleteJSON(context.Background(), m, verdictRequest(), &v), llm.ErrInvalidAnswer)
			require.Equal(t, c.modes, requestModes(srv.Requests()))

			fixed.Store(true)
			require.NoError(t, llm.CompleteJSON(context.Background(), m, verdictRequest(), &v))
			require.Equal(t, verdict{Store: true, Reason: "a durable preference"}, v)
			got := requestModes(srv.Requests())
			require.Equal(t, "json_schema", got[len(got)-1], "the next call still carries the schema")
			require.Equal(t, len(c.modes)+1, len(got))
			require.NotContains(t, logs.String(), `"mode":"plain"`)
		})
	}
}

// requestModes is each request's way of asking for JSON: its
// response_format type, "tool" or "plain".
func requestModes(reqs []*fakellm.Request) []string {
	var got []string
	for _, r := range reqs {
		switch {
		case r.ResponseFormat != nil:
			got = append(got, r.ResponseFormat.Type)
		case r.ForcedTool() == "verdict":
			got = append(got, "tool")
		default:
			got = append(got, "plain")
		}
	}
	return got
}
