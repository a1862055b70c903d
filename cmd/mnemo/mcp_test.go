package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/tools/mcp"
)

func mcpCall(t *testing.T, c *client.Client, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	text := res.Content[0].(mcpgo.TextContent).Text
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &out), text)
	return out, res.IsError
}

func initMCP(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx := context.Background()
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "1"}
	_, err := c.Initialize(ctx, init)
	require.NoError(t, err)
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// newMemoryMCPServer serves a test's store's memory tools as they are: the
// store's own options say how remember is judged.
func newMemoryMCPServer(store *memory.Store, identity mcp.IdentityFunc) (*server.MCPServer, error) {
	return newMCPServer(store, true, identity)
}

// withFakeModel is env with a model configured: the fake at model, through
// the real OpenAI SDK, as mnemo mcp's remember needs.
func withFakeModel(model *fakellm.Server, env map[string]string) map[string]string {
	out := maps.Clone(env)
	maps.Copy(out, map[string]string{
		"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": model.URL + "/v1",
		"MNEMO_LLM_API_KEY": "sk-test-0123456789abcdef", "MNEMO_MODEL": "gpt-test",
	})
	return out
}

// envLines is env as KEY=value lines, for a child process.
func envLines(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// judgedMCPStore is a store whose writes the model reviews, as buildCore
// builds it with a model: the scripted one, through the real OpenAI SDK.
func judgedMCPStore(t *testing.T, d *testdb.DB, model *fakellm.Server) *memory.Store {
	t.Helper()
	judge := memory.ModelJudge{Model: llm.NewOpenAI("sk-test-0123456789abcdef", model.URL+"/v1", "gpt-test")}
	return memory.New(d.DB, memory.Options{Reviewer: judge, Decider: judge})
}

func TestMemoryMCPServerInProcess(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	store := judgedMCPStore(t, d, fakellm.New(t, scripted.Memory()))
	inv := mcpIdentity{Team: "T0TEAM", User: "U0ALICE"}.invocation(time.Now())
	srv, err := newMemoryMCPServer(store, func(context.Context) (tools.Invocation, bool) { return inv, true })
	require.NoError(t, err)
	c, err := client.NewInProcessClient(srv)
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	require.ElementsMatch(t, []string{"remember", "recall", "list_memories", "forget"}, initMCP(t, c))

	out, isErr := mcpCall(t, c, "remember", map[string]any{"content": "I prefer dark mode in every editor"})
	require.False(t, isErr, out)
	require.Equal(t, true, out["result"].(map[string]any)["stored"])

	// The identity is the configured one; arguments can't name another.
	out, isErr = mcpCall(t, c, "remember", map[string]any{"content": "Prefers light mode", "user": "U0MALLORY"})
	require.True(t, isErr)
	require.NotEmpty(t, out["violations"])

	ms, err := store.ListAll(context.Background(), memory.Filter{SubjectUser: "U0ALICE"})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "Prefers dark mode in every editor", ms[0].Content)
	require.Equal(t, provenance.ByMCP, ms[0].WrittenBy)
	require.Equal(t, "U0ALICE", ms[0].ActorID)
	none, err := store.ListAll(context.Background(), memory.Filter{SubjectUser: "U0MALLORY", IncludeArchived: true})
	require.NoError(t, err)
	require.Empty(t, none)

	out, _ = mcpCall(t, c, "recall", map[string]any{"query": "dark mode"})
	found := out["result"].(map[string]any)["memories"].([]any)
	require.Len(t, found, 1)
	id := found[0].(map[string]any)["id"].(string)

	out, isErr = mcpCall(t, c, "forget", map[string]any{"memory": id})
	require.False(t, isErr, out)
	require.Equal(t, true, out["result"].(map[string]any)["forgotten"])
	out, _ = mcpCall(t, c, "list_memories", map[string]any{})
	require.Empty(t, out["result"].(map[string]any)["memories"])
}

// A client may run read-only tools without asking and must confirm
// destructive ones; the hints say which is which.
func TestMemoryMCPToolsCarryAnnotations(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	srv, err := newMemoryMCPServer(memory.New(d.DB, memory.Options{}), func(context.Context) (tools.Invocation, bool) { return tools.Invocation{}, false })
	require.NoError(t, err)
	c, err := client.NewInProcessClient(srv)
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	initMCP(t, c)
	list, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	type hints struct{ readOnly, destructive bool }
	got := map[string]hints{}
	for _, tl := range list.Tools {
		require.NotNil(t, tl.Annotations.ReadOnlyHint, tl.Name)
		h := hints{readOnly: *tl.Annotations.ReadOnlyHint}
		if !h.readOnly {
			require.NotNil(t, tl.Annotations.DestructiveHint, "a writing tool says whether it destroys: %s", tl.Name)
			h.destructive = *tl.Annotations.DestructiveHint
		}
		got[tl.Name] = h
	}
	require.Equal(t, map[string]hints{
		"remember":      {readOnly: false, destructive: false},
		"recall":        {readOnly: true},
		"list_memories": {readOnly: true},
		"forget":        {readOnly: false, destructive: true},
	}, got)
}

func TestMemoryMCPServerOverStdio(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	env := withFakeModel(fakellm.New(t, scripted.Memory()), map[string]string{"MNEMO_TEST_MAIN": "1", "DATABASE_URL": d.URL})
	c, err := client.NewStdioMCPClient(exe, envLines(env), "mcp", "--user", "U0BOB", "--team", "T0TEAM")
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.Contains(t, initMCP(t, c), "remember")
	out, isErr := mcpCall(t, c, "remember", map[string]any{"content": "Release notes go in #releases every Friday", "kind": "procedure"})
	require.False(t, isErr, out)
	require.Equal(t, true, out["result"].(map[string]any)["stored"], out)
	var actor string
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT actor_id FROM memories WHERE written_by = 'mcp'").Scan(&actor))
	require.Equal(t, "U0BOB", actor)
}

func TestMemoryMCPServerOverHTTPNeedsAToken(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	store := judgedMCPStore(t, d, fakellm.New(t, scripted.Memory()))
	srv, err := newMemoryMCPServer(store, mcp.IdentityFromContext)
	require.NoError(t, err)
	hs := httptest.NewServer(mcp.BearerHandler(srv, map[string]tools.Invocation{"tok-carol": mcpIdentity{Team: "T0TEAM", User: "U0CAROL"}.invocation(time.Now())}, zerolog.Nop()))
	t.Cleanup(hs.Close)

	anon, err := client.NewStreamableHttpClient(hs.URL)
	require.NoError(t, err)
	require.NoError(t, anon.Start(context.Background()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "anon", Version: "1"}
	_, err = anon.Initialize(context.Background(), init)
	require.Error(t, err, "no token, no session")
	anon.Close()

	c, err := client.NewStreamableHttpClient(hs.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-carol"}))
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	require.Contains(t, initMCP(t, c), "remember")
	out, _ := mcpCall(t, c, "remember", map[string]any{"content": "Prefers meetings after 10am"})
	require.Equal(t, true, out["result"].(map[string]any)["stored"], out)
	ms, err := store.ListAll(context.Background(), memory.Filter{SubjectUser: "U0CAROL"})
	require.NoError(t, err)
	require.Len(t, ms, 1)
}

// The identity and the tokens file are checked before the database is
// touched: with a database nobody listens on, a bad command line still
// gets its own error, and a good one reaches the database and fails there.
func TestMCPChecksItsCommandLineBeforeTheDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	noUser := write("no-user.json", `{"tok-secret-1": {"team": "T0TEAM"}}`)
	notJSON := write("not-json.json", `tok-secret-2: U0BOB`)
	empty := write("empty.json", `{}`)
	good := write("good.json", `{"tok-secret-3": {"team": "T0TEAM", "user": "U0BOB"}}`)
	env := map[string]string{"DATABASE_URL": closedPortURL(t)}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stdio without identity", []string{"mcp"}, 2, "mcp over stdio needs --user U… and --team T…, the identity every call acts for: the user is not set; the team is not set"},
		{"stdio without team", []string{"mcp", "--user", "U0BOB"}, 2, "the team is not set"},
		{"stdio with a name for a user", []string{"mcp", "--user", "bob", "--team", "T0TEAM"}, 2, `user "bob" is not a Slack user id (U… or W…)`},
		{"stdio with tokens", []string{"mcp", "--user", "U0BOB", "--team", "T0TEAM", "--tokens", good}, 2, "--tokens is for --http"},
		{"http without tokens", []string{"mcp", "--http", "127.0.0.1:0"}, 2, "mcp over HTTP needs --tokens FILE"},
		{"http with a user", []string{"mcp", "--http", "127.0.0.1:0", "--user", "U0BOB", "--tokens", good}, 2, "--user and --team are for stdio"},
		{"missing tokens file", []string{"mcp", "--http", "127.0.0.1:0", "--tokens", filepath.Join(dir, "nope.json")}, 1, "tokens file: open "},
		{"tokens file not JSON", []string{"mcp", "--http", "127.0.0.1:0", "--tokens", notJSON}, 1, "tokens file " + notJSON + ": invalid character"},
		{"tokens file without tokens", []string{"mcp", "--http", "127.0.0.1:0", "--tokens", empty}, 1, "maps no token"},
		{"token without user", []string{"mcp", "--http", "127.0.0.1:0", "--tokens", noUser}, 1, `the entry for user "": the user is not set`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, _, errs := mnemoRun(t, env, c.args...)
			require.Equal(t, c.code, code, errs)
			require.Contains(t, errs, c.want)
			require.NotContains(t, errs, "connect", "the database was not touched")
			require.NotContains(t, errs, "tok-secret", "tokens are never echoed")
		})
	}
	// Positive control: past a good command line, the same database fails.
	for _, args := range [][]string{
		{"mcp", "--user", "U0BOB", "--team", "T0TEAM"},
		{"mcp", "--http", "127.0.0.1:0", "--tokens", good},
	} {
		code, _, errs := mnemoRun(t, env, args...)
		require.Equal(t, 1, code)
		require.Contains(t, errs, "connect")
		require.NotContains(t, errs, "tok-secret")
	}
}

// A client that writes its calls and closes stdin gets every answer: mnemo
// mcp ends at EOF only once the calls in flight are answered.
func TestMCPOverStdioAnswersInFlightCallsBeforeExitingAtEOF(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const calls = 6
	for i := range calls {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"remember","arguments":{"content":"Deploy step %d runs before the smoke test","kind":"procedure"}}}`+"\n", i+2, i+1)
	}
	env := withFakeModel(fakellm.New(t, scripted.Memory()), map[string]string{"DATABASE_URL": d.URL})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"mcp", "--user", "U0BOB", "--team", "T0TEAM"},
		func(k string) string { return env[k] }, strings.NewReader(in.String()), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	answered := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     float64 `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
			Error any `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		require.Nil(t, m.Error, line)
		require.False(t, m.Result.IsError, line)
		answered[m.ID] = true
	}
	for id := 1; id <= calls+1; id++ {
		require.True(t, answered[float64(id)], "request %d was answered:\n%s", id, out.String())
	}
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM memories WHERE written_by = 'mcp'").Scan(&n))
	require.Equal(t, calls, n)
}

// mnemo mcp over HTTP ends on SIGTERM even while a call waits on the
// database: the shutdown drains calls in flight for mcpDrain, then
// cancels them. A forget waiting on a row lock used to hold its request,
// and with it the pool's close, until the lock went.
func TestMCPOverHTTPEndsWhileACallWaitsOnALock(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.json")
	require.NoError(t, os.WriteFile(tokens, []byte(`{"tok-bob": {"team": "T0TEAM", "user": "U0BOB"}}`), 0o600))
	env := withFakeModel(fakellm.New(t, scripted.Memory()), map[string]string{"DATABASE_URL": d.URL})
	logs := &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"mcp", "--http", "127.0.0.1:0", "--tokens", tokens},
			func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, logs)
	}()
	var addr string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(logs.String(), "\n") {
			var l struct {
				Message, Addr string
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Message == "mcp serving on HTTP" {
				addr = l.Addr
				return true
			}
		}
		return false
	}, 15*time.Second, 20*time.Millisecond)
	c, err := client.NewStreamableHttpClient("http://"+addr, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-bob"}))
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	initMCP(t, c)
	out, _ := mcpCall(t, c, "remember", map[string]any{"content": "Prefers meetings after 10am"})
	require.Equal(t, true, out["result"].(map[string]any)["stored"], out)
	var id string
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT id::text FROM memories WHERE subject_id = 'U0BOB'").Scan(&id))

	// A transaction holds the memory's row, as a long write would.
	bg := context.Background()
	tx, err := d.Pool.Begin(bg)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(bg) }()
	_, err = tx.Exec(bg, "SELECT 1 FROM memories WHERE id = $1 FOR UPDATE", id)
	require.NoError(t, err)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "forget", map[string]any{"memory": id}
		_, _ = c.CallTool(context.Background(), req)
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		err := d.Pool.QueryRow(bg, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting)
		return err == nil && waiting
	}, 10*time.Second, 10*time.Millisecond, "the forget waits on the row")

	cancel()
	select {
	case code := <-done:
		require.Equal(t, 0, code, logs.String())
	case <-time.After(mcpDrain + 5*time.Second):
		t.Fatal("mnemo mcp did not end while a call waited on a lock")
	}
}
