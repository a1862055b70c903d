package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// servedTools are memory-like tools as the lead registers them, plus one
// without an MCP name.
func servedTools(calls *[]tools.Invocation) []tools.Tool {
	h := func(_ context.Context, inv tools.Invocation, args json.RawMessage) (any, error) {
		*calls = append(*calls, inv)
		var a map[string]any
		_ = json.Unmarshal(args, &a)
		return map[string]any{"echo": a}, nil
	}
	obj := json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}},"additionalProperties":false}`)
	return []tools.Tool{
		{Name: "memory__remember", Source: "memory", MCPName: "remember", Writes: true, Description: "Remember.", InputSchema: obj, Handler: h},
		{Name: "memory__recall", Source: "memory", MCPName: "recall", ReadOnly: true, Description: "Recall.", InputSchema: obj, Handler: h},
		{Name: "memory__list", Source: "memory", MCPName: "list_memories", ReadOnly: true, Description: "List.", Handler: h},
		{Name: "memory__forget", Source: "memory", MCPName: "forget", Writes: true, Destructive: true, Description: "Forget.", Handler: h},
		{Name: "tickets__create", Source: "tickets", Description: "Create a ticket.", Handler: h},
	}
}

func startInProcess(t *testing.T, list []tools.Tool, identity IdentityFunc) *client.Client {
	t.Helper()
	srv, err := NewServer("test", "1", list, identity)
	require.NoError(t, err)
	c, err := client.NewInProcessClient(srv)
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "1"}
	_, err = c.Initialize(context.Background(), init)
	require.NoError(t, err)
	return c
}

func callMCP(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	require.NoError(t, err)
	return res
}

// structuredMatchesText checks the structured content is the text's JSON.
func structuredMatchesText(t *testing.T, res *mcpgo.CallToolResult) map[string]any {
	t.Helper()
	require.NotNil(t, res.StructuredContent)
	text := res.Content[0].(mcpgo.TextContent).Text
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.JSONEq(t, text, string(b))
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestMCPServerNamesAndAnnotations(t *testing.T) {
	t.Parallel()
	var calls []tools.Invocation
	c := startInProcess(t, servedTools(&calls), func(context.Context) (tools.Invocation, bool) { return inv, true })
	list, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	got := map[string]mcpgo.ToolAnnotation{}
	for _, tl := range list.Tools {
		got[tl.Name] = tl.Annotations
	}
	require.ElementsMatch(t, []string{"remember", "recall", "list_memories", "forget", "create"}, keys(got))
	ptr := func(b bool) *bool { return &b }
	for name, want := range map[string]struct{ readOnly, destructive *bool }{
		"recall":        {ptr(true), nil},
		"list_memories": {ptr(true), nil},
		"remember":      {ptr(false), ptr(false)},
		"forget":        {ptr(false), ptr(true)},
		"create":        {ptr(false), ptr(false)},
	} {
		require.Equal(t, want.readOnly, got[name].ReadOnlyHint, name)
		require.Equal(t, want.destructive, got[name].DestructiveHint, name)
	}

	_, err = NewServer("test", "1", []tools.Tool{
		{Name: "memory__list", Source: "memory", MCPName: "list", Handler: noHandler},
		{Name: "tickets__list", Source: "tickets", Handler: noHandler},
	}, IdentityFromContext)
	require.ErrorContains(t, err, `both be served over MCP as "list"`)
	_, err = NewServer("test", "1", []tools.Tool{{Name: "memory__wipe", Source: "memory", ReadOnly: true, Destructive: true, Handler: noHandler}}, IdentityFromContext)
	require.ErrorContains(t, err, "read-only")
	_, err = NewServer("test", "1", []tools.Tool{{Name: "memory__x", Source: "memory", MCPName: "bad name", Handler: noHandler}}, IdentityFromContext)
	require.ErrorContains(t, err, "MCP name")
}

func TestMCPServerResultsAreStructured(t *testing.T) {
	t.Parallel()
	var calls []tools.Invocation
	c := startInProcess(t, servedTools(&calls), func(context.Context) (tools.Invocation, bool) { return inv, true })

	res := callMCP(t, c, "recall", map[string]any{"content": "tabs"})
	require.False(t, res.IsError)
	out := structuredMatchesText(t, res)
	require.Equal(t, true, out["ok"])
	require.Equal(t, map[string]any{"content": "tabs"}, out["result"].(map[string]any)["echo"])
	require.Len(t, calls, 1)
	require.Equal(t, "U1", calls[0].Actor.ID)

	res = callMCP(t, c, "remember", map[string]any{"content": 5, "extra": true})
	require.True(t, res.IsError)
	out = structuredMatchesText(t, res)
	require.Equal(t, false, out["ok"])
	require.NotEmpty(t, out["violations"])
	require.Len(t, calls, 1, "invalid arguments never reach the handler")
}

func TestMCPStructuredContentKeepsNumbersExact(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(structured(`{"ok":true,"result":{"id":9007199254740993}}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true,"result":{"id":9007199254740993}}`, string(b))
	require.Contains(t, string(b), "9007199254740993")
	require.Equal(t, false, structured(`"just text"`)["ok"])
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestMCPBearerHandlerHealthAndRefusals(t *testing.T) {
	t.Parallel()
	var calls []tools.Invocation
	srv, err := NewServer("test", "1", servedTools(&calls), IdentityFromContext)
	require.NoError(t, err)
	var logs bytes.Buffer
	carol := tools.Invocation{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "U0CAROL"}}
	hs := httptest.NewServer(BearerHandler(srv, map[string]tools.Invocation{"tok-carol-7f3a9": carol}, zerolog.New(&logs)))
	t.Cleanup(hs.Close)

	resp, err := http.Get(hs.URL + HealthPath)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "health needs no token")
	require.Equal(t, "ok\n", string(body))
	require.Empty(t, logs.String(), "a health check is not a refusal")

	for _, c := range []struct{ auth, reason string }{
		{"Bearer tok-mallory-91c2e", "unknown bearer token"},
		{"", "no bearer token"},
		{"Basic dXNlcjpwYXNz", "no bearer token"},
	} {
		logs.Reset()
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		require.NoError(t, err)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		var line map[string]any
		require.NoError(t, json.Unmarshal(logs.Bytes(), &line), logs.String())
		require.Equal(t, "mcp request refused", line["message"])
		require.Equal(t, c.reason, line["reason"])
		require.Equal(t, "/mcp", line["path"])
		require.NotContains(t, logs.String(), "tok-mallory-91c2e")
		require.NotContains(t, logs.String(), "dXNlcjpwYXNz")
	}

	// With the token: served, results structured over the wire, nothing logged.
	logs.Reset()
	c, err := client.NewStreamableHttpClient(hs.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-carol-7f3a9"}))
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "1"}
	_, err = c.Initialize(context.Background(), init)
	require.NoError(t, err)
	res := callMCP(t, c, "list_memories", map[string]any{})
	require.False(t, res.IsError)
	require.Equal(t, true, structuredMatchesText(t, res)["ok"])
	require.Len(t, calls, 1)
	require.Equal(t, "U0CAROL", calls[0].Actor.ID)
	require.NotContains(t, logs.String(), "tok-carol-7f3a9")
}

// A token holder's request body is read up to MaxBody: a larger one is
// refused, where it would have been read whole and parsed.
func TestMCPBearerHandlerBoundsTheBody(t *testing.T) {
	t.Parallel()
	var calls []tools.Invocation
	srv, err := NewServer("test", "1", servedTools(&calls), IdentityFromContext)
	require.NoError(t, err)
	carol := tools.Invocation{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "U0CAROL"}}
	hs := httptest.NewServer(BearerHandler(srv, map[string]tools.Invocation{"tok-carol-7f3a9": carol}, zerolog.Nop()))
	t.Cleanup(hs.Close)
	post := func(pad int) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},` +
			`"clientInfo":{"name":"test","version":"1"},"pad":"` + strings.Repeat("x", pad) + `"}}`
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer tok-carol-7f3a9")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, post(1000), "the control: a small request is served")
	require.NotEqual(t, http.StatusOK, post(MaxBody+1), "a body past MaxBody is refused")
}
