package db

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize is s as mnemo stores text: the one rule for every text a store
// keeps, and every query that reaches the database.
//   - NUL bytes and invalid UTF-8 are removed: PostgreSQL refuses them in
//     text and JSON, even in a query's argument, and a model, a client of
//     the MCP server or a Slack post may send them.
//   - Control characters are removed, but for tab, newline and carriage
//     return; vertical tab, form feed and NEL, which break a line, become a
//     newline, so the words they part stay apart. Escape sequences and bells
//     written by a model or a client must never run in an operator's
//     terminal when a row is shown.
//   - Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069)
//     are removed: they make a line read otherwise than it is stored.
//
// Text without any of these is returned as it is, so the normalized form
// and idempotency key of ordinary text never change.
func Sanitize(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			return sanitizeFrom(s, i)
		}
		i += n
	}
	return s
}

// sanitizeFrom is Sanitize past s[:i], which needs nothing.
func sanitizeFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
		case r == '\v' || r == '\f' || r == '\u0085':
			b.WriteByte('\n')
		case Unsafe(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Unsafe reports whether Sanitize removes (or, for a line break, replaces)
// r: a control character other than tab, newline and carriage return, or a
// bidirectional override or isolate. A terminal shows such a rune in an
// older row escaped (mnemo memories).
func Unsafe(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case unicode.IsControl(r):
		return true
	}
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}
