package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// TestToolsListConnectsToEveryServer lists a config whose servers are a
// real stdio MCP server (mnemo's own `mcp` command over a real database),
// a server that can't start, and a disabled one.
func TestToolsListConnectsToEveryServer(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	missing := filepath.Join(t.TempDir(), "no-such-mcp-server")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"mnemo": map[string]any{
			"command": exe, "args": []string{"mcp", "--user", "${MCP_USER}", "--team", "T0TEAM"},
			"env": map[string]string{"MNEMO_TEST_MAIN": "1", "DATABASE_URL": "${TEST_DATABASE_URL}", "MNEMO_LLM_PROVIDER": ""},
		},
		"broken": map[string]any{"command": missing},
		"paused": map[string]any{"command": missing, "disabled": true},
	}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, cfg, 0o600))
	env := map[string]string{"MNEMO_MCP_CONFIG": path, "MCP_USER": "U0ALICE", "TEST_DATABASE_URL": d.URL}
	mnemo := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	code, out, errs := mnemo("tools", "list")
	require.Equal(t, 1, code, "a failed server makes the listing fail, after it is printed\n%s\n%s", out, errs)
	require.Contains(t, out, "memory — long-term memory: remember, recall, list and forget\n", "mnemo's own tools, as serve builds the catalog")
	for _, name := range []string{"memory__remember", "memory__recall", "memory__list", "memory__forget"} {
		require.Contains(t, out, "  "+name+" ")
	}
	require.Contains(t, out, "mcp:mnemo — tools of the MCP server mnemo\n")
	for _, name := range []string{"mcp__mnemo__remember", "mcp__mnemo__recall", "mcp__mnemo__forget"} {
		require.Contains(t, out, "  "+name+" ", "the working server's tools are listed")
	}
	require.Contains(t, out, "mcp:broken — tools of the MCP server broken\n  unavailable: ")
	require.Contains(t, out, "no-such-mcp-server", "with the reason it failed")
	require.NotContains(t, out, "paused")
	require.Contains(t, errs, `"server":"paused"`, "the disabled server is logged")
	require.Contains(t, errs, "1 of 3 sources unavailable")

	code, out, errs = mnemo("tools", "list", "--source", "mcp:mnemo")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "mcp__mnemo__remember")
	require.NotContains(t, out, "mcp:broken")

	code, _, errs = mnemo("tools", "list", "--source", "mcp:nemo")
	require.Equal(t, 1, code)
	require.Contains(t, errs, `unknown source "mcp:nemo"; sources: mcp:broken, mcp:mnemo, memory`)
}

func TestToolsListConfigProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unset := filepath.Join(dir, "unset.json")
	require.NoError(t, os.WriteFile(unset, []byte(`{"servers": {"gh": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}}}}`), 0o600))
	for _, c := range []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no config", map[string]string{}, []string{"tools", "list"}, 0, "MNEMO_MCP_CONFIG is not set", ""},
		{"unset variable", map[string]string{"MNEMO_MCP_CONFIG": unset}, []string{"tools", "list"}, 1, "", `server "gh": headers.Authorization: environment variable GH_TOKEN is not set`},
		{"no subcommand", map[string]string{}, []string{"tools"}, 2, "", "usage: mnemo tools list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, func(k string) string { return c.env[k] }, strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, c.code, code, stderr.String())
			require.Contains(t, stdout.String(), c.stdout)
			require.Contains(t, stderr.String(), c.stderr)
		})
	}
}
