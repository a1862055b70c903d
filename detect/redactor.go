package detect

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
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
// newline, outside any RedactedMarker, or just after a neutral rune (one
// no secret pattern names: a kana, a kanji, 。 or 、) inside a run without
// white space. A cut is taken only where redacting the text on either side
// of it gives what redacting across it gives, and where no later text can
// change that (safeCut): every secret pattern but a private key's spans
// twenty-odd words at most, and a cut after white space has cutWords words
// and cutBytes bytes after it when it is taken; a private key's block or
// base64 body is never cut; a cut in a run is taken only where no pattern
// that can hold a neutral rune can reach it (inRunCut). The window starts
// a cut further back, so the text after the last cut keeps cutBytes of
// what came before it, more than any rule looks back; and it is redacted
// from the rune before its cut, so every pattern sees at its start the
// neighbour it sees in the whole text.
//
// A run of ASCII without white space (a base64 blob, a long URL) has no
// cut: any rule's key may continue it, so it is redacted whole at every
// write until white space ends it, and costs the square of its length.
//
// The Redactor is Redact of the text so far, no less and no more: where a
// later line changes how an earlier one is redacted (a bare PEM body's
// next line joins the first's marker, a private key's END closes its
// block), Redacted changes what it gave before, as Redact does. A stream
// that shows what it gave (agent.Throttle) stops there, which keeps the key
// unshown: what was shown ended in a marker the new redaction moved.
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

// redactFrom redacts text from the cut c: Redact of the text from the
// rune before the cut, the whitespace or neutral rune, so that every
// pattern sees the neighbours it sees in the whole text, without that
// rune. It is false if the redaction did not keep it (no rule redacts from
// there, so it always does).
func redactFrom(text string, c int) (string, bool) {
	if c == 0 {
		return Redact(text), true
	}
	_, n := utf8.DecodeLastRuneInString(text[:c])
	red := Redact(text[c-n:])
	if !strings.HasPrefix(red, text[c-n:c]) {
		return "", false
	}
	return red[n:], true
}

// cutBefore is the last cut at or before i: the point after an ASCII
// space, tab or newline, or after a neutral rune; 0 if there is none.
func cutBefore(text string, i int) int {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		if r == ' ' || r == '\t' || r == '\n' || neutral(r) && (i == len(text) || utf8.RuneStart(text[i])) {
			return i
		}
		i -= n
	}
	return 0
}

// safeCut reports whether no secret pattern can reach across the cut c,
// whatever text comes later: it has cutWords words after it, it is not
// inside a RedactedMarker, a private key's block is not open before it,
// and the line before it (if it is a line's start) does not end in a run
// of base64 that a key's body could continue. The cut before it, prev,
// was safe, so no block opened before prev is open at c. A cut after a
// neutral rune is inRunCut's.
func safeCut(text string, prev, c int) bool {
	if strings.IndexByte(" \t\n", text[c-1]) < 0 {
		return inRunCut(text, prev, c)
	}
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

// inRunCut reports whether no secret pattern can reach across the cut c
// after a neutral rune inside a run without white space, whatever text
// comes later. Only a broad pattern (".", "\S", "[^…]") holds a neutral
// rune, and each holds it in a part that follows a trigger its match
// needs (a keyword, "user", "-u", "X_KEY=", "://", "?x=", "user:",
// "aws"): a value that runs to the next white space, or a part that
// holds at most 128 runes. So no match can reach the rune before c when
// no broad pattern has a match from before c that holds that rune once
// the text goes on as one of cutProbes does: each completes every broad
// pattern whose trigger came before it (a value, a password after "pw",
// a host after "@", an AWS key after "key:"). Nothing reaches across
// the last cut prev, so the patterns read from there. Every other
// pattern stops at a neutral rune, and a rule that reads the word a
// match is in (notInURL) or the name before it (queryParamAt) reads the
// same in the window: no "://" or name can hold the rune.
func inRunCut(text string, prev, c int) bool {
	lo := prev
	if lo > 0 {
		_, n := utf8.DecodeLastRuneInString(text[:lo])
		lo -= n
	}
	head := text[lo:c]
	_, x := utf8.DecodeLastRuneInString(head)
	for _, probe := range cutProbes {
		s := head + probe
		for _, re := range broadSecrets {
			for _, loc := range re.FindAllStringIndex(s, -1) {
				if loc[0] < len(head) && loc[1] > len(head)-x {
					return false
				}
			}
		}
	}
	return true
}

// cutProbes are texts that complete a broad pattern's match begun before
// them: a value, a user and password with a host, and an AWS secret key
// after "key:" or after its separator.
var cutProbes = []string{
	"東pw:東@x.io ",
	"key:" + strings.Repeat("A", 40) + " ",
	":" + strings.Repeat("A", 40) + " ",
}

// neutral reports a rune outside ASCII that no secret pattern names: only
// a broad pattern holds it. Runes a pattern names (ñ in "contraseña", ’
// in "it’s", the dashes, and what (?i) folds to an ASCII letter: K, ſ)
// are not, and neither is an invalid byte.
func neutral(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && !namedRunes[r]
}

// broadSecrets are the secret detectors' patterns that can hold a rune
// they do not name, and namedRunes the runes outside ASCII that some
// secret pattern names, read from the patterns themselves.
var broadSecrets, namedRunes = readSecretPatterns()

func readSecretPatterns() ([]*regexp.Regexp, map[rune]bool) {
	var broad []*regexp.Regexp
	named := map[rune]bool{}
	for _, d := range detectors {
		if !isSecret(d.category) {
			continue
		}
		re, err := syntax.Parse(d.re.String(), syntax.Perl)
		if err != nil {
			panic("detect: " + d.name + ": " + err.Error())
		}
		if namesRunes(re, named) {
			broad = append(broad, d.re)
		}
	}
	return broad, named
}

// namesRunes adds to named the runes outside ASCII that re names, and
// reports whether re is broad: it has "." or a class that holds a kanji
// (東), as only a negated class does.
func namesRunes(re *syntax.Regexp, named map[rune]bool) bool {
	broad := false
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		broad = true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			for f := r; ; {
				if f >= utf8.RuneSelf {
					named[f] = true
				}
				if re.Flags&syntax.FoldCase == 0 {
					break
				}
				if f = unicode.SimpleFold(f); f == r {
					break
				}
			}
		}
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			if re.Rune[i] <= '東' && '東' <= re.Rune[i+1] {
				broad = true
				break
			}
		}
		for i := 0; !broad && i < len(re.Rune); i += 2 {
			for r := max(re.Rune[i], utf8.RuneSelf); r <= re.Rune[i+1]; r++ {
				named[r] = true
			}
		}
	}
	for _, sub := range re.Sub {
		if namesRunes(sub, named) {
			broad = true
		}
	}
	return broad
}

// SafeBreak is the last point of text, at or before its end, where a
// stream that shows text as it grows may stop, given that more may
// follow: nothing shown up to it can turn out to be part of a secret. A
// break is just after ASCII white space that `\s` matches, where a
// secret's value ends, or just after a neutral rune that no broad pattern
// can reach, by inRunCut's rule, so a language written without spaces
// still streams; 0 if there is none. Every other rune can be part of a
// secret whose match is not complete yet ("password: 東" is the start of
// "password: 東京タワー123"). text may be redacted already: a
// RedactedMarker in it is read as the word it replaced (asWords).
//
// Its patterns read text from from, which is 0 or the next of an earlier
// call on a prefix of text: the last break after a neutral rune, which
// nothing reaches across. It spares reading the whole text at each call.
func SafeBreak(text string, from int) (at, next int) {
	from = min(max(from, 0), len(text))
	ws := strings.LastIndexAny(text, " \t\n\f\r") + 1
	floor := max(ws, from)
	if m := strings.LastIndex(text, RedactedMarker); m >= 0 && words(text[m+len(RedactedMarker):]) < cutWords {
		// A marker can hide a broad pattern's trigger that the secret
		// before it swallowed ("API_TOKEN=abc、password: 東京…": the
		// token's value runs to "password:"), whose match goes on past
		// it; the probes, which read the redacted text, can't see it. No
		// neutral rune is a break until the text has gone past any
		// pattern's reach (cutWords, as the Redactor's cuts).
		return floor, from
	}
	// The last neutral rune after floor that no match reaches: the text
	// after it is the text that follows it, and cutProbes what may follow
	// the text.
	lo := from
	if lo > 0 {
		_, n := utf8.DecodeLastRuneInString(text[:lo])
		lo -= n
	}
	var reach [][]int // spans of matches that start in text[lo:]
	read := false
	for c := len(text); c > floor; {
		r, x := utf8.DecodeLastRuneInString(text[:c])
		if !neutral(r) {
			c -= x
			continue
		}
		if !read {
			reach, read = spansFrom(asWords(text[lo:])), true
		}
		if !reaches(reach, c-x-lo, c-lo) {
			return c, c
		}
		c -= x
	}
	return floor, from
}

// spansFrom is where the broad patterns match in head followed by each of
// cutProbes, for the matches that start in head.
func spansFrom(head string) [][]int {
	var spans [][]int
	for _, probe := range cutProbes {
		for _, re := range broadSecrets {
			for _, loc := range re.FindAllStringIndex(head+probe, -1) {
				if loc[0] < len(head) {
					spans = append(spans, loc)
				}
			}
		}
	}
	return spans
}

// asWords is text with each RedactedMarker in it as a word of its
// length: the secret a marker stands for can begin a match that reaches
// on ("admin" in "contraseña: admin / 東京…" is a user before "/"), and
// the marker, with its space and brackets, begins none.
func asWords(text string) string {
	return strings.ReplaceAll(text, RedactedMarker, strings.Repeat("x", len(RedactedMarker)))
}

// reaches reports whether a span holds part of text[a:b].
func reaches(spans [][]int, a, b int) bool {
	for _, s := range spans {
		if s[0] < b && s[1] > a {
			return true
		}
	}
	return false
}
