package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// spans records every span of this test process: serve runs in-process in
// these tests, and traces through OpenTelemetry's global provider, which
// can be set once. Tests pick their own trace out by its turn.
var (
	spansOnce sync.Once
	spans     *tracetest.SpanRecorder
)

func recordSpans() *tracetest.SpanRecorder {
	spansOnce.Do(func() {
		spans = tracetest.NewSpanRecorder()
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	})
	return spans
}

// traceOf returns the ended spans of the trace whose root event carried
// the post at ts in channel. The channel matters: every bot's fake Slack
// hands out the same timestamps, and all bots share the recorder.
func traceOf(rec *tracetest.SpanRecorder, channel, ts string) []sdktrace.ReadOnlySpan {
	var id trace.TraceID
	all := rec.Ended()
	for _, s := range all {
		if strings.HasPrefix(s.Name(), "slack.event") && attr(s, "slack.channel") == channel && attr(s, "slack.ts") == ts {
			id = s.SpanContext().TraceID()
		}
	}
	var out []sdktrace.ReadOnlySpan
	for _, s := range all {
		if id.IsValid() && s.SpanContext().TraceID() == id {
			out = append(out, s)
		}
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// tree renders a trace as an indented tree, children in start order, each
// with the attributes that say what it did.
func tree(ss []sdktrace.ReadOnlySpan, show ...string) string {
	kids := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range ss {
		ids[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range ss {
		if p := s.Parent().SpanID(); p.IsValid() && ids[p] {
			kids[p] = append(kids[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(l []sdktrace.ReadOnlySpan) {
		sort.SliceStable(l, func(i, j int) bool { return l[i].StartTime().Before(l[j].StartTime()) })
	}
	var b strings.Builder
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		var as []string
		for _, k := range show {
			if v := attr(s, k); v != "" {
				as = append(as, k+"="+v)
			}
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), s.Name())
		if len(as) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(as, " "))
		}
		b.WriteString("\n")
		l := kids[s.SpanContext().SpanID()]
		byStart(l)
		for _, k := range l {
			walk(k, depth+1)
		}
	}
	byStart(roots)
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

// One trace per turn, from the event's arrival to the reply: the ack, the
// inbox move and the job, recall, every model call with the GenAI
// conventions' attributes (and no message text), each tool call, the
// reply post. The trace id is the turn's, in its row and its log lines.
func TestTurnIsOneTraceWithGenAIAttributes(t *testing.T) {
	rec := recordSpans()
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		r := scripted.Memory()(n, req)
		r.InputTokens, r.OutputTokens, r.CachedTokens = 120, 30, 100
		return r
	})
	const ch = "C0TRACE"
	ts, ss := turnTrace(t, rec, b, ch)
	show := []string{"gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.response.finish_reasons", "gen_ai.tool.name", "mnemo.tool.outcome", "mnemo.recall.candidates", "mnemo.recall.injected", "mnemo.turn.outcome", "mnemo.reply.kind"}
	got := tree(ss, show...)
	t.Logf("trace:\n%s", got)

	names := map[string]int{}
	parent := map[string]string{}
	byID := map[trace.SpanID]string{}
	for _, s := range ss {
		byID[s.SpanContext().SpanID()] = s.Name()
	}
	for _, s := range ss {
		names[s.Name()]++
		parent[s.Name()] = byID[s.Parent().SpanID()]
	}
	require.Equal(t, 1, names["slack.event app_mention"])
	require.Equal(t, "slack.event app_mention", parent["inbox.move"], "the move is in the event's trace, through the arrival's args")
	require.Equal(t, "slack.event app_mention", parent["inbox.job"], "and the job too")
	require.Equal(t, "inbox.job", parent["turn"])
	require.Equal(t, "turn", parent["recall"])
	require.Equal(t, "turn", parent["execute_tool searchTools"])
	require.Equal(t, "turn", parent["execute_tool memory__remember"])
	require.Equal(t, "turn", parent["slack.reply"])
	require.Equal(t, 4, names["chat claude-test"], "the turn's three calls and the memory judge's")

	var turnCalls, judgeCalls int
	for _, s := range ss {
		switch s.Name() {
		case "chat claude-test":
			for k, want := range map[string]string{
				"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-test",
				"gen_ai.usage.input_tokens": "120", "gen_ai.usage.output_tokens": "30", "gen_ai.usage.cache_read.input_tokens": "100",
			} {
				require.Equal(t, want, attr(s, k), k)
			}
			require.NotEmpty(t, attr(s, "gen_ai.response.finish_reasons"))
			require.Empty(t, attr(s, "gen_ai.input.messages"), "no message text without MNEMO_TRACE_CONTENT")
			for _, kv := range s.Attributes() {
				require.NotContains(t, kv.Value.String(), "kestrel", "no message text in %s", kv.Key)
			}
			switch byID[s.Parent().SpanID()] {
			case "turn":
				turnCalls++
			case "execute_tool memory__remember":
				judgeCalls++
			}
		case "execute_tool memory__remember":
			require.Equal(t, "ok", attr(s, "mnemo.tool.outcome"))
			require.Equal(t, "memory__remember", attr(s, "gen_ai.tool.name"))
		case "turn":
			require.Equal(t, "answered", attr(s, "mnemo.turn.outcome"))
		case "recall":
			require.NotEmpty(t, attr(s, "mnemo.recall.candidates"))
		}
	}
	require.Equal(t, 3, turnCalls, "the turn's own three model calls: search, run, answer")
	require.Equal(t, 4-turnCalls, judgeCalls, "the memory judge's call is inside the tool that made it")
	for _, s := range ss {
		for _, kv := range s.Attributes() {
			require.NotContains(t, kv.Value.String(), "kestrel", "no message text in any span (%s %s)", s.Name(), kv.Key)
		}
		for _, ev := range s.Events() {
			for _, kv := range ev.Attributes {
				require.NotContains(t, kv.Value.String(), "kestrel", "no message text in any span event (%s %s)", s.Name(), kv.Key)
			}
		}
	}

	// The trace id is the turn's, in its row and its log lines.
	traceID := ss[0].SpanContext().TraceID().String()
	var rowTrace string
	require.NoError(t, b.db.Pool.QueryRow(t.Context(), "SELECT trace_id FROM turns WHERE channel_id = $1 AND message_ts = $2", ch, ts).Scan(&rowTrace))
	require.Equal(t, traceID, rowTrace)
	require.Contains(t, b.logs.String(), `"trace_id":"`+traceID+`"`)

	// The control: the same turn with MNEMO_TRACE_CONTENT=true, read by
	// the same checks, does find "kestrel" in the model calls' messages.
	// So the absence above is the setting's doing, not a search that
	// could never see the text.
	withContent := startBot(t, scripted.Memory(), "MNEMO_TRACE_CONTENT", "true")
	const contentCh = "C0TRACECONTENT"
	_, cs := turnTrace(t, rec, withContent, contentCh)
	var inMessages, anywhere int
	for _, s := range cs {
		if s.Name() == "chat claude-test" && strings.Contains(attr(s, "gen_ai.input.messages"), "kestrel") {
			inMessages++
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), "kestrel") {
				anywhere++
			}
		}
	}
	require.NotZero(t, inMessages, "with MNEMO_TRACE_CONTENT=true a model call's gen_ai.input.messages holds the text:\n%s", tree(cs, "gen_ai.input.messages"))
	require.NotZero(t, anywhere, "and the scan of every span's attributes finds it")
}

// turnTrace has b remember the kestrel fact in channel, waits for the
// turn's job span to end, and returns the post's ts and the turn's trace.
func turnTrace(t *testing.T, rec *tracetest.SpanRecorder, b *bot, channel string) (string, []sdktrace.ReadOnlySpan) {
	t.Helper()
	ts, _ := b.mention(alice, channel, "remember that the staging database is called kestrel", "")
	b.waitDone(channel, ts)
	var ss []sdktrace.ReadOnlySpan
	require.Eventually(t, func() bool {
		ss = traceOf(rec, channel, ts)
		for _, s := range ss {
			if s.Name() == "inbox.job" {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the job's span ends")
	return ts, ss
}
