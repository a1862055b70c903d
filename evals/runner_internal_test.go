package evals

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db/evalcheck"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// A "nothing stored" assertion without a scope finds a memory of any scope
// in its thread, where one naming a scope misses it; it holds when the
// thread has none; and a scope or subject type it does not know fails it
// rather than hiding a memory.
func TestNothingStoredChecksEveryScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const channel, ts = "C0ANYSCOPE", "1730000000.000100"
	s := Scenario{
		Events: []Event{{ID: "e", User: "alice", Channel: channel, TS: ts, Text: "hi"}},
		Assert: []Assertion{
			{Thread: "e", Count: 0},
			{Thread: "e", Scope: "personal", SubjectType: "user", Subject: "alice", Count: 0},
		},
	}
	r := &scenarioRun{s: s, checks: evalcheck.New(d.DB), scopes: knownScopes, subjectTypes: knownSubjectTypes}

	// Positive control first: the thread's message is not logged yet.
	fails := r.checkAssertions(ctx)
	require.Len(t, fails, 2)
	require.Contains(t, fails[0], "vacuous")

	key, msgTS, err := threads.KeyFor(fakeslack.TeamID, channel, ts, "")
	require.NoError(t, err)
	_, err = d.DB.Sessions().Append(ctx, key, threads.Message{TS: msgTS, Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: UserID("alice")}, Text: "hi"})
	require.NoError(t, err)
	require.Empty(t, r.checkAssertions(ctx), "nothing stored, and the thread is logged")

	store := memory.New(d.DB, memory.Options{})
	out, err := store.Remember(ctx, memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: UserID("alice")},
		Place: provenance.Place{Team: fakeslack.TeamID, Channel: channel, SourceKey: key.SourceKey(), Visibility: provenance.Public},
		Scope: memory.ScopeChannel, Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off",
		WrittenBy: provenance.ByPassive, MessageTS: ts,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status)
	fails = r.checkAssertions(ctx)
	require.Len(t, fails, 1, "only the any-scope assertion sees a channel memory")
	require.Contains(t, fails[0], "assertion 0: want 0 active any-scope memories")
	require.Contains(t, fails[0], "channel/channel: Deploys go out on Tuesdays")

	// A content pattern narrows what "nothing" means.
	r.s.Assert = []Assertion{{Thread: "e", Count: 0, Content: "(?i)conversion"}, {Thread: "e", Count: 1, Content: "Tuesdays", Scope: "channel", SubjectType: "channel"}}
	require.Empty(t, r.checkAssertions(ctx))

	// A subject type the check does not know is a failure, not a pass.
	r.s.Assert = []Assertion{{Thread: "e", Count: 0, Content: "(?i)conversion"}}
	r.subjectTypes = []string{"user", "workspace"}
	fails = r.checkAssertions(ctx)
	require.Len(t, fails, 1)
	require.Contains(t, fails[0], "holds 1 memories, but only 0 have a scope and subject type the check knows")
}

// A misspelt scope, subject type or subject in a "nothing stored"
// assertion selects no memory: it must not load, since the runner would
// pass it with Alice's personal memory stored. Spelt right, the runner
// fails it.
func TestMisspeltNothingStoredNeverPasses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const channel, ts = "C0MISSPELT", "1730000000.000100"
	scenario := func(assertion string) string {
		return "name: n\nevents:\n  - {id: e, user: alice, channel: " + channel + ", mention: true, text: hi, ts: \"" + ts + "\"}\nrubric: {pass: [x]}\nassert:\n  - " + assertion + "\n"
	}
	key, msgTS, err := threads.KeyFor(fakeslack.TeamID, channel, ts, "")
	require.NoError(t, err)
	alice := provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: UserID("alice")}
	_, err = d.DB.Sessions().Append(ctx, key, threads.Message{TS: msgTS, Role: threads.RoleUser, Actor: alice, Text: "hi"})
	require.NoError(t, err)
	out, err := memory.New(d.DB, memory.Options{}).Remember(ctx, memory.WriteRequest{
		Actor: alice,
		Place: provenance.Place{Team: fakeslack.TeamID, Channel: channel, SourceKey: key.SourceKey(), Visibility: provenance.Public},
		Scope: memory.ScopePersonal, Kind: memory.KindPreference, Content: "Prefers answers in bullet points",
		WrittenBy: provenance.ByPassive, MessageTS: ts,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)

	// The control: spelt right, the assertion sees the memory and fails.
	ss, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(scenario("{thread: e, scope: personal, subject_type: user, subject: alice, count: 0}"))}})
	require.NoError(t, err)
	r := &scenarioRun{s: ss[0], checks: evalcheck.New(d.DB), scopes: knownScopes, subjectTypes: knownSubjectTypes}
	fails := r.checkAssertions(ctx)
	require.Len(t, fails, 1)
	require.Contains(t, fails[0], "bullet points")

	for _, a := range []string{
		"{thread: e, scope: personl, subject_type: user, subject: alice, count: 0}",
		"{thread: e, scope: personal, subject_type: usr, subject: alice, count: 0}",
		"{thread: e, scope: personal, subject_type: user, subject: alcie, count: 0}",
		"{thread: e, scope: personl, count: 0}",
	} {
		ss, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(scenario(a))}})
		if err != nil {
			continue // rejected before it could pass vacuously
		}
		r := &scenarioRun{s: ss[0], checks: evalcheck.New(d.DB), scopes: knownScopes, subjectTypes: knownSubjectTypes}
		assert.NotEmpty(t, r.checkAssertions(ctx), "%s loaded and passed with Alice's personal memory stored", a)
	}
}

func call(id, name string, in any) llm.ToolCall {
	b, _ := json.Marshal(in)
	return llm.ToolCall{ID: id, Name: name, Input: b}
}

func result(id string, v any) llm.ToolResult {
	b, _ := json.Marshal(v)
	return llm.ToolResult{CallID: id, Content: string(b)}
}

// A memory write counts as discovered only when a searchTools call before
// it had the memory source, or listed the tool.
func TestWritesNeedDiscoveryFirst(t *testing.T) {
	t.Parallel()
	remember := map[string]any{"tool_name": memory.ToolRemember, "arguments": map[string]any{"content": "x"}}
	listing := map[string]any{"tools": []map[string]any{{"tool_name": memory.ToolRemember}}}
	tests := []struct {
		name string
		msgs []llm.Message
		want []Write
	}{
		{"searched the memory source", []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("s", "searchTools", map[string]any{"source": "memory"})}},
			{Role: llm.RoleUser, ToolResults: []llm.ToolResult{result("s", listing)}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("x", "executeTool", remember)}},
		}, []Write{{CallID: "x", Tool: memory.ToolRemember, Discovered: true}}},
		{"a query that listed the tool", []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("s", "searchTools", map[string]any{"query": "remember"})}},
			{Role: llm.RoleUser, ToolResults: []llm.ToolResult{result("s", listing)}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("x", "executeTool", remember)}},
		}, []Write{{CallID: "x", Tool: memory.ToolRemember, Discovered: true}}},
		{"a search that found something else", []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("s", "searchTools", map[string]any{"source": "github"})}},
			{Role: llm.RoleUser, ToolResults: []llm.ToolResult{result("s", map[string]any{"tools": []any{}})}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("x", "executeTool", remember)}},
		}, []Write{{CallID: "x", Tool: memory.ToolRemember}}},
		{"guessed the name", []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("x", "executeTool", remember)}},
			{Role: llm.RoleUser, ToolResults: []llm.ToolResult{result("x", map[string]any{"ok": true})}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("s", "searchTools", map[string]any{"source": "memory"})}},
		}, []Write{{CallID: "x", Tool: memory.ToolRemember}}},
		{"a read is no write", []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("x", "executeTool", map[string]any{"tool_name": memory.ToolList})}},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The same call, seen again in a later request, counts once.
			reqs := []*fakellm.Request{{Messages: tt.msgs}, {Messages: tt.msgs}}
			require.Equal(t, tt.want, Writes(reqs, memory.Source))
		})
	}
}

func TestDiscoveryFromTheLiveLog(t *testing.T) {
	t.Parallel()
	ok := []logLine{{Event: toolCall, Tool: "searchTools"}, {Event: toolCall, Tool: "executeTool", Ran: memory.ToolRemember}, {Event: turnAnswered}}
	require.Empty(t, discoveryFromLog(ok))
	// The search of an earlier turn does not count for this one.
	stale := append(ok, logLine{Event: toolCall, Tool: "executeTool", Ran: memory.ToolForget})
	require.Len(t, discoveryFromLog(stale), 1)
	require.Contains(t, discoveryFromLog(nil)[0], "no memory write")
}

func TestThreadDependence(t *testing.T) {
	t.Parallel()
	ev := func(id, ts, thread string) Event {
		return Event{ID: id, User: "alice", Channel: "C0DEP", TS: ts, ThreadTS: thread, Text: "hi"}
	}
	tests := []struct {
		name string
		s    Scenario
		want bool
	}{
		{"one top-level message", Scenario{Events: []Event{ev("a", "1730000000.000100", "")}}, false},
		{"two threads", Scenario{Events: []Event{ev("a", "1730000000.000100", ""), ev("b", "1730000001.000100", "")}, Assert: []Assertion{{Thread: "a"}}}, false},
		{"a reply", Scenario{Events: []Event{ev("a", "1730000000.000100", ""), ev("b", "1730000001.000100", "1730000000.000100")}}, true},
		{"a seeded thread replied to", Scenario{Seed: []Seed{{ID: "s", Channel: "C0DEP", TS: "1720000000.000100"}}, Events: []Event{ev("b", "1730000001.000100", "1720000000.000100")}}, true},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.s.ThreadDependent(), tt.name)
	}
	ss, err := Load(Builtin())
	require.NoError(t, err)
	n := 0
	for _, s := range ss {
		if s.ThreadDependent() {
			n++
		}
	}
	require.GreaterOrEqual(t, n, 10, "the mutation check needs thread-dependent scenarios to bite on")
}

func TestDiscoveryIsOnForMemoryWrites(t *testing.T) {
	t.Parallel()
	require.Equal(t, "memory", (&Scenario{ExpectTools: []string{memory.ToolRemember}}).Discovery())
	require.Equal(t, "memory", (&Scenario{ExpectTools: []string{memory.ToolList, memory.ToolForget}}).Discovery())
	require.Equal(t, "", (&Scenario{ExpectTools: []string{memory.ToolRecall}}).Discovery())
	require.Equal(t, "", (&Scenario{ExpectTools: []string{memory.ToolRemember}, ExpectDiscovery: "none"}).Discovery())
	ss, err := Load(Builtin())
	require.NoError(t, err)
	writes := 0
	for _, s := range ss {
		if s.Discovery() != "" {
			writes++
			require.True(t, strings.Contains(strings.Join(s.ExpectTools, " "), "memory__"), s.Name)
		}
	}
	require.GreaterOrEqual(t, writes, 10, "every explicit write scenario checks discovery")
}
