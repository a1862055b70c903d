package agent

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/tools"
)

// Status lines a turn shows while it runs, each from a real step.
const (
	StatusRecalling  = "recalling…"
	StatusThinking   = "thinking…"
	StatusSearching  = "searching tools…"
	StatusSaving     = "saving a memory…"
	StatusForgetting = "forgetting…"
	StatusTool       = "running a tool…"
)

// StatusReporter is a Surface that shows what a turn is doing while it runs
// (Slack's assistant status line). Status must not fail the turn: a status
// that cannot be shown is logged and dropped.
type StatusReporter interface {
	Status(ctx context.Context, p Post, text string)
}

// TextStream shows an answer as the model writes it.
type TextStream interface {
	// Append shows text after what was shown before. An error stops the
	// streaming; the whole answer still goes to Surface.Reply.
	Append(ctx context.Context, text string) error
}

// StreamSurface is a Surface that can show the answer as it is generated.
// When the stream has shown anything, the Surface's Reply finishes that
// same message with the final text (which may differ from what streamed:
// text the model wrote before calling tools is not the answer), and Notify
// ends it with the failure sentence.
type StreamSurface interface {
	// Stream returns where p's answer streams to, or nil for no streaming.
	Stream(ctx context.Context, p Post, m StreamMessage) TextStream
}

// StreamMessage is what a turn keeps of the message its answer streams
// into, across attempts: a process that dies mid-stream leaves that
// message in the thread, and the next attempt continues in it rather than
// start a second one beside it.
type StreamMessage struct {
	// Prior is the message an earlier attempt started the answer in ("" when
	// none did).
	Prior string
	// Started records the message the answer starts in as soon as it
	// exists (nil records nothing). Its error stops the streaming.
	Started func(ctx context.Context, ts string) error
}

// Stream rate: an answer's text is shown at most every StreamInterval,
// unless StreamChars characters are waiting.
const (
	StreamInterval = 500 * time.Millisecond
	StreamChars    = 200
)

// Live is how a turn is shown while it runs: its status line and its
// streamed answer. The zero value (and nil) shows nothing.
type Live struct {
	status func(ctx context.Context, text string)
	stream TextStream
}

// LiveFor is how s shows p's turn: through whichever of StatusReporter and
// StreamSurface s implements.
func LiveFor(ctx context.Context, s Surface, p Post, m StreamMessage) *Live {
	l := &Live{}
	if r, ok := s.(StatusReporter); ok {
		l.status = func(ctx context.Context, text string) { r.Status(ctx, p, text) }
	}
	if ss, ok := s.(StreamSurface); ok {
		l.stream = ss.Stream(ctx, p, m)
	}
	return l
}

// Status shows text as the turn's status, if the surface has a status line.
func (l *Live) Status(ctx context.Context, text string) {
	if l != nil && l.status != nil {
		l.status(ctx, text)
	}
}

// throttle returns the rate limiter for the turn's stream, or nil.
func (l *Live) throttle(now func() time.Time) *Throttle {
	if l == nil || l.stream == nil {
		return nil
	}
	return NewThrottle(l.stream, now)
}

// StatusFor is the status line for a tool call the model made: the catalog's
// own tools say what they do, and executeTool says what the deferred tool
// it runs does.
func StatusFor(name string, input json.RawMessage) string {
	switch name {
	case tools.SearchToolsName:
		return StatusSearching
	case tools.ExecuteToolName:
		var in struct {
			ToolName string `json:"tool_name"`
		}
		_ = json.Unmarshal(input, &in) // a malformed call still runs a tool, or fails to
		name = in.ToolName
	}
	switch name {
	case memory.ToolRemember:
		return StatusSaving
	case memory.ToolForget:
		return StatusForgetting
	case memory.ToolRecall, memory.ToolList:
		return StatusRecalling
	}
	return StatusTool
}

// Throttle passes an answer's text to a TextStream at a bounded rate: it
// appends when StreamInterval has passed since the step's first text or
// since the last append, or when StreamChars characters are waiting. Build it with
// NewThrottle. It belongs to the turn's goroutine, which writes to it (the
// model's stream calls back on the goroutine that asked) and flushes it:
// it has no lock, so that none is held across its TextStream's calls to
// Slack.
//
// What it appends is redacted (detect.Redact), as the reply posted at the
// end is: a secret the model quotes from a tool's result is never shown,
// not even while it streams. A secret can arrive in pieces, so each
// append ends at the last break of the redacted text so far
// (detect.SafeBreak: a white space, or a rune outside ASCII that no
// secret pattern can reach, as in Japanese prose, but not the "東" of
// "password: 東京"), and the word it was in waits for the next (Flush,
// at the end, sends it all; a stream that fails drops it: Settle). A
// redaction that reaches back into what was shown (a private key's block,
// known only at its end) stops the stream: the reply that replaces it at
// the end is redacted whole. The
// text is redacted by a detect.Redactor, which redacts again only the end
// of it, so a long answer does not cost the square of its length.
type Throttle struct {
	out TextStream
	now func() time.Time

	pending strings.Builder
	said    detect.Redactor // the text taken from pending so far, as said
	shownAs strings.Builder // the redacted text appended so far
	stuck   bool            // a redaction reached back into shownAs
	cut     int             // where detect.SafeBreak reads from
	last    time.Time
	fresh   bool // no text yet in this step
	shown   int  // characters appended so far
	err     error
}

// NewThrottle returns a Throttle over out; now may be nil for time.Now.
func NewThrottle(out TextStream, now func() time.Time) *Throttle {
	if now == nil {
		now = time.Now
	}
	return &Throttle{out: out, now: now, fresh: true}
}

// Begin starts a model step. The interval counts from the step's first
// text, not from the request (the model's first token may take longer than
// the interval), so text a step writes before calling tools is dropped by
// Discard before it is shown, unless the model wrote it for longer than the
// interval.
func (t *Throttle) Begin() {
	t.fresh = true
}

// Write takes the next delta and appends what is waiting when it is time.
func (t *Throttle) Write(ctx context.Context, delta string) {
	if t.err != nil {
		return
	}
	if t.fresh {
		t.fresh, t.last = false, t.now()
	}
	t.pending.WriteString(delta)
	if t.pending.Len() >= StreamChars || t.now().Sub(t.last) >= StreamInterval {
		t.flushLocked(ctx, false)
	}
}

// Flush appends what is waiting, at the end of the answer.
func (t *Throttle) Flush(ctx context.Context) error {
	t.flushLocked(ctx, true)
	return t.err
}

// Settle appends what is waiting through its last break, when the answer
// stops short: a word cut off by a failure may be the start of a secret
// no detector knows in part, so it is not shown.
func (t *Throttle) Settle(ctx context.Context) {
	t.flushLocked(ctx, false)
}

// Discard drops what is waiting: the step ended in tool calls, so its text
// is not the answer. A word held back from the last append goes too.
func (t *Throttle) Discard() {
	t.pending.Reset()
	shown := t.shownAs.String()
	t.said.Reset()
	t.said.WriteString(shown) // redacting it again changes nothing
}

// Shown is how many characters were appended.
func (t *Throttle) Shown() int {
	return t.shown
}

// flushLocked appends the redacted text that is new since the last
// append: up to its last break, or (at the end) all of it.
func (t *Throttle) flushLocked(ctx context.Context, end bool) {
	if t.err != nil || t.stuck {
		return
	}
	t.said.WriteString(t.pending.String())
	t.pending.Reset()
	t.last = t.now() // a try with nothing new to show waits a whole interval too
	red := t.said.Redacted()
	if !end {
		var at int
		at, t.cut = detect.SafeBreak(red, t.cut)
		red = red[:at]
	}
	shown := t.shownAs.String()
	if !strings.HasPrefix(red, shown) {
		t.stuck = true
		return
	}
	text := red[len(shown):]
	if text == "" {
		return
	}
	if err := t.out.Append(ctx, text); err != nil {
		t.err = err
		return
	}
	t.shownAs.WriteString(text)
	t.shown += len(text)
}

// complete asks the model for the next step, streaming its text through th
// when there is a stream and the model can.
func (a *Agent) complete(ctx context.Context, req llm.Request, th *Throttle) (*llm.Response, error) {
	s, ok := a.model.(llm.Streamer)
	if !ok || th == nil {
		return a.model.Complete(ctx, req)
	}
	th.Begin()
	resp, err := s.Stream(ctx, req, func(d string) { th.Write(ctx, d) })
	if err != nil {
		th.Settle(ctx) // what came before the failure is shown, and the failure sentence follows it
		return nil, err
	}
	if len(resp.ToolCalls) > 0 || th.Shown() == 0 {
		// A tool step's text is not the answer; an answer that came before
		// anything was shown is posted whole, in one message, not streamed.
		th.Discard()
	} else if ferr := th.Flush(ctx); ferr != nil {
		a.log.Warn().Err(ferr).Msg("answer stream stopped; the reply is posted whole")
	}
	return resp, nil
}
