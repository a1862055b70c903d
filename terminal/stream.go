package terminal

import (
	"context"
	"io"
	"strings"

	"github.com/mnemo-bot/mnemo/agent"
)

// StreamTo makes Say write each answer to w as the model generates it, and
// end it with a newline; Say still returns the whole reply, which the caller
// then need not print. An answer that came at once is written whole, and
// one whose streamed start was not the answer (text the model wrote before
// calling tools) is followed by the answer on a new line. Call it before
// the first Say.
func (s *Session) StreamTo(w io.Writer) { s.out = w }

// OnStatus makes each turn report its steps (StatusRecalling,
// StatusSearching, …) to f as they happen, for the chat's status line. f
// must return at once. Call it before the first Say.
func (s *Session) OnStatus(f func(text string)) { s.status = f }

// Status implements agent.StatusReporter for the terminal.
func (l *localSurface) Status(_ context.Context, _ agent.Post, text string) {
	if l.s.status != nil {
		l.s.status(text)
	}
}

// The agent finds streaming and the status line by asserting its Surface
// to these interfaces: a signature that drifted from one would turn it
// off silently.
var (
	_ agent.StreamSurface  = (*localSurface)(nil)
	_ agent.StatusReporter = (*localSurface)(nil)
)

// Stream implements agent.StreamSurface for the terminal. A terminal
// session's messages are its own, kept by no turn row, so there is no
// earlier attempt's message to continue in.
func (l *localSurface) Stream(context.Context, agent.Post, agent.StreamMessage) agent.TextStream {
	if l.s.out == nil {
		return nil
	}
	l.live = &localStream{w: l.s.out}
	return l.live
}

// localStream writes an answer's text to the terminal as it comes.
type localStream struct {
	w     io.Writer
	shown strings.Builder
}

// Append writes text as the reply keeps it (agent.Sanitize): an escape
// sequence or a bell a model wrote must not act in the terminal.
func (ls *localStream) Append(_ context.Context, text string) error {
	text = agent.Sanitize(text)
	ls.shown.WriteString(text)
	_, err := io.WriteString(ls.w, text)
	return err
}

// showFinal completes the streamed answer with the final text. The
// terminal's write errors are not the turn's: the reply is returned anyway.
func (l *localSurface) showFinal(text string) {
	if l.s.out == nil {
		return
	}
	// The reply is trimmed and the stream is not: whitespace around the
	// streamed text does not make it a different answer.
	shown := ""
	if l.live != nil {
		shown = l.live.shown.String()
	}
	switch {
	case shown == "":
		_, _ = io.WriteString(l.s.out, text+"\n")
	case strings.TrimSpace(shown) != strings.TrimSpace(text):
		_, _ = io.WriteString(l.s.out, "\n"+text+"\n")
	case !strings.HasSuffix(shown, "\n"):
		_, _ = io.WriteString(l.s.out, "\n")
	}
}

// endStream ends a streamed answer's line when the turn fails after it
// began, so the failure is printed on a line of its own.
func (l *localSurface) endStream() {
	if l.live != nil && l.live.shown.Len() > 0 {
		_, _ = io.WriteString(l.live.w, "\n")
	}
}
