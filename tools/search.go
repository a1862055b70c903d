package tools

import (
	"context"
	"encoding/json"
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
	known := map[string]*sourceState{}
	for _, st := range states {
		known[st.name] = st
		if source != "" && st.name != source {
			continue
		}
		res.Sources = append(res.Sources, sourceView{Source: st.name, Summary: st.summary, Tools: len(st.tools), Unavailable: st.unavailable})
	}
	if source != "" && known[source] == nil {
		res.Sources = nil
		for _, st := range states {
			res.Sources = append(res.Sources, sourceView{Source: st.name, Summary: st.summary, Tools: len(st.tools), Unavailable: st.unavailable})
		}
		res.Note = "unknown source " + quote(source) + "; call " + SearchToolsName + " again with one of the sources listed"
		return res
	}

	type scored struct {
		e     *entry
		score float64
	}
	var cands []scored
	terms := tokens(query)
	for _, st := range states {
		if source != "" && st.name != source {
			continue
		}
		for _, e := range st.tools {
			s := score(e, terms)
			if len(terms) > 0 && s == 0 {
				continue
			}
			cands = append(cands, scored{e, s})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].e.Name < cands[j].e.Name
	})
	limit := maxResults
	if query == "" && source == "" {
		limit = min(limit, sampleSize)
		res.Note = "a sample of the catalog; call " + SearchToolsName + " with a source to list all of its tools"
	}
	if len(terms) > 0 && len(cands) == 0 {
		res.Note = "no tool matched " + quote(query) + "; try a source from the list, or other words"
	}
	for i, c := range cands {
		if i >= limit {
			break
		}
		v := toolView{ToolName: c.e.Name, Description: Summarize(c.e.Description), InputSchema: c.e.InputSchema}
		if source == "" {
			v.Source = c.e.Source
		}
		res.Tools = append(res.Tools, v)
	}
	return res
}

// score ranks a tool for the query terms: name matches weigh most, then
// source, parameter names and description.
func score(e *entry, terms []string) float64 {
	if len(terms) == 0 {
		return 1
	}
	name := strings.ToLower(e.Name)
	nameWords := tokens(e.Name)
	src := strings.ToLower(e.Source)
	desc := tokens(e.Description)
	props := schemaProps(e.InputSchema)
	var s float64
	for _, t := range terms {
		switch {
		case name == t:
			s += 10
		case contains(nameWords, t):
			s += 6
		case strings.Contains(name, t):
			s += 3
		}
		if strings.Contains(src, t) {
			s += 2
		}
		if contains(props, t) {
			s += 1.5
		}
		if contains(desc, t) {
			s += 1
		} else if prefixOf(desc, t) {
			s += 0.5
		}
	}
	return s
}

func schemaProps(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	var out []string
	for k := range s.Properties {
		out = append(out, tokens(k)...)
	}
	return out
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

func contains(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}

func prefixOf(list []string, w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, x := range list {
		if strings.HasPrefix(x, w) || strings.HasPrefix(w, x) && len(x) >= 4 {
			return true
		}
	}
	return false
}

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
