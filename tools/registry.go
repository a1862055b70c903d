package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Exposure says how the model reaches a tool.
type Exposure int

const (
	// Deferred tools live in the catalog: found with searchTools, run with executeTool.
	Deferred Exposure = iota
	// Direct tools are native model tools.
	Direct
)

// Invocation is who runs a tool, where, and how writes are attributed. It
// comes from the live Slack event (or the configured identity of the local
// chat or MCP server), never from tool arguments.
type Invocation struct {
	Actor     provenance.Actor
	Place     provenance.Place
	MessageTS string // the ts of the message that asked
	// Said is the text of the message that asked, as the live event
	// carried it: a write's checks read the words that led to it.
	Said      string
	TurnID    int64
	WrittenBy provenance.WrittenBy // how writes are recorded
}

// Handler runs a tool. args have already been validated against the tool's
// schema.
type Handler func(ctx context.Context, inv Invocation, args json.RawMessage) (any, error)

// Tool is one registered tool.
type Tool struct {
	Name        string
	Source      string
	Description string
	InputSchema json.RawMessage
	Exposure    Exposure
	Handler     Handler
	// Writes marks a tool that writes memory, so passive learning can skip
	// a turn that already wrote.
	Writes bool
	// ReadOnly marks a tool that changes nothing; MCP clients see it as
	// readOnlyHint and may run it without asking.
	ReadOnly bool
	// Destructive marks a tool whose changes can't be undone (deleting,
	// forgetting); MCP clients see it as destructiveHint.
	Destructive bool
	// MCPName, when set, is the name the MCP server offers the tool under
	// (e.g. "remember"), instead of Name without its source prefix.
	MCPName string
}

// Provider is a source whose tools are found at run time (an MCP server).
type Provider interface {
	SourceName() string
	Summary() string
	// Tools lists the source's tools, connecting on first use. An error
	// marks the source unavailable, with the error as the reason. It
	// returns the same slice until the listing changes: the catalog
	// compiles and indexes each slice once, and a new slice again.
	Tools(ctx context.Context) ([]Tool, error)
}

// ToolNamePattern is what every model provider (Anthropic, OpenAI) accepts
// as a tool name.
var ToolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// The catalog's own tools.
const (
	SearchToolsName = "searchTools"
	ExecuteToolName = "executeTool"
)

// entry is a tool prepared once, when it is listed: its schema compiled and
// its words split for search.
type entry struct {
	Tool
	schema *jsonschema.Schema
	search searchData
}

type searchData struct {
	lowerName string
	nameWords []string
	descWords []string // of the whole description, not just the summary
	params    []string // words of the schema's property names
	summary   string
}

// Registry holds every tool. The zero value is not usable; call NewRegistry.
type Registry struct {
	mu        sync.RWMutex
	tools     map[string]*entry
	summaries map[string]string // source → one-line summary
	providers []Provider
	static    map[string]*sourceIndex // source → its deferred static tools
	stale     map[string]bool         // sources registered into since their index was built
	listed    map[string]listedTools  // provider source → its latest listing
}

// listedTools is a provider's listing prepared for search. A provider hands
// back the same slice until it reconnects, so the slice's identity says
// whether the listing changed.
type listedTools struct {
	first *Tool
	n     int
	index *sourceIndex
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		tools: map[string]*entry{}, summaries: map[string]string{},
		static: map[string]*sourceIndex{}, stale: map[string]bool{}, listed: map[string]listedTools{},
	}
}

// AddSource names a source of static tools with a one-line summary.
func (r *Registry) AddSource(name, summary string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.summaries[name] = summary
}

// AddProvider adds a source whose tools are listed lazily.
func (r *Registry) AddProvider(p Provider) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.summaries[p.SourceName()]; dup {
		return fmt.Errorf("tools: source %q registered twice", p.SourceName())
	}
	r.summaries[p.SourceName()] = p.Summary()
	r.providers = append(r.providers, p)
	return nil
}

// Register adds a tool. A duplicate or reserved name, a name a model
// provider can't carry, a deferred tool of a source never added, a schema
// that does not compile or a tool marked both read-only and writing is an
// error: start-up fails rather than the model finding out at call time.
func (r *Registry) Register(t Tool) error {
	e, err := compile(t)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.Name == SearchToolsName || t.Name == ExecuteToolName {
		return fmt.Errorf("tools: %q is reserved for the catalog", t.Name)
	}
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tools: tool %q registered twice", t.Name)
	}
	if _, ok := r.summaries[t.Source]; !ok && t.Exposure == Deferred {
		return fmt.Errorf("tools: tool %q names unknown source %q; call AddSource first", t.Name, t.Source)
	}
	r.tools[t.Name] = e
	if t.Exposure == Deferred {
		r.stale[t.Source] = true
	}
	return nil
}

func compile(t Tool) (*entry, error) {
	if !ToolNamePattern.MatchString(t.Name) {
		return nil, fmt.Errorf("tools: name %q must match %s", t.Name, ToolNamePattern)
	}
	if t.Handler == nil {
		return nil, fmt.Errorf("tools: tool %q has no handler", t.Name)
	}
	if t.Source == "" {
		return nil, fmt.Errorf("tools: tool %q has no source", t.Name)
	}
	if t.MCPName != "" && !ToolNamePattern.MatchString(t.MCPName) {
		return nil, fmt.Errorf("tools: tool %q: MCP name %q must match %s", t.Name, t.MCPName, ToolNamePattern)
	}
	if t.ReadOnly && (t.Destructive || t.Writes) {
		return nil, fmt.Errorf("tools: tool %q is marked read-only and also as writing or destructive", t.Name)
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.InputSchema))
	if err != nil {
		return nil, fmt.Errorf("tools: tool %q schema: %w", t.Name, err)
	}
	if m, ok := doc.(map[string]any); !ok || m["type"] != "object" {
		return nil, fmt.Errorf("tools: tool %q schema must have type object", t.Name)
	}
	c := jsonschema.NewCompiler()
	url := "mem://tools/" + t.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tools: tool %q schema: %w", t.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tools: tool %q schema: %w", t.Name, err)
	}
	return &entry{Tool: t, schema: sch, search: searchData{
		lowerName: strings.ToLower(t.Name),
		nameWords: tokens(t.Name),
		descWords: tokens(t.Description),
		params:    paramWords(doc),
		summary:   Summarize(t.Description),
	}}, nil
}

// paramWords are the words of a schema's top-level property names.
func paramWords(doc any) []string {
	m, _ := doc.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var out []string
	for k := range props {
		out = append(out, tokens(k)...)
	}
	return out
}

// Toolset is what one model run is given: the native tools and the part of
// the system prompt that speaks of them. Both come from the registry.
type Toolset struct {
	Specs  []llm.ToolSpec
	Prompt string
}

// ForModel is the one way tools reach a model: whatever runs a model with
// tools (Slack turns, the local chat) gets them from here.
func (r *Registry) ForModel() Toolset {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var ts Toolset
	var direct []string
	hasDeferred := len(r.providers) > 0
	for _, name := range r.sortedNames() {
		e := r.tools[name]
		if e.Exposure == Direct {
			ts.Specs = append(ts.Specs, llm.ToolSpec{Name: e.Name, Description: e.Description, InputSchema: e.InputSchema})
			direct = append(direct, e.Name)
		} else {
			hasDeferred = true
		}
	}
	if hasDeferred {
		ts.Specs = append(ts.Specs,
			llm.ToolSpec{Name: SearchToolsName, Description: r.searchDescription(), InputSchema: searchSchema},
			llm.ToolSpec{Name: ExecuteToolName, Description: executeDescription, InputSchema: executeSchema},
		)
	}
	var b strings.Builder
	if hasDeferred {
		fmt.Fprintf(&b, "More tools are in a catalog grouped by source. To use one, call %s (with a source to list its tools, or a query), then call %s with the exact tool_name it returns and the arguments its input schema asks for. Never say a tool is unavailable before searching the catalog.\n", SearchToolsName, ExecuteToolName)
		b.WriteString("Sources:\n")
		for _, s := range r.sortedSources() {
			fmt.Fprintf(&b, "- %s: %s\n", s, r.summaries[s])
		}
	}
	if len(direct) > 0 {
		fmt.Fprintf(&b, "Direct tools: %s.\n", strings.Join(direct, ", "))
	}
	ts.Prompt = b.String()
	return ts
}

// sortedNames lists every registered tool by name; the caller holds r.mu.
func (r *Registry) sortedNames() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sortedSources lists every source by name; the caller holds r.mu.
func (r *Registry) sortedSources() []string {
	var out []string
	for s := range r.summaries {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (r *Registry) searchDescription() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search the deferred tool catalog. Deferred tools are grouped by source. Call %s with a source to see its tools, then %s with the exact tool_name returned. Available sources:", SearchToolsName, ExecuteToolName)
	for i, s := range r.sortedSources() {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s — %s", s, r.summaries[s])
	}
	b.WriteString(".")
	return b.String()
}

const executeDescription = "Run a deferred tool found with searchTools. tool_name must be exactly the tool_name searchTools returned; arguments must match that tool's input_schema. Invalid arguments come back as violations you can correct."

var searchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": ["string", "null"], "description": "Words to match against tool names, sources, descriptions and parameters."},
    "source": {"type": ["string", "null"], "description": "Only tools of this source, e.g. memory."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5}
  },
  "additionalProperties": false
}`)

var executeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "tool_name": {"type": "string", "description": "Exact tool_name from searchTools."},
    "arguments": {"type": "object", "description": "Arguments for the tool, matching its input_schema."}
  },
  "required": ["tool_name"],
  "additionalProperties": false
}`)

var (
	searchEntry  = mustCompile(Tool{Name: SearchToolsName, Source: "catalog", InputSchema: searchSchema, Handler: noHandler})
	executeEntry = mustCompile(Tool{Name: ExecuteToolName, Source: "catalog", InputSchema: executeSchema, Handler: noHandler})
)

func noHandler(context.Context, Invocation, json.RawMessage) (any, error) { return nil, nil }

func mustCompile(t Tool) *entry {
	e, err := compile(t)
	if err != nil {
		panic(err)
	}
	return e
}
