package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/tools/mcp"
)

// PromptOverhead is what tool definitions cost each model call with five
// MCP servers of 30 tools beside memory's tools: with the deferred catalog
// (what the registry gives a model) and with every tool native.
type PromptOverhead struct {
	Tools            int
	Deferred, Native int // bytes per call: tool specs as JSON, and the prompt text about tools
}

// wireSpec is a tool definition as providers receive it.
type wireSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func toolsetBytes(ts tools.Toolset) (int, error) {
	n := len(ts.Prompt)
	for _, s := range ts.Specs {
		b, err := json.Marshal(wireSpec{s.Name, s.Description, s.InputSchema})
		if err != nil {
			return 0, err
		}
		n += len(b)
	}
	return n, nil
}

// MeasurePromptOverhead builds both toolsets from the same tools.
func MeasurePromptOverhead(store *memory.Store) (PromptOverhead, error) {
	var res PromptOverhead
	deferred := tools.NewRegistry()
	if err := store.Register(deferred); err != nil {
		return res, err
	}
	native := tools.NewRegistry()
	all := store.Tools()
	for _, srv := range mcpServers {
		src := mcpSource(srv.name, srv.nouns)
		if err := deferred.AddProvider(src); err != nil {
			return res, err
		}
		all = append(all, src.tools...)
	}
	for _, t := range all {
		t.Exposure = tools.Direct
		if err := native.Register(t); err != nil {
			return res, fmt.Errorf("native %s: %w", t.Name, err)
		}
	}
	res.Tools = len(all)
	var err error
	if res.Deferred, err = toolsetBytes(deferred.ForModel()); err != nil {
		return res, err
	}
	if res.Native, err = toolsetBytes(native.ForModel()); err != nil {
		return res, err
	}
	if got := len(native.ForModel().Specs); got != len(all) {
		return res, fmt.Errorf("native toolset has %d tools, want %d", got, len(all))
	}
	return res, nil
}

var mcpServers = []struct {
	name  string
	nouns []string
}{
	{"github", []string{"issue", "pull_request", "repository", "branch", "release", "workflow_run"}},
	{"jira", []string{"issue", "sprint", "board", "epic", "worklog", "comment"}},
	{"sentry", []string{"error_event", "issue", "project", "release", "alert_rule", "replay"}},
	{"datadog", []string{"monitor", "dashboard", "metric", "log_query", "incident", "slo"}},
	{"notion", []string{"page", "database", "block", "comment", "user", "template"}},
}

var mcpVerbs = []struct{ verb, phrase string }{
	{"list", "List %s items visible to the connected account, newest first, with cursor paging. Use filters to narrow large results."},
	{"get", "Get one %s by its id, with every field the API returns, including timestamps and owners."},
	{"create", "Create a new %s from the given fields. Required fields are validated by the server; the created object is returned."},
	{"update", "Update fields of an existing %s. Fields left out keep their value; the updated object is returned."},
	{"search", "Search %s records by free text and structured filters such as owner, status and date ranges."},
}

// mcpTools is an MCP-like source: it lists the same tools until it
// reconnects, as a connected MCP server does.
type mcpTools struct {
	name  string
	tools []tools.Tool
}

func (s *mcpTools) SourceName() string { return "mcp:" + s.name }
func (s *mcpTools) Summary() string    { return "tools of the " + s.name + " MCP server" }
func (s *mcpTools) Tools(context.Context) ([]tools.Tool, error) {
	return s.tools, nil
}

// mcpSource is a source of 30 tools with realistic descriptions and input
// schemas.
func mcpSource(name string, nouns []string) *mcpTools {
	src := &mcpTools{name: name}
	handler := func(context.Context, tools.Invocation, json.RawMessage) (any, error) { return nil, nil }
	for _, noun := range nouns {
		words := strings.ReplaceAll(noun, "_", " ")
		for _, v := range mcpVerbs {
			props := map[string]any{
				"id":     map[string]any{"type": "string", "description": "The " + words + " id."},
				"query":  map[string]any{"type": "string", "description": "Free text to match."},
				"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "Most results to return."},
				"cursor": map[string]any{"type": "string", "description": "Cursor from the previous page."},
				"fields": map[string]any{"type": "object", "description": "Fields of the " + words + " to set.", "additionalProperties": true},
			}
			schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false})
			src.tools = append(src.tools, tools.Tool{
				Name: mcp.ToolName(name, v.verb+"_"+noun), Source: src.SourceName(),
				Description: fmt.Sprintf(v.phrase, words) + " Requires the " + name + " scopes granted to this workspace.",
				InputSchema: schema, Exposure: tools.Deferred, Handler: handler,
			})
		}
	}
	return src
}
