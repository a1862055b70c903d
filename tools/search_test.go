package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceScore is the ranking searchTools had before the index: every
// field tokenised afresh for every search. The index must score exactly
// as it did.
func referenceScore(e *entry, terms []string) float64 {
	if len(terms) == 0 {
		return 1
	}
	contains := func(list []string, w string) bool {
		for _, x := range list {
			if x == w {
				return true
			}
		}
		return false
	}
	prefixOf := func(list []string, w string) bool {
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
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(e.InputSchema, &schema)
	var props []string
	for k := range schema.Properties {
		props = append(props, tokens(k)...)
	}
	name := strings.ToLower(e.Name)
	nameWords := tokens(e.Name)
	src := strings.ToLower(e.Source)
	desc := tokens(e.Description)
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

func TestSearchToolsIndexScoresAsTheReference(t *testing.T) {
	t.Parallel()
	queries := []string{
		"", "the", "create issue", "issue issue", "ssue", "createIssue", "CREATE_ISSUE",
		"mcp", "cloud", "mcp github", "dry run", "include archived", "notif", "notifications",
		"subscribe", "subscriptions", "exporting", "timestamps rfc", "per", "s3", "on call",
		"mcp__github__create_issue", "count", "counter", "rate limited", "x",
	}
	for _, b := range []*Registry{benchCatalog(t), setup(t).reg} {
		states := b.snapshot(context.Background(), "")
		require.NotEmpty(t, states)
		for _, q := range queries {
			terms := tokens(q)
			checked := 0
			for _, st := range states {
				if st.index == nil {
					continue
				}
				got := make([]float64, len(st.index.tools))
				st.index.score(terms, st.name, got, &scratch{})
				for i, e := range st.index.tools {
					require.Equal(t, referenceScore(e, terms), got[i], "%q on %s", q, e.Name)
					checked++
				}
			}
			require.Positive(t, checked)
		}
	}
}

// The whole ranked answer matches the reference ranking: score, then name.
func TestSearchToolsRanksAsTheReference(t *testing.T) {
	t.Parallel()
	reg := benchCatalog(t)
	all := benchAllTools(t, reg)
	var entries []*entry
	for _, tl := range all {
		e, err := compile(tl)
		require.NoError(t, err)
		entries = append(entries, e)
	}
	for _, q := range []string{"create issue", "list pull requests", "mcp refund", "notif", "dry run export", "cloud", "s3 bucket lifecycle"} {
		terms := tokens(q)
		ranked := make([]scored, len(entries))
		for i, e := range entries {
			ranked[i] = scored{e, referenceScore(e, terms)}
		}
		sort.SliceStable(ranked, func(i, j int) bool {
			if ranked[i].score != ranked[j].score {
				return ranked[i].score > ranked[j].score
			}
			return ranked[i].e.Name < ranked[j].e.Name
		})
		var want []string
		for _, c := range ranked[:20] {
			if c.score > 0 {
				want = append(want, c.e.Name)
			}
		}
		require.NotEmpty(t, want, q)
		in, _ := json.Marshal(map[string]any{"query": q, "max_results": 20})
		res := reg.Call(context.Background(), Invocation{}, SearchToolsName, in)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
		require.Equal(t, want, toolNames(out), q)
	}
}

// A provider that relists (reconnects) gets a fresh index; the same listing
// keeps the one it has.
func TestSearchToolsReindexesARelistedSource(t *testing.T) {
	t.Parallel()
	h := func(context.Context, Invocation, json.RawMessage) (any, error) { return "ok", nil }
	src := &benchSource{name: "deploys", tools: []Tool{{Name: "mcp__deploys__rollback", Description: "Roll back a release.", Handler: h}}}
	reg := NewRegistry()
	require.NoError(t, reg.AddProvider(src))
	search := func(q string) []string {
		res := reg.Call(context.Background(), Invocation{}, SearchToolsName, json.RawMessage(`{"query":"`+q+`"}`))
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
		return toolNames(out)
	}
	require.Equal(t, []string{"mcp__deploys__rollback"}, search("rollback"))
	first := reg.listed["mcp:deploys"].index
	require.Equal(t, []string{"mcp__deploys__rollback"}, search("release"))
	require.Same(t, first, reg.listed["mcp:deploys"].index, "the same listing is not indexed again")

	src.tools = []Tool{{Name: "mcp__deploys__promote", Description: "Promote a canary.", Handler: h}}
	require.Equal(t, []string{"mcp__deploys__promote"}, search("canary"))
	require.Empty(t, search("rollback"))

	// Static registration after a search is found by the next one.
	reg.AddSource("runbooks", "runbooks")
	require.NoError(t, reg.Register(Tool{Name: "runbooks__open", Source: "runbooks", Description: "Open a runbook.", Handler: h}))
	require.Equal(t, []string{"runbooks__open"}, search("runbook"))
	require.NoError(t, reg.Register(Tool{Name: "runbooks__close", Source: "runbooks", Description: "Close a runbook.", Handler: h}))
	require.ElementsMatch(t, []string{"runbooks__open", "runbooks__close"}, search("runbook"))
}

// relister hands out one of two listings, switching on demand, as an MCP
// server that reconnects does.
type relister struct {
	mu    sync.Mutex
	lists [2][]Tool
	n     int
}

func (r *relister) SourceName() string { return "mcp:flaky" }
func (r *relister) Summary() string    { return "a server that reconnects" }
func (r *relister) Tools(context.Context) ([]Tool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists[r.n%2], nil
}
func (r *relister) relist() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
}

func TestSearchToolsWhileSourcesRelistAndRegister(t *testing.T) {
	t.Parallel()
	h := func(context.Context, Invocation, json.RawMessage) (any, error) { return "ok", nil }
	p := &relister{lists: [2][]Tool{
		{{Name: "mcp__flaky__alpha", Description: "First listing.", Handler: h}},
		{{Name: "mcp__flaky__beta", Description: "Second listing.", Handler: h}},
	}}
	reg := NewRegistry()
	require.NoError(t, reg.AddProvider(p))
	reg.AddSource("notes", "notes")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				switch w {
				case 0:
					p.relist()
				case 1:
					assert.NoError(t, reg.Register(Tool{Name: fmt.Sprintf("notes__n%d", i), Source: "notes", Description: "A listing note.", Handler: h}))
				case 2:
					_, err := Describe(context.Background(), reg, "")
					assert.NoError(t, err)
				default:
					res := reg.Call(context.Background(), Invocation{}, SearchToolsName, json.RawMessage(`{"query":"listing","max_results":20}`))
					assert.False(t, res.IsError, res.Content)
				}
			}
		})
	}
	wg.Wait() // goroutines report with assert: FailNow belongs to the test's own goroutine
	res := reg.Call(context.Background(), Invocation{}, SearchToolsName, json.RawMessage(`{"query":"listing","max_results":20}`))
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
	names := toolNames(out)
	require.Len(t, names, 20)
	require.Contains(t, names, "mcp__flaky__alpha", "50 relists end on the first listing")
	require.NotContains(t, names, "mcp__flaky__beta")
}
