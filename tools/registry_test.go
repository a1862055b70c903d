package tools

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/provenance"
)

type bundle struct {
	reg   *Registry
	calls map[string]json.RawMessage
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{reg: NewRegistry(), calls: map[string]json.RawMessage{}}
	handler := func(name string) Handler {
		return func(_ context.Context, inv Invocation, args json.RawMessage) (any, error) {
			b.calls[name] = args
			return map[string]any{"ran": name, "actor": inv.Actor.ID}, nil
		}
	}
	b.reg.AddSource("memory", "long-term memory: remember, recall, list and forget")
	b.reg.AddSource("tickets", "the issue tracker: create and look up tickets")
	for _, tl := range []Tool{
		{Name: "memory__remember", Source: "memory", Description: "Remember something for the long term.\n\nMore detail that is not in the summary.", InputSchema: json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","minLength":1},"kind":{"type":"string","enum":["preference","procedure","knowledge"]}},"required":["content"],"additionalProperties":false}`)},
		{Name: "memory__recall", Source: "memory", Description: "Search long-term memory.", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
		{Name: "memory__list", Source: "memory", Description: "List memories.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "memory__forget", Source: "memory", Description: "Forget a memory.", InputSchema: json.RawMessage(`{"type":"object","properties":{"memory":{"type":"string"}},"required":["memory"]}`)},
		{Name: "tickets__create", Source: "tickets", Description: "Create a ticket with a title and a priority.", InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer","minimum":1,"maximum":4}},"required":["title"]}`)},
		{Name: "tickets__lookup", Source: "tickets", Description: "Look up a ticket by its key.", InputSchema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)},
		{Name: "clock", Source: "builtin", Exposure: Direct, Description: "Tell the current time.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	} {
		tl.Handler = handler(tl.Name)
		require.NoError(t, b.reg.Register(tl))
	}
	return b
}

var inv = Invocation{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "U1"}}

func (b *bundle) call(t *testing.T, name string, args string) map[string]any {
	t.Helper()
	res := b.reg.Call(context.Background(), inv, name, json.RawMessage(args))
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Content), &out), res.Content)
	return out
}

func toolNames(out map[string]any) []string {
	var names []string
	for _, x := range out["tools"].([]any) {
		names = append(names, x.(map[string]any)["tool_name"].(string))
	}
	return names
}

func TestRegisterRejectsConflictsAndBadSchemas(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := func(context.Context, Invocation, json.RawMessage) (any, error) { return nil, nil }
	require.ErrorContains(t, b.reg.Register(Tool{Name: "memory__remember", Source: "memory", Handler: h}), "registered twice")
	require.ErrorContains(t, b.reg.Register(Tool{Name: "searchTools", Source: "memory", Handler: h}), "reserved")
	require.ErrorContains(t, b.reg.Register(Tool{Name: "bad name!", Source: "memory", Handler: h}), "must match")
	require.ErrorContains(t, b.reg.Register(Tool{Name: "x", Source: "memory", Handler: h, InputSchema: json.RawMessage(`{"type":"string"}`)}), "type object")
	require.ErrorContains(t, b.reg.Register(Tool{Name: "y", Source: "memory", Handler: h, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`)}), "schema")
	require.ErrorContains(t, b.reg.Register(Tool{Name: "z", Source: "nowhere", Handler: h}), "unknown source")
}

func TestForModelOffersCatalogAndDirectTools(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ts := b.reg.ForModel()
	var names []string
	for _, s := range ts.Specs {
		names = append(names, s.Name)
	}
	require.ElementsMatch(t, []string{"clock", SearchToolsName, ExecuteToolName}, names, "deferred tools are not native tools")
	var search string
	for _, s := range ts.Specs {
		if s.Name == SearchToolsName {
			search = s.Description
		}
	}
	require.Contains(t, search, "Available sources: memory — long-term memory: remember, recall, list and forget; tickets — the issue tracker")
	require.NotContains(t, search, "memory__remember", "sources, not every tool")

	// No deferred tools: no catalog.
	only := NewRegistry()
	require.NoError(t, only.Register(Tool{Name: "clock", Source: "builtin", Exposure: Direct, Handler: func(context.Context, Invocation, json.RawMessage) (any, error) { return 1, nil }}))
	require.Len(t, only.ForModel().Specs, 1)
}

func TestSearchTools(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("a source lists its tools", func(t *testing.T) {
		out := b.call(t, SearchToolsName, `{"source":"memory","max_results":20}`)
		require.Equal(t, true, out["ok"])
		require.ElementsMatch(t, []string{"memory__forget", "memory__list", "memory__recall", "memory__remember"}, toolNames(out))
		for _, x := range out["tools"].([]any) {
			require.NotContains(t, x.(map[string]any), "source", "no per-tool source within one source")
			require.Contains(t, x.(map[string]any), "input_schema")
		}
		require.Len(t, out["sources"], 1)
	})
	t.Run("no source searches everything, ranked", func(t *testing.T) {
		out := b.call(t, SearchToolsName, `{"query":"remember"}`)
		names := toolNames(out)
		require.Equal(t, "memory__remember", names[0])
		require.Equal(t, "memory", out["tools"].([]any)[0].(map[string]any)["source"], "cross-source results name their source")
		out = b.call(t, SearchToolsName, `{"query":"ticket priority"}`)
		require.Equal(t, "tickets__create", toolNames(out)[0], "schema property names count")
	})
	t.Run("query within a source filters to it", func(t *testing.T) {
		out := b.call(t, SearchToolsName, `{"query":"create","source":"memory"}`)
		require.NotContains(t, toolNames(out), "tickets__create")
		// The control: the same query without the source finds it, so its
		// absence above is the source's filter, not a query that misses.
		out = b.call(t, SearchToolsName, `{"query":"create"}`)
		require.Contains(t, toolNames(out), "tickets__create")
	})
	t.Run("empty query without source is a bounded sample", func(t *testing.T) {
		out := b.call(t, SearchToolsName, `{}`)
		require.LessOrEqual(t, len(out["tools"].([]any)), 3)
		require.Len(t, out["sources"], 2)
		out = b.call(t, SearchToolsName, `{"query":null,"source":null,"max_results":20}`)
		require.LessOrEqual(t, len(out["tools"].([]any)), 3, "never the whole catalog")
	})
	t.Run("unknown source is repairable, not an error", func(t *testing.T) {
		res := b.reg.Call(context.Background(), inv, SearchToolsName, json.RawMessage(`{"source":"memories"}`))
		require.False(t, res.IsError)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
		require.Equal(t, true, out["ok"])
		require.Empty(t, out["tools"])
		require.Len(t, out["sources"], 2)
		require.Contains(t, out["note"], "unknown source")
	})
	t.Run("bad arguments come back as violations", func(t *testing.T) {
		out := b.call(t, SearchToolsName, `{"max_results":99}`)
		require.Equal(t, false, out["ok"])
		require.NotEmpty(t, out["violations"])
	})
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Remember something for the long term.", Summarize("Remember   something\nfor the long term.\n\nSecond paragraph."))
	long := strings.Repeat("word ", 100)
	s := Summarize(long)
	require.LessOrEqual(t, len([]rune(s)), DescriptionLimit)
	require.True(t, strings.HasSuffix(s, "…"))
	// The full description still feeds the search.
	b := setup(t)
	out := b.call(t, SearchToolsName, `{"query":"detail summary"}`)
	require.Contains(t, toolNames(out), "memory__remember")
}

func TestExecuteTool(t *testing.T) {
	t.Parallel()
	b := setup(t)
	out := b.call(t, ExecuteToolName, `{"tool_name":"memory__remember","arguments":{"content":"Prefers tabs"}}`)
	require.Equal(t, true, out["ok"])
	require.Equal(t, "U1", out["result"].(map[string]any)["actor"])
	require.JSONEq(t, `{"content":"Prefers tabs"}`, string(b.calls["memory__remember"]))

	for _, miss := range []string{"Memory__Remember", "memory-remember", "remember", "MEMORY.REMEMBER"} {
		out := b.call(t, ExecuteToolName, `{"tool_name":"`+miss+`","arguments":{"content":"x"}}`)
		require.Equal(t, false, out["ok"], miss)
		require.Equal(t, "memory__remember", out["did_you_mean"], miss)
		require.Contains(t, out["error"], `"memory__remember"`)
	}
	out = b.call(t, ExecuteToolName, `{"tool_name":"launch_rockets"}`)
	require.Equal(t, false, out["ok"])
	require.Contains(t, out["hint"], SearchToolsName)

	res := b.reg.Call(context.Background(), inv, ExecuteToolName, json.RawMessage(`{"tool_name":"memory__remember","arguments":{"content":"","kind":"mood","extra":1}}`))
	require.True(t, res.IsError)
	var bad struct {
		OK         bool                `json:"ok"`
		Violations []map[string]string `json:"violations"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Content), &bad))
	require.False(t, bad.OK)
	joined := res.Content
	require.GreaterOrEqual(t, len(bad.Violations), 2, joined)
	require.Contains(t, joined, "/kind")
	require.Contains(t, joined, "/content")

	res = b.reg.Call(context.Background(), inv, ExecuteToolName, json.RawMessage(`{"tool_name":`))
	require.True(t, res.IsError, "malformed JSON is a repairable result, not a crash")
}

// Every tool named anywhere the model reads (system prompt, tool
// descriptions) is callable under exactly that name on the main path.
func TestEveryNamedToolIsCallable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ts := b.reg.ForModel()
	texts := []string{ts.Prompt}
	for _, s := range ts.Specs {
		texts = append(texts, s.Description)
	}
	catalog := b.call(t, SearchToolsName, `{"source":"memory","max_results":20}`)
	for _, x := range catalog["tools"].([]any) {
		texts = append(texts, x.(map[string]any)["description"].(string))
	}
	ident := regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9]*(?:__[a-zA-Z0-9_]+|Tools?|Tool)\b`)
	seen := map[string]bool{}
	for _, text := range texts {
		for _, name := range ident.FindAllString(text, -1) {
			seen[name] = true
		}
	}
	require.Contains(t, seen, SearchToolsName)
	require.Contains(t, seen, ExecuteToolName)
	for name := range seen {
		res := b.reg.Call(context.Background(), inv, name, json.RawMessage(`{}`))
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
		msg, _ := out["error"].(string)
		require.NotContains(t, msg, "unknown tool", "named but not callable: %s", name)
	}
}

// Every registered tool is reachable: direct, or through searchTools then
// executeTool with the name the search returned.
func TestEveryToolIsReachable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	direct := map[string]bool{}
	for _, s := range b.reg.ForModel().Specs {
		direct[s.Name] = true
	}
	for _, name := range b.reg.sortedNames() {
		e := b.reg.tools[name]
		if e.Exposure == Direct {
			require.True(t, direct[name], name)
			continue
		}
		out := b.call(t, SearchToolsName, `{"source":"`+e.Source+`","max_results":20}`)
		require.Contains(t, toolNames(out), name)
	}
}
