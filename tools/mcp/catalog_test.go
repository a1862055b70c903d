package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// bundle is a registry with two sources and a direct tool, into which the
// tests add MCP servers.
type bundle struct {
	reg   *tools.Registry
	calls map[string]json.RawMessage
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{reg: tools.NewRegistry(), calls: map[string]json.RawMessage{}}
	handler := func(name string) tools.Handler {
		return func(_ context.Context, inv tools.Invocation, args json.RawMessage) (any, error) {
			b.calls[name] = args
			return map[string]any{"ran": name, "actor": inv.Actor.ID}, nil
		}
	}
	b.reg.AddSource("memory", "long-term memory: remember, recall, list and forget")
	b.reg.AddSource("tickets", "the issue tracker: create and look up tickets")
	for _, tl := range []tools.Tool{
		{Name: "memory__remember", Source: "memory", Description: "Remember something for the long term.\n\nMore detail that is not in the summary.", InputSchema: json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","minLength":1}},"required":["content"],"additionalProperties":false}`)},
		{Name: "memory__recall", Source: "memory", Description: "Search long-term memory.", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
		{Name: "memory__list", Source: "memory", Description: "List memories.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "memory__forget", Source: "memory", Description: "Forget a memory.", InputSchema: json.RawMessage(`{"type":"object","properties":{"memory":{"type":"string"}},"required":["memory"]}`)},
		{Name: "tickets__create", Source: "tickets", Description: "Create a ticket with a title.", InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)},
		{Name: "clock", Source: "builtin", Exposure: tools.Direct, Description: "Tell the current time.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	} {
		tl.Handler = handler(tl.Name)
		require.NoError(t, b.reg.Register(tl))
	}
	return b
}

var inv = tools.Invocation{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "U1"}}

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

// searchDescription is what the model is told the catalog holds.
func searchDescription(reg *tools.Registry) string {
	for _, s := range reg.ForModel().Specs {
		if s.Name == tools.SearchToolsName {
			return s.Description
		}
	}
	return ""
}

func noHandler(context.Context, tools.Invocation, json.RawMessage) (any, error) { return nil, nil }
