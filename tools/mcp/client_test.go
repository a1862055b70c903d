package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/tools"
)

// TestMain doubles as a real MCP server over stdio when the test binary is
// started with MNEMO_TEST_MCP_SERVER=1 (the weather server) or =env (a
// server that tells its environment), so the client tests can run it as a
// subprocess.
func TestMain(m *testing.M) {
	switch os.Getenv("MNEMO_TEST_MCP_SERVER") {
	case "1":
		if err := server.ServeStdio(weatherServer(os.Getenv("WEATHER_UNITS"))); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "env":
		if err := server.ServeStdio(environServer()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// weatherServer is a real MCP server with one tool.
func weatherServer(units string) *server.MCPServer {
	s := server.NewMCPServer("weather", "1.0.0")
	s.AddTool(mcpgo.NewTool("forecast", mcpgo.WithDescription("Forecast the weather for a city."),
		mcpgo.WithString("city", mcpgo.Required(), mcpgo.Description("City name"))),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			city, err := req.RequireString("city")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText("sunny in " + city + " (" + units + ")"), nil
		})
	return s
}

func writeMCPConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return p
}

func TestMCPServerOverStdioIsASource(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	path := writeMCPConfig(t, map[string]any{
		"weather": map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": map[string]string{"MNEMO_TEST_MCP_SERVER": "1", "WEATHER_UNITS": "metric"}},
		"broken":  map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")},
	})
	b := setup(t)
	closeAll, err := AddServers(b.reg, path, zerolog.Nop())
	require.NoError(t, err)
	t.Cleanup(closeAll)

	// The servers are summarized as sources before anything connects.
	require.Contains(t, searchDescription(b.reg), "mcp:weather — tools of the MCP server weather")

	out := b.call(t, tools.SearchToolsName, `{"source":"mcp:weather"}`)
	require.Equal(t, []string{"mcp__weather__forecast"}, toolNames(out))

	out = b.call(t, tools.ExecuteToolName, `{"tool_name":"mcp__weather__forecast","arguments":{"city":"Lisbon"}}`)
	require.Equal(t, true, out["ok"], out)
	require.Equal(t, "sunny in Lisbon (metric)", out["result"])

	out = b.call(t, tools.ExecuteToolName, `{"tool_name":"mcp__weather__forecast","arguments":{}}`)
	require.Equal(t, false, out["ok"], "the server's schema is enforced before the call")
	require.NotEmpty(t, out["violations"])

	// The broken server shows as unavailable with its reason; the rest serves.
	out = b.call(t, tools.SearchToolsName, `{"query":"forecast"}`)
	require.Equal(t, "mcp__weather__forecast", toolNames(out)[0])
	var broken map[string]any
	for _, s := range out["sources"].([]any) {
		if s.(map[string]any)["source"] == "mcp:broken" {
			broken = s.(map[string]any)
		}
	}
	require.NotNil(t, broken)
	require.Contains(t, broken["unavailable"], "unavailable")
	out = b.call(t, tools.ExecuteToolName, `{"tool_name":"memory__recall","arguments":{"query":"x"}}`)
	require.Equal(t, true, out["ok"])
}

func TestMCPReconnectsAfterFailure(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	src := NewSource("weather", ServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{"MNEMO_TEST_MCP_SERVER": "1"}}, zerolog.Nop())
	t.Cleanup(src.Close)
	list, err := src.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 1)
	src.Close() // the connection drops
	v, err := list[0].Handler(context.Background(), tools.Invocation{}, json.RawMessage(`{"city":"Oslo"}`))
	require.NoError(t, err, "reconnects on the next use")
	require.Contains(t, v, "Oslo")
}

func TestLoadMCPConfigRejectsBadEntries(t *testing.T) {
	t.Parallel()
	path := writeMCPConfig(t, map[string]any{"both": map[string]any{"command": "x", "url": "http://y"}, "bad name": map[string]any{"command": "x"}})
	_, err := LoadConfig(path)
	require.ErrorContains(t, err, "exactly one of command or url")
	require.ErrorContains(t, err, "bad name")
	require.ErrorContains(t, err, path)
}

func TestParseMCPConfigForms(t *testing.T) {
	t.Parallel()
	noEnv := func(string) (string, bool) { return "", false }
	for _, c := range []struct {
		name    string
		file    string
		servers map[string]string // name → transport
		skipped []string
		err     []string
	}{
		{name: "mcpServers, transport from command or url",
			file:    `{"mcpServers": {"local": {"command": "weather", "args": ["--stdio"]}, "remote": {"url": "https://mcp.example.com/mcp"}}}`,
			servers: map[string]string{"local": Stdio, "remote": HTTP}},
		{name: "servers, as editors write it, with types",
			file:    `{"servers": {"a": {"type": "stdio", "command": "x"}, "b": {"type": "http", "url": "http://h/mcp"}, "c": {"type": "streamable-http", "url": "https://h/mcp"}, "d": {"type": "sse", "url": "http://h/sse"}}, "inputs": []}`,
			servers: map[string]string{"a": Stdio, "b": HTTP, "c": HTTP, "d": SSE}},
		{name: "disabled servers are skipped unchecked",
			file:    `{"mcpServers": {"on": {"command": "x"}, "off": {"command": "${NOT_SET}", "url": "both", "disabled": true}}}`,
			servers: map[string]string{"on": Stdio}, skipped: []string{"off"}},
		{name: "every server disabled is an error",
			file: `{"mcpServers": {"a": {"command": "x", "disabled": true}, "b": {"url": "http://h", "disabled": true}}}`,
			err:  []string{"no usable server", "a, b"}},
		{name: "no servers is an error", file: `{"mcpServers": {}}`, err: []string{"no servers"}},
		{name: "another format is an error", file: `{"context_servers": {"a": {"command": "x"}}}`, err: []string{"no servers"}},
		{name: "both forms at once", file: `{"mcpServers": {"a": {"command": "x"}}, "servers": {"b": {"command": "y"}}}`, err: []string{"use one"}},
		{name: "type and fields disagree",
			file: `{"servers": {"s": {"type": "stdio", "url": "http://h"}, "h": {"type": "http", "command": "x"}, "e": {"type": "sse"}, "w": {"type": "websocket", "url": "ws://h"}, "u": {"url": "ftp://h"}}}`,
			err:  []string{`server "s" is stdio`, `server "h" is http`, `server "e" is sse`, `type "websocket"`, `server "u" is http`}},
		{name: "not JSON", file: `{"mcpServers":`, err: []string{"unexpected end"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ParseConfig([]byte(c.file), noEnv)
			if len(c.err) > 0 {
				for _, e := range c.err {
					require.ErrorContains(t, err, e)
				}
				return
			}
			require.NoError(t, err)
			got := map[string]string{}
			for n, s := range cfg.Servers {
				got[n] = s.Type
			}
			require.Equal(t, c.servers, got)
			require.Equal(t, c.skipped, cfg.Disabled)
		})
	}
}

func TestParseMCPConfigExpandsVariables(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GH_TOKEN": "ghp_secretvalue", "MCP_HOST": "mcp.example.com", "EMPTY": "", "BIN": "/opt/bin"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := ParseConfig([]byte(`{"mcpServers": {
		"gh": {"url": "https://${MCP_HOST}/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}", "X-Region": "${REGION:-eu}"}},
		"local": {"command": "${BIN}/weather", "args": ["--token=${env:GH_TOKEN}", "--empty=${EMPTY}", "--fallback=${EMPTY:-x}"], "env": {"TOKEN": "${GH_TOKEN}", "LITERAL": "$HOME and $${x"}}
	}}`), lookup)
	require.NoError(t, err)
	gh, local := cfg.Servers["gh"], cfg.Servers["local"]
	require.Equal(t, "https://mcp.example.com/mcp", gh.URL)
	require.Equal(t, map[string]string{"Authorization": "Bearer ghp_secretvalue", "X-Region": "eu"}, gh.Headers)
	require.Equal(t, "/opt/bin/weather", local.Command)
	require.Equal(t, []string{"--token=ghp_secretvalue", "--empty=", "--fallback=x"}, local.Args)
	require.Equal(t, map[string]string{"TOKEN": "ghp_secretvalue", "LITERAL": "$HOME and $${x"}, local.Env)

	for _, c := range []struct{ field, want string }{
		{`"url": "https://${NO_HOST}/mcp"`, `server "x": url: environment variable NO_HOST is not set`},
		{`"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${NO_TOKEN}"}`, `server "x": headers.Authorization: environment variable NO_TOKEN is not set`},
		{`"command": "w", "env": {"K": "${env:NO_KEY}"}`, `server "x": env.K: environment variable NO_KEY is not set`},
		{`"command": "w", "args": ["a", "${NO_ARG}"]`, `server "x": args[1]: environment variable NO_ARG is not set`},
		{`"command": "w", "args": ["${input:token}"]`, `${input:token} is not an environment variable reference`},
	} {
		_, err := ParseConfig([]byte(`{"mcpServers": {"x": {`+c.field+`}, "ok": {"command": "y", "env": {"T": "${GH_TOKEN}"}}}}`), lookup)
		require.ErrorContains(t, err, c.want)
		require.NotContains(t, err.Error(), "ghp_secretvalue", "errors name variables, never values")
	}
}

func TestAddMCPConfigLogsDisabledServers(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]byte(`{"mcpServers": {"on": {"command": "x"}, "paused": {"command": "y", "disabled": true}}}`), func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	var logs bytes.Buffer
	reg := tools.NewRegistry()
	closeAll, err := AddConfig(reg, cfg, zerolog.New(&logs))
	require.NoError(t, err)
	t.Cleanup(closeAll)
	require.Contains(t, logs.String(), `"server":"paused"`)
	require.Contains(t, logs.String(), "disabled")
	require.NotContains(t, logs.String(), `"server":"on"`)
	desc := searchDescription(reg)
	require.Contains(t, desc, "mcp:on")
	require.NotContains(t, desc, "mcp:paused")
}

// Remote servers, over streamable HTTP and over SSE, with a header the
// config fills from the environment.
func TestMCPServerOverHTTPAndSSEIsASource(t *testing.T) {
	t.Parallel()
	requireToken := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	streamable := httptest.NewServer(requireToken(server.NewStreamableHTTPServer(weatherServer("streamed"))))
	t.Cleanup(streamable.Close)
	sse := httptest.NewServer(requireToken(server.NewSSEServer(weatherServer("evented"))))
	t.Cleanup(sse.Close)
	env := map[string]string{"WEATHER_TOKEN": "s3cret", "STREAM_URL": streamable.URL, "SSE_URL": sse.URL}
	cfg, err := ParseConfig([]byte(`{"servers": {
		"streamed": {"type": "http", "url": "${STREAM_URL}/mcp", "headers": {"Authorization": "Bearer ${WEATHER_TOKEN}"}},
		"evented": {"type": "sse", "url": "${SSE_URL}/sse", "headers": {"Authorization": "Bearer ${WEATHER_TOKEN}"}},
		"refused": {"type": "http", "url": "${STREAM_URL}/mcp"}
	}}`), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	b := setup(t)
	closeAll, err := AddConfig(b.reg, cfg, zerolog.Nop())
	require.NoError(t, err)
	t.Cleanup(closeAll)

	for _, name := range []string{"streamed", "evented"} {
		out := b.call(t, tools.ExecuteToolName, `{"tool_name":"mcp__`+name+`__forecast","arguments":{"city":"Porto"}}`)
		require.Equal(t, true, out["ok"], out)
		require.Equal(t, "sunny in Porto ("+name+")", out["result"])
	}
	out := b.call(t, tools.SearchToolsName, `{"source":"mcp:refused"}`)
	require.Empty(t, out["tools"])
	require.Contains(t, out["sources"].([]any)[0].(map[string]any)["unavailable"], "unavailable", "no header, no tools")
}

func TestDescribeListsEverySourceAndWhyOneFailed(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	missing := filepath.Join(t.TempDir(), "no-such-server")
	cfg, err := ParseConfig([]byte(`{"mcpServers": {
		"weather": {"command": "`+exe+`", "args": ["-test.run=^$"], "env": {"MNEMO_TEST_MCP_SERVER": "1"}},
		"broken": {"command": "`+missing+`"}
	}}`), func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	b := setup(t)
	closeAll, err := AddConfig(b.reg, cfg, zerolog.Nop())
	require.NoError(t, err)
	t.Cleanup(closeAll)

	all, err := tools.Describe(context.Background(), b.reg, "")
	require.NoError(t, err)
	var sources []string
	by := map[string]tools.SourceStatus{}
	for _, s := range all {
		sources = append(sources, s.Source)
		by[s.Source] = s
	}
	require.Equal(t, []string{"builtin", "mcp:broken", "mcp:weather", "memory", "tickets"}, sources)
	require.Equal(t, []tools.ToolSummary{{Name: "mcp__weather__forecast", Summary: "Forecast the weather for a city."}}, by["mcp:weather"].Tools)
	require.NoError(t, by["mcp:weather"].Err)
	require.Empty(t, by["mcp:broken"].Tools)
	require.ErrorContains(t, by["mcp:broken"].Err, "no-such-server", "the reason names what failed")
	require.Equal(t, "long-term memory: remember, recall, list and forget", by["memory"].Summary)
	require.Equal(t, tools.ToolSummary{Name: "memory__remember", Summary: "Remember something for the long term."}, by["memory"].Tools[3])
	require.Equal(t, []tools.ToolSummary{{Name: "clock", Summary: "Tell the current time.", Direct: true}}, by["builtin"].Tools)

	one, err := tools.Describe(context.Background(), b.reg, "mcp:weather")
	require.NoError(t, err)
	require.Len(t, one, 1)
	require.Equal(t, by["mcp:weather"], one[0])

	_, err = tools.Describe(context.Background(), b.reg, "mcp:wether")
	require.ErrorContains(t, err, `unknown source "mcp:wether"`)
	require.ErrorContains(t, err, "mcp:weather")
}
