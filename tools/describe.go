package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// SourceStatus is one source as Describe reports it: its tools, or why
// they could not be listed.
type SourceStatus struct {
	Source  string
	Summary string
	Tools   []ToolSummary
	// Err says why a provider's tools could not be listed (its server
	// would not start or answer); Tools is then empty.
	Err error
}

// ToolSummary is one tool in a listing.
type ToolSummary struct {
	Name    string
	Summary string // the first paragraph of the description, shortened
	Direct  bool   // a native model tool rather than one in the catalog
}

// Describe lists every source of reg (or only source, when set) with its
// tools, connecting to each provider, all at once. A provider that fails is
// reported in its SourceStatus, not as an error; an unknown source is an
// error naming the known ones.
func Describe(ctx context.Context, reg *Registry, source string) ([]SourceStatus, error) {
	states := reg.gather(ctx, source, true)
	byName := map[string]*SourceStatus{}
	var out []*SourceStatus
	add := func(name, summary string) *SourceStatus {
		if st := byName[name]; st != nil {
			return st
		}
		st := &SourceStatus{Source: name, Summary: summary}
		byName[name] = st
		out = append(out, st)
		return st
	}
	for _, st := range states {
		s := add(st.name, st.summary)
		s.Err = st.err
		if st.index != nil {
			for _, e := range st.index.tools {
				s.Tools = append(s.Tools, ToolSummary{Name: e.Name, Summary: e.search.summary})
			}
		}
	}
	// Direct tools are in no catalog source, and their source may never
	// have been named with AddSource.
	reg.mu.RLock()
	for _, n := range reg.sortedNames() {
		if e := reg.tools[n]; e.Exposure == Direct {
			s := add(e.Source, reg.summaries[e.Source])
			s.Tools = append(s.Tools, ToolSummary{Name: e.Name, Summary: e.search.summary, Direct: true})
		}
	}
	reg.mu.RUnlock()

	slices.SortFunc(out, func(a, b *SourceStatus) int { return strings.Compare(a.Source, b.Source) })
	var list []SourceStatus
	for _, s := range out {
		if source == "" || s.Source == source {
			slices.SortStableFunc(s.Tools, func(a, b ToolSummary) int { return strings.Compare(a.Name, b.Name) })
			list = append(list, *s)
		}
	}
	if source != "" && len(list) == 0 {
		var known []string
		for _, s := range out {
			known = append(known, s.Source)
		}
		return nil, fmt.Errorf("unknown source %q; sources: %s", source, strings.Join(known, ", "))
	}
	return list, nil
}
