package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Result is a tool's answer as the model will see it.
type Result struct {
	// Content is the JSON text handed back to the model.
	Content string
	IsError bool
	// Tool is the tool that actually ran (the deferred tool behind
	// executeTool), empty when none ran.
	Tool   string
	Writes bool
}

// MaxResultBytes bounds a tool result handed to the model.
const MaxResultBytes = 16 << 10

// Call runs the tool the model named with its raw input. Every failure the
// model can repair (unknown name, bad arguments, a handler error) comes back
// as a structured result, never as a Go error.
func (r *Registry) Call(ctx context.Context, inv Invocation, name string, input json.RawMessage) Result {
	switch name {
	case SearchToolsName:
		if res, bad := validate(searchEntry, input); bad {
			return res
		}
		var args struct {
			Query      *string `json:"query"`
			Source     *string `json:"source"`
			MaxResults *int    `json:"max_results"`
		}
		_ = json.Unmarshal(input, &args)
		n := 5
		if args.MaxResults != nil {
			n = *args.MaxResults
		}
		return jsonResult(r.search(ctx, deref(args.Query), deref(args.Source), n), false, "")
	case ExecuteToolName:
		if res, bad := validate(executeEntry, input); bad {
			return res
		}
		var args struct {
			ToolName  string          `json:"tool_name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(input, &args)
		return r.run(ctx, inv, args.ToolName, args.Arguments, false)
	}
	return r.run(ctx, inv, name, input, true)
}

func (r *Registry) run(ctx context.Context, inv Invocation, name string, args json.RawMessage, direct bool) Result {
	e := r.lookup(ctx, name)
	if e == nil {
		out := map[string]any{"ok": false, "error": fmt.Sprintf("unknown tool %q", name)}
		if guess := r.closest(ctx, name); guess != "" {
			out["error"] = fmt.Sprintf("unknown tool %q; did you mean %q? Use the exact tool_name.", name, guess)
			out["did_you_mean"] = guess
		} else if r.hasDeferred() {
			out["hint"] = "call " + SearchToolsName + " to find tool names"
		} else {
			out["hint"] = "the tools you have are listed in your tool list"
		}
		return jsonResult(out, true, "")
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if res, bad := validate(e, args); bad {
		res.Tool = e.Name
		return res
	}
	value, err := e.Handler(ctx, inv, args)
	if err != nil {
		return jsonResult(map[string]any{"ok": false, "tool_name": e.Name, "error": err.Error()}, true, e.Name)
	}
	res := jsonResult(map[string]any{"ok": true, "tool_name": e.Name, "result": value}, false, e.Name)
	res.Writes = e.Writes
	return res
}

// validate checks input against the tool's schema; on failure it returns the
// violations as a result the model can act on.
func validate(e *entry, input json.RawMessage) (Result, bool) {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return jsonResult(map[string]any{"ok": false, "tool_name": e.Name, "error": "arguments are not valid JSON: " + err.Error()}, true, ""), true
	}
	err = e.schema.Validate(inst)
	if err == nil {
		return Result{}, false
	}
	var ve *jsonschema.ValidationError
	var violations []map[string]string
	if errors.As(err, &ve) {
		for _, u := range ve.BasicOutput().Errors {
			if u.Error == nil {
				continue
			}
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			violations = append(violations, map[string]string{"at": loc, "problem": u.Error.String()})
		}
	}
	if len(violations) == 0 {
		violations = append(violations, map[string]string{"at": "/", "problem": err.Error()})
	}
	return jsonResult(map[string]any{
		"ok": false, "tool_name": e.Name,
		"error":        "arguments do not match the input schema; fix them and call again",
		"violations":   violations,
		"input_schema": json.RawMessage(e.InputSchema),
	}, true, ""), true
}

func jsonResult(v any, isErr bool, tool string) Result {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ok": false, "error": "tool result could not be encoded: " + err.Error()})
		isErr = true
	}
	if len(b) > MaxResultBytes {
		b, _ = json.Marshal(map[string]any{"ok": !isErr, "tool_name": tool, "truncated": true, "partial": string(b[:MaxResultBytes])})
	}
	return Result{Content: string(b), IsError: isErr, Tool: tool}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// sourceState is one catalog source as a search sees it: its tools, or why
// they can't be listed.
type sourceState struct {
	name, summary string
	index         *sourceIndex // nil when the source has no tools
	err           error        // why a provider's tools could not be listed
}

func (st *sourceState) unavailable() string {
	if st.err == nil {
		return ""
	}
	return st.err.Error()
}

func (st *sourceState) size() int {
	if st.index == nil {
		return 0
	}
	return len(st.index.tools)
}

// snapshot gathers every catalog source, sorted by name, asking providers
// for their tools. only, when set, limits provider connections to that
// source; the others are listed without tools.
func (r *Registry) snapshot(ctx context.Context, only string) []*sourceState {
	return r.gather(ctx, only, false)
}

// gather is snapshot, asking the providers one after another or, when
// concurrent, all at once: a listing of every server then waits for the
// slowest connection rather than their sum. Searches ask in turn, since
// connected providers answer at once and goroutines would cost more than
// they save.
func (r *Registry) gather(ctx context.Context, only string, concurrent bool) []*sourceState {
	r.refreshStatic()
	r.mu.RLock()
	names := r.sortedSources()
	states := make([]*sourceState, len(names))
	bySource := make(map[string]*sourceState, len(names))
	for i, s := range names {
		states[i] = &sourceState{name: s, summary: r.summaries[s], index: r.static[s]}
		bySource[s] = states[i]
	}
	providers := append([]Provider(nil), r.providers...)
	r.mu.RUnlock()
	var wg sync.WaitGroup
	for _, p := range providers {
		st := bySource[p.SourceName()]
		if only != "" && only != p.SourceName() {
			continue
		}
		ask := func() {
			list, err := p.Tools(ctx)
			if err != nil {
				st.err = err
				return
			}
			st.index = r.indexFor(p.SourceName(), list)
		}
		if concurrent {
			wg.Go(ask)
		} else {
			ask()
		}
	}
	wg.Wait()
	return states
}

// refreshStatic rebuilds the index of every source registered into since
// its last search, so registering N tools costs one build, not N.
func (r *Registry) refreshStatic() {
	r.mu.RLock()
	stale := len(r.stale) > 0
	r.mu.RUnlock()
	if !stale {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	bySource := map[string][]*entry{}
	for _, e := range r.tools {
		if e.Exposure == Deferred && r.stale[e.Source] {
			bySource[e.Source] = append(bySource[e.Source], e)
		}
	}
	for s := range r.stale {
		r.static[s] = newSourceIndex(bySource[s])
	}
	clear(r.stale)
}

// indexFor compiles and indexes a provider's listing once; later calls with
// the same slice get the same index. Tools whose name or schema is unusable
// are left out.
func (r *Registry) indexFor(source string, list []Tool) *sourceIndex {
	if len(list) == 0 {
		return nil
	}
	r.mu.RLock()
	c, ok := r.listed[source]
	r.mu.RUnlock()
	if ok && c.first == &list[0] && c.n == len(list) {
		return c.index
	}
	// Compiling hundreds of schemas takes a while: do it outside the lock.
	var entries []*entry
	for _, t := range list {
		t.Source = source
		if e, err := compile(t); err == nil {
			entries = append(entries, e)
		}
	}
	ix := newSourceIndex(entries)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listed[source] = listedTools{first: &list[0], n: len(list), index: ix}
	return ix
}

// lookup finds a tool by its exact name, static or from a provider.
func (r *Registry) lookup(ctx context.Context, name string) *entry {
	r.mu.RLock()
	e := r.tools[name]
	r.mu.RUnlock()
	if e != nil {
		return e
	}
	for _, st := range r.snapshot(ctx, providerFor(name)) {
		if st.index != nil {
			if e := st.index.byName[name]; e != nil {
				return e
			}
		}
	}
	return nil
}

// providerFor names the MCP source a tool name belongs to, so a lookup
// connects only to that server.
func providerFor(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if i := strings.Index(rest, "__"); i > 0 {
			return "mcp:" + rest[:i]
		}
	}
	return "\x00none"
}

// closest finds the tool a near-miss name meant: the same name but for case
// and separators, one ending in the other (a name without its source
// prefix), or one within two typos.
func (r *Registry) closest(ctx context.Context, name string) string {
	want := fold(name)
	var all []string
	r.mu.RLock()
	for n := range r.tools {
		all = append(all, n)
	}
	r.mu.RUnlock()
	for _, st := range r.snapshot(ctx, "") {
		if st.index != nil {
			for _, e := range st.index.tools {
				all = append(all, e.Name)
			}
		}
	}
	all = append(all, SearchToolsName, ExecuteToolName)
	sort.Strings(all)
	for _, n := range all {
		if fold(n) == want {
			return n
		}
	}
	for _, n := range all {
		f := fold(n)
		if len(want) >= 4 && (strings.HasSuffix(f, want) || strings.HasSuffix(want, f)) {
			return n
		}
	}
	for _, n := range all {
		if len(want) >= 4 && editDistance(fold(n), want) <= 2 {
			return n
		}
	}
	return ""
}

// hasDeferred says whether the catalog tools are offered at all.
func (r *Registry) hasDeferred() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.providers) > 0 {
		return true
	}
	for _, e := range r.tools {
		if e.Exposure == Deferred {
			return true
		}
	}
	return false
}

// editDistance is the Levenshtein distance, for typos in tool names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// fold lowercases a name and drops separators.
func fold(s string) string {
	var b strings.Builder
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}
