package mcp

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/rs/zerolog"
)

// A remote server's URL may carry a credential beyond its host: an API key
// in the query (Tavily's ?tavilyApiKey=…, ?key=…) or a secret in the path
// (Zapier's /api/mcp/s/SECRET/mcp). mcp-go's errors quote the URL whole
// (Post "https://…": …), and such an error would reach the log, the
// catalog's unavailable text, a tool call's error and so the session log
// and the model, and `mnemo tools list`. So every error the Source makes,
// and every line mcp-go logs for it, passes through scrubURL first.

// minSecretPart is how long a single path segment, query value or user
// name must be for scrubURL to hide it wherever it appears on its own:
// long enough to be a credential, not a word like "mcp" or "api" that the
// rest of the text may use.
const minSecretPart = 8

// scrubURL returns text with the configured server URL raw, in any of its
// spellings, replaced by scheme://host/… (the host says which server it
// was, nothing beyond it is kept), and the path and query beyond the host,
// and each long segment or value of them, replaced by … wherever they
// appear on their own. A raw that is not a URL with a host is replaced
// whole.
func scrubURL(raw, text string) string {
	return newURLScrubber(raw).scrub(text)
}

// urlScrubber is scrubURL for one URL, worked out once: a Source scrubs
// every error and every log line of its transport with it.
type urlScrubber struct {
	raw, short string
	whole      bool           // raw is no URL with a host: replaced whole
	spelled    *regexp.Regexp // the URL as net/http and mcp-go print it
	parts      []string       // the path, query and long pieces, longest first
}

func newURLScrubber(raw string) *urlScrubber {
	sc := &urlScrubber{raw: raw}
	if raw == "" {
		return sc
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		sc.whole = true
		return sc
	}
	sc.short = u.Scheme + "://" + u.Host + "/…"
	// The URL as net/http and mcp-go print it: re-encoded, with the user
	// info's password starred, or another URL of the same server (an SSE
	// endpoint). It runs to the next space or quote.
	sc.spelled = regexp.MustCompile(`(?i)` + regexp.QuoteMeta(u.Scheme) + `://([^/\s"'<>@]*@)?` + regexp.QuoteMeta(u.Host) + `([^\s"'<>]*)`)
	add := func(p string, always bool) {
		if p != "" && p != "/" && (always || len(p) >= minSecretPart) && !strings.Contains(sc.short, p) {
			sc.parts = append(sc.parts, p)
		}
	}
	add(u.RequestURI(), true)
	add(u.EscapedPath(), true)
	add(u.Path, true)
	add(u.RawQuery, true)
	if q, err := url.QueryUnescape(u.RawQuery); err == nil {
		add(q, true)
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		add(seg, false)
		if s, err := url.PathUnescape(seg); err == nil {
			add(s, false)
		}
	}
	for _, pair := range strings.Split(u.RawQuery, "&") {
		_, v, _ := strings.Cut(pair, "=")
		add(v, false)
		if s, err := url.QueryUnescape(v); err == nil {
			add(s, false)
		}
	}
	if u.User != nil {
		add(u.User.Username(), false)
		if p, ok := u.User.Password(); ok {
			add(p, false)
		}
	}
	// Longest first, so no piece of a longer one is left behind.
	slices.SortFunc(sc.parts, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return sc
}

func (sc *urlScrubber) scrub(text string) string {
	switch {
	case sc.raw == "" || text == "":
		return text
	case sc.whole:
		return strings.ReplaceAll(text, sc.raw, "<mcp server url>")
	}
	text = strings.ReplaceAll(text, sc.raw, sc.short)
	// A tail that goes on with the host (a longer name, another port) is
	// another server's URL, and is left.
	text = sc.spelled.ReplaceAllStringFunc(text, func(m string) string {
		if tail := sc.spelled.FindStringSubmatch(m)[2]; tail != "" && !strings.ContainsAny(tail[:1], "/?#") {
			return m
		}
		return sc.short
	})
	for _, p := range sc.parts {
		text = strings.ReplaceAll(text, p, "…")
	}
	return text
}

// scrubbedError is an error whose text has been through scrubURL. It keeps
// the original for errors.Is (a deadline, a cancellation) but does not
// unwrap to it, so no caller can print the original text.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

// scrub returns err with the server's URL scrubbed from its text; see
// scrubURL. A stdio server has no URL, and its errors are returned as they
// are.
func (s *Source) scrub(err error) error {
	if err == nil || s.cfg.URL == "" {
		return err
	}
	return &scrubbedError{msg: s.scrubber.scrub(err.Error()), err: err}
}

// transportLog is the logger mcp-go's HTTP and SSE transports write to
// (slog.Default otherwise): the source's own, with the server's URL
// scrubbed from the message and every attribute.
func (s *Source) transportLog() *slog.Logger {
	return slog.New(&scrubbingHandler{log: s.log.With().Str("source", s.SourceName()).Logger(), url: s.scrubber})
}

// scrubbingHandler is a slog handler writing to a zerolog logger through
// scrubURL. mcp-go's Info lines are chatter ("listening to server
// forever"): they log at debug.
type scrubbingHandler struct {
	log    zerolog.Logger
	url    *urlScrubber
	attrs  []slog.Attr
	prefix string // the open groups, "g1.g2."
}

func (h *scrubbingHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *scrubbingHandler) Handle(_ context.Context, r slog.Record) error {
	var ev *zerolog.Event
	switch {
	case r.Level >= slog.LevelError:
		ev = h.log.Error()
	case r.Level >= slog.LevelWarn:
		ev = h.log.Warn()
	default:
		ev = h.log.Debug()
	}
	if ev == nil {
		return nil
	}
	for _, a := range h.attrs {
		ev.Str(a.Key, h.url.scrub(a.Value.String()))
	}
	r.Attrs(func(a slog.Attr) bool {
		ev.Str(h.prefix+a.Key, h.url.scrub(a.Value.String()))
		return true
	})
	ev.Msg(h.url.scrub(r.Message))
	return nil
}

func (h *scrubbingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		a.Key = h.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *scrubbingHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}
