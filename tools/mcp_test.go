package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// TestMain doubles as a real MCP server over stdio when the test binary is
// started with MNEMO_TEST_MCP_SERVER=1, so the client test can run it as a
// subprocess.
func TestMain(m *testing.M) {
	if os.Getenv("MNEMO_TEST_MCP_SERVER") == "1" {
		s := server.NewMCPServer("weather", "1.0.0")
		s.AddTool(mcp.NewTool("forecast", mcp.WithDescription("Forecast the weather for a city."),
			mcp.WithString("city", mcp.Required(), mcp.Description("City name"))),
			func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				city, err := req.RequireString("city")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return mcp.NewToolResultText("sunny in " + city + " (" + os.Getenv("WEATHER_UNITS") + ")"), nil
			})
		if err := server.ServeStdio(s); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
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
	closeAll, err := AddMCPServers(b.reg, path, zerolog.Nop())
	require.NoError(t, err)
	t.Cleanup(closeAll)

	// The servers are summarized as sources before anything connects.
	require.Contains(t, b.reg.searchDescription(), "mcp:weather — tools of the MCP server weather")

	out := b.call(t, SearchToolsName, `{"source":"mcp:weather"}`)
	require.Equal(t, []string{"mcp__weather__forecast"}, toolNames(out))

	out = b.call(t, ExecuteToolName, `{"tool_name":"mcp__weather__forecast","arguments":{"city":"Lisbon"}}`)
	require.Equal(t, true, out["ok"], out)
	require.Equal(t, "sunny in Lisbon (metric)", out["result"])

	out = b.call(t, ExecuteToolName, `{"tool_name":"mcp__weather__forecast","arguments":{}}`)
	require.Equal(t, false, out["ok"], "the server's schema is enforced before the call")
	require.NotEmpty(t, out["violations"])

	// The broken server shows as unavailable with its reason; the rest serves.
	out = b.call(t, SearchToolsName, `{"query":"forecast"}`)
	require.Equal(t, "mcp__weather__forecast", toolNames(out)[0])
	var broken map[string]any
	for _, s := range out["sources"].([]any) {
		if s.(map[string]any)["source"] == "mcp:broken" {
			broken = s.(map[string]any)
		}
	}
	require.NotNil(t, broken)
	require.Contains(t, broken["unavailable"], "unavailable")
	out = b.call(t, ExecuteToolName, `{"tool_name":"memory__recall","arguments":{"query":"x"}}`)
	require.Equal(t, true, out["ok"])
}

func TestMCPReconnectsAfterFailure(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	src := NewMCPSource("weather", MCPServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{"MNEMO_TEST_MCP_SERVER": "1"}}, zerolog.Nop())
	t.Cleanup(src.Close)
	list, err := src.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 1)
	src.Close() // the connection drops
	v, err := list[0].Handler(context.Background(), Invocation{}, json.RawMessage(`{"city":"Oslo"}`))
	require.NoError(t, err, "reconnects on the next use")
	require.Contains(t, v, "Oslo")
}

func TestLoadMCPConfigRejectsBadEntries(t *testing.T) {
	t.Parallel()
	path := writeMCPConfig(t, map[string]any{"both": map[string]any{"command": "x", "url": "http://y"}, "bad name": map[string]any{"command": "x"}})
	_, err := LoadMCPConfig(path)
	require.ErrorContains(t, err, "exactly one of command or url")
	require.ErrorContains(t, err, "bad name")
}
