package detect

import (
	"strings"
)

// Redactor redacts a text that grows at its end, as a streamed answer does:
// Redacted is Redact of everything written so far, but it redacts again only
// a window at the end, so a streamed answer costs time in proportion to its
// length, not to its square (Redact of the whole answer at every append
// took over half a second of CPU for a 20,000-character answer). The zero
// value is an empty text. It has no lock: it belongs to one goroutine, and
// like a strings.Builder it is not copied once written to.
//
// The window starts at a cut: a point just after an ASCII space, tab or
// newline, outside any RedactedMarker. A cut is taken only where redacting
// the text on either side of it gives what redacting across it gives, and
// where no later text can change that (safeCut): every secret pattern but
// a private key's spans twenty-odd words at most, and a cut has cutWords
// words and cutBytes bytes after it when it is taken; a private key's
// block or base64 body is never cut. The window starts a cut further back,
// so the text after the last cut keeps cutBytes of what came before it,
// more than any rule looks back; and it is redacted from the whitespace
// before its cut, so every pattern sees at its start the neighbour it sees
// in the whole text.
//
// The redaction of the text between the window's start and the last cut
// is kept, and the window's redaction must begin with it; when it does not
// (something new changed what was settled), Redacted redacts the whole
// text, as Redact does, and starts its cuts again.
type Redactor struct {
	text strings.Builder
	// done is the redaction of the text before the cut c0, and mid that of
	// the text from c0 to the cut c1; the window is the text from c0.
	done   strings.Builder
	mid    string
	c0, c1 int
}

// Cut spacing: a cut has at least cutBytes bytes and cutWords words of
// text after it when it is taken. The longest lookback of a context rule
// is "password by reference"'s referenceLookback, and no pattern but a
// private key's spans more than twenty-odd words ("AWS secret key"'s
// .{0,20} of one-letter words, a password's "for the X Y is now"). A rule
// that reads further needs these to grow.
const (
	cutBytes = 256
	cutWords = 32
)

// WriteString appends s to the text. It never fails.
func (r *Redactor) WriteString(s string) (int, error) {
	return r.text.WriteString(s)
}

// Reset empties the text.
func (r *Redactor) Reset() {
	*r = Redactor{}
}

// String is the text as written, unredacted.
func (r *Redactor) String() string {
	return r.text.String()
}

// Redacted is Redact of the text written so far.
func (r *Redactor) Redacted() string {
	text := r.text.String()
	w, ok := redactFrom(text, r.c0)
	if !ok || !strings.HasPrefix(w, r.mid) {
		// What was settled changed: the whole text is redacted, and the
		// cuts start again from its start.
		r.done.Reset()
		r.mid, r.c0, r.c1 = "", 0, 0
		return Redact(text)
	}
	red := r.done.String() + w
	r.advance(text, w)
	return red
}

// advance takes a new cut once the text after the last one is long enough,
// so the window does not grow with the text. The cut is taken only where
// redacting on either side of it gives the window's redaction w: no
// finding spans it now, and safeCut says none can later.
func (r *Redactor) advance(text, w string) {
	if len(text)-r.c1 < 2*cutBytes {
		return
	}
	// The window will start at the last cut, r.c1: the text after the new
	// cut keeps cutBytes of context before it for the rules that look
	// back.
	c := cutBefore(text, len(text)-cutBytes)
	if c <= r.c1 || r.c1 > 0 && c-r.c1 < cutBytes || !safeCut(text, r.c1, c) {
		return
	}
	y, ok1 := redactFrom(text[:c], r.c1)
	z, ok2 := redactFrom(text, c)
	if !ok1 || !ok2 || w != r.mid+y+z {
		return
	}
	r.done.WriteString(r.mid)
	r.mid, r.c0, r.c1 = y, r.c1, c
}

// redactFrom redacts text from the cut c: Redact of text[c-1:], which
// starts with the whitespace before the cut so that every pattern sees the
// neighbours it sees in the whole text, without that whitespace. It is
// false if the redaction did not keep it (no rule redacts from a
// whitespace, so it always does).
func redactFrom(text string, c int) (string, bool) {
	if c == 0 {
		return Redact(text), true
	}
	red := Redact(text[c-1:])
	if red == "" || red[0] != text[c-1] {
		return "", false
	}
	return red[1:], true
}

// cutBefore is the last cut at or before i: the point after an ASCII
// space, tab or newline; 0 if there is none.
func cutBefore(text string, i int) int {
	return strings.LastIndexAny(text[:i], " \t\n") + 1
}

// safeCut reports whether no secret pattern can reach across the cut c,
// whatever text comes later: it has cutWords words after it, it is not
// inside a RedactedMarker, a private key's block is not open before it,
// and the line before it (if it is a line's start) does not end in a run
// of base64 that a key's body could continue. The cut before it, prev,
// was safe, so no block opened before prev is open at c.
func safeCut(text string, prev, c int) bool {
	if words(text[c:]) < cutWords {
		return false
	}
	// A marker holds a space: a cut after it would hide the marker.
	lo, hi := max(0, c-len(RedactedMarker)), min(len(text), c+len(RedactedMarker))
	for _, m := range markerSpans(text[lo:hi]) {
		if lo+m[0] < c && c < lo+m[1] {
			return false
		}
	}
	// "private key" spans from BEGIN to END over base64, white space and
	// header characters: a BEGIN with only those after it may be open.
	if b := strings.LastIndex(text[prev:c], "-----BEGIN"); b >= 0 {
		b += prev
		open := strings.Trim(text[b:c], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \t\r\n\\:,-") == ""
		if open && !strings.Contains(text[b:c], "-----END") {
			return false
		}
	}
	// "PEM body" and "private key body" join base64 lines at newlines.
	if text[c-1] == '\n' {
		line := strings.TrimRight(text[:c-1], "\r")
		run := len(line) - len(strings.TrimRight(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="))
		if run >= 40 {
			return false
		}
	}
	return true
}

// words counts the runs of text between white space.
func words(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}
