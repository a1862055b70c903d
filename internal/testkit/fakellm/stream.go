package fakellm

import (
	"encoding/json"
	"net/http"
	"strings"
)

// sse writes server-sent events, flushing each so the client sees deltas
// one by one, and counts deltas to break the stream where the reply says.
type sse struct {
	w      http.ResponseWriter
	reply  Reply
	deltas int
	// failEvent writes the provider's error event.
	failEvent func(s *sse)
}

func newSSE(w http.ResponseWriter, reply Reply, failEvent func(s *sse)) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, reply: reply, failEvent: failEvent}
}

// event writes one event; name may be empty (OpenAI sends data only).
func (s *sse) event(name string, data any) {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	raw, _ := json.Marshal(data)
	b.WriteString("data: " + string(raw) + "\n\n")
	s.raw(b.String())
}

func (s *sse) raw(text string) {
	_, _ = s.w.Write([]byte(text))
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// delta writes a content-carrying event, then breaks the stream if the reply
// asks for it after this many deltas. It reports false when the stream is
// over and the handler must stop writing.
func (s *sse) delta(name string, data any) bool {
	s.event(name, data)
	s.deltas++
	if s.reply.ErrorAfter > 0 && s.deltas >= s.reply.ErrorAfter {
		s.failEvent(s)
		return false
	}
	if s.reply.CutAfter > 0 && s.deltas >= s.reply.CutAfter {
		// Aborting the handler drops the connection without ending the
		// chunked body: to the client, the network failed mid-answer.
		panic(http.ErrAbortHandler)
	}
	return true
}

// splitText cuts text into deltas of one word each, with its trailing space,
// so joining them gives text back.
func splitText(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		j := i + 1
		for j < len(text) && text[j] == ' ' {
			j++
		}
		out = append(out, text[:j])
		text = text[j:]
	}
	return out
}

// splitJSON cuts a tool's JSON input into fragments, the way providers
// stream partial JSON that is not valid until joined.
func splitJSON(s string) []string {
	const size = 7
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
