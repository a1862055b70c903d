package tools

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// sampleSize bounds what an empty search without a source shows, so the
// whole catalog never floods the context.
const sampleSize = 3

// DescriptionLimit is how long a summarized description may be.
const DescriptionLimit = 180

type sourceView struct {
	Source      string `json:"source"`
	Summary     string `json:"summary"`
	Tools       int    `json:"tools"`
	Unavailable string `json:"unavailable,omitempty"`
}

type toolView struct {
	ToolName    string          `json:"tool_name"`
	Source      string          `json:"source,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type searchResult struct {
	OK      bool         `json:"ok"`
	Sources []sourceView `json:"sources"`
	Tools   []toolView   `json:"tools"`
	Note    string       `json:"note,omitempty"`
	Next    string       `json:"next"`
}

func (r *Registry) search(ctx context.Context, query, source string, maxResults int) searchResult {
	maxResults = min(max(maxResults, 1), 20)
	states := r.snapshot(ctx, source)
	res := searchResult{OK: true, Tools: []toolView{}, Next: "Call " + ExecuteToolName + " with the exact tool_name and arguments matching its input_schema."}
	view := func(st *sourceState) sourceView {
		return sourceView{Source: st.name, Summary: st.summary, Tools: st.size(), Unavailable: st.unavailable()}
	}
	var searched []*sourceState
	for _, st := range states {
		if source == "" || st.name == source {
			searched = append(searched, st)
			res.Sources = append(res.Sources, view(st))
		}
	}
	if source != "" && len(searched) == 0 {
		for _, st := range states {
			res.Sources = append(res.Sources, view(st))
		}
		res.Note = "unknown source " + quote(source) + "; call " + SearchToolsName + " again with one of the sources listed"
		return res
	}

	limit := maxResults
	if query == "" && source == "" {
		limit = min(limit, sampleSize)
		res.Note = "a sample of the catalog; call " + SearchToolsName + " with a source to list all of its tools"
	}
	terms := tokens(query)
	best := topTools{limit: limit}
	var scores []float64
	var sc scratch
	for _, st := range searched {
		if st.index == nil {
			continue
		}
		scores = slices.Grow(scores[:0], len(st.index.tools))[:len(st.index.tools)]
		clear(scores)
		st.index.score(terms, st.name, scores, &sc)
		for i, s := range scores {
			if s > 0 {
				best.offer(st.index.tools[i], s)
			}
		}
	}
	if len(terms) > 0 && best.seen == 0 {
		res.Note = "no tool matched " + quote(query) + "; try a source from the list, or other words"
	}
	for _, c := range best.list {
		v := toolView{ToolName: c.e.Name, Description: c.e.search.summary, InputSchema: c.e.InputSchema}
		if source == "" {
			v.Source = c.e.Source
		}
		res.Tools = append(res.Tools, v)
	}
	return res
}

// topTools keeps the best few tools offered: higher score first, then by
// name; among equals, the one offered first.
type topTools struct {
	limit int
	seen  int
	list  []scored
}

type scored struct {
	e     *entry
	score float64
}

func (t *topTools) offer(e *entry, score float64) {
	t.seen++
	c := scored{e, score}
	ahead := func(a, b scored) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.e.Name < b.e.Name
	}
	if len(t.list) == t.limit && !ahead(c, t.list[len(t.list)-1]) {
		return
	}
	at := sort.Search(len(t.list), func(i int) bool { return ahead(c, t.list[i]) })
	if len(t.list) < t.limit {
		t.list = append(t.list, scored{})
	}
	copy(t.list[at+1:], t.list[at:])
	t.list[at] = c
}

// tokens splits text into lowercase words, splitting camelCase and
// separators, and drops very common words.
func tokens(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := string(cur)
			if !stop[w] {
				out = append(out, w)
			}
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, c := range s {
		switch {
		case unicode.IsUpper(c):
			if prevLower {
				flush()
			}
			cur = append(cur, unicode.ToLower(c))
			prevLower = false
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			cur = append(cur, c)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

var stop = map[string]bool{"a": true, "an": true, "the": true, "to": true, "of": true, "and": true, "or": true, "for": true, "in": true, "on": true, "is": true, "it": true, "with": true, "tool": true, "tools": true}

// Summarize shortens a description for search results: the first paragraph,
// whitespace collapsed, at most DescriptionLimit characters with an ellipsis.
func Summarize(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.Index(desc, "\n\n"); i >= 0 {
		desc = desc[:i]
	}
	desc = strings.Join(strings.Fields(desc), " ")
	r := []rune(desc)
	if len(r) <= DescriptionLimit {
		return desc
	}
	cut := strings.TrimRightFunc(string(r[:DescriptionLimit-1]), unicode.IsSpace)
	return cut + "…"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
