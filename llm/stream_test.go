package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

// deltas collects what onText receives.
type deltas struct {
	mu  sync.Mutex
	got []string
}

func (d *deltas) add(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, s)
}

func (d *deltas) all() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.got...)
}

// A streamed answer is the same Response as the unstreamed one: text, tool
// calls with their accumulated arguments, stop reason and token usage.
func TestStreamReturnsWhatCompleteReturns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		reply fakellm.Reply
		req   llm.Request
		text  string // the deltas joined: the text, or the JSON answer
	}{
		{
			name:  "text",
			reply: fakellm.Reply{Text: "The quick brown fox jumps over the lazy dog.", InputTokens: 12, OutputTokens: 9, CachedTokens: 4},
			req:   hello,
			text:  "The quick brown fox jumps over the lazy dog.",
		},
		{
			name: "text and tool calls",
			reply: fakellm.Reply{Text: "Let me look that up.", ToolCalls: []llm.ToolCall{
				{ID: "call_a", Name: "searchTools", Input: json.RawMessage(`{"query":"memory of alice","max_results":5}`)},
				{ID: "call_b", Name: "clock", Input: json.RawMessage(`{"zone":"Europe/Paris"}`)},
			}, InputTokens: 30, OutputTokens: 21},
			req: llm.Request{
				Messages: hello.Messages,
				Tools: []llm.ToolSpec{
					{Name: "searchTools", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"max_results":{"type":"integer"}}}`)},
					{Name: "clock", InputSchema: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}}}`)},
				},
			},
			text: "Let me look that up.",
		},
		{
			name:  "structured answer",
			reply: fakellm.Reply{JSON: `{"store":true,"reason":"a durable preference"}`, InputTokens: 5, OutputTokens: 8},
			req:   verdictRequest(),
			text:  `{"store":true,"reason":"a durable preference"}`,
		},
	}
	for _, p := range providers {
		for _, c := range cases {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return c.reply })
				m := p.new(srv.URL)
				want, err := m.Complete(context.Background(), c.req)
				require.NoError(t, err)

				var d deltas
				got, err := m.Stream(context.Background(), c.req, d.add)
				require.NoError(t, err)
				require.Equal(t, want, got)
				require.Equal(t, llm.Usage{InputTokens: c.reply.InputTokens, OutputTokens: c.reply.OutputTokens, CachedInputTokens: c.reply.CachedTokens}, got.Usage,
					"usage, cached tokens too, is read from the stream (OpenAI's include_usage chunk, Anthropic's message_start and message_delta)")
				require.Len(t, got.ToolCalls, len(c.reply.ToolCalls))
				for i, tc := range c.reply.ToolCalls {
					require.Equal(t, tc.ID, got.ToolCalls[i].ID)
					require.JSONEq(t, string(tc.Input), string(got.ToolCalls[i].Input))
				}
				if c.reply.JSON != "" {
					require.JSONEq(t, c.reply.JSON, got.Text)
				}

				require.Equal(t, c.text, strings.Join(d.all(), ""), "deltas arrive in order")
				if c.text != "" {
					require.Greater(t, len(d.all()), 1, "text arrives in more than one delta")
				}
				reqs := srv.Requests()
				require.False(t, reqs[0].Stream)
				require.True(t, reqs[1].Stream)
			})
		}
	}
}

// A stream that breaks after some deltas is an error, not a short answer,
// and is not retried: its deltas already reached the caller.
func TestStreamFailingMidwayIsAnError(t *testing.T) {
	t.Parallel()
	text := "one two three four five six seven"
	cases := []struct {
		name   string
		reply  fakellm.Reply
		deltas int
		class  map[string]llm.Class
	}{
		{"connection dropped", fakellm.Reply{Text: text, CutAfter: 3}, 3,
			map[string]llm.Class{"anthropic": llm.ClassNetwork, "openai": llm.ClassNetwork}},
		{"error event", fakellm.Reply{Text: text, ErrorAfter: 2, ErrorMessage: "Overloaded"}, 2,
			map[string]llm.Class{"anthropic": llm.ClassOverloaded, "openai": llm.ClassServer}},
	}
	for _, p := range providers {
		for _, c := range cases {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return c.reply })
				var s sleeper
				var d deltas
				resp, err := p.new(srv.URL, s.policy()).Stream(context.Background(), hello, d.add)
				require.Nil(t, resp)
				var e *llm.Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, c.class[p.name], e.Class)
				require.Equal(t, strings.SplitAfter(text, " ")[:c.deltas], d.all())
				require.Len(t, srv.Requests(), 1, "a stream that delivered text is not retried")
				require.Empty(t, s.recorded())
			})
		}
	}
}

// A stream refused before any output (429) is retried like Complete.
func TestStreamRetriesBeforeAnyOutput(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, fakellm.Queue(fakellm.Reply{Status: 429, RetryAfter: "1"}, fakellm.Reply{Text: "all good now"}))
			var s sleeper
			var d deltas
			resp, err := p.new(srv.URL, s.policy()).Stream(context.Background(), hello, d.add)
			require.NoError(t, err)
			require.Equal(t, "all good now", resp.Text)
			require.Equal(t, []string{"all ", "good ", "now"}, d.all())
			require.Len(t, srv.Requests(), 2)
		})
	}
}
