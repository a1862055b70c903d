package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// `mnemo tools list` says why a remote server is unavailable, naming its
// host and none of what its URL carries beyond it: a secret path segment
// (Zapier's form) and an API key in the query (Tavily's), the key filled
// in from the environment.
func TestToolsListKeepsServerURLSecretsOut(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there

	const secretPath, apiKey = "zapSECRETpath0123456789", "tvly-dev-SECRETkey0123456789"
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {
		"search": {"url": "http://`+addr+`/api/mcp/s/`+secretPath+`/mcp?tavilyApiKey=${TAVILY_API_KEY}"},
		"events": {"type": "sse", "url": "http://`+addr+`/sse/`+secretPath+`?tavilyApiKey=${TAVILY_API_KEY}"}
	}}`), 0o600))
	env := map[string]string{"MNEMO_MCP_CONFIG": path, "TAVILY_API_KEY": apiKey}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"tools", "list"}, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 1, code, "%s\n%s", stdout.String(), stderr.String())

	for _, out := range []string{stdout.String(), stderr.String()} {
		require.NotContains(t, out, secretPath)
		require.NotContains(t, out, apiKey)
		require.NotContains(t, out, "tavilyApiKey")
	}
	require.Contains(t, stdout.String(), "mcp:search — tools of the MCP server search\n  unavailable: ")
	require.Contains(t, stdout.String(), "mcp:events — tools of the MCP server events\n  unavailable: ")
	require.Equal(t, 2, strings.Count(stdout.String(), `"http://`+addr+`/…"`), "each reason still names the server's host\n%s", stdout.String())
	require.Contains(t, stderr.String(), "mcp server unavailable", "and the log says so too")
}
