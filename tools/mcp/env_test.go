package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/tools"
)

// environServer is a real MCP server whose one tool answers with its
// process's environment, one KEY=VALUE a line.
func environServer() *server.MCPServer {
	s := server.NewMCPServer("environ", "1.0.0")
	s.AddTool(mcpgo.NewTool("environ", mcpgo.WithDescription("Tell the server's environment.")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strings.Join(os.Environ(), "\n")), nil
		})
	return s
}

// A stdio server, a third party's program, gets mnemo's harmless variables
// and its configured env, never mnemo's secrets. Not parallel: it sets the
// process's environment.
func TestMCPStdioServerGetsNoneOfMnemosSecrets(t *testing.T) {
	secrets := map[string]string{
		"SLACK_BOT_TOKEN":      "xoxb-1111-2222-secretbottoken",
		"SLACK_SIGNING_SECRET": "signingsecret0123456789abcdef",
		"MNEMO_ENCRYPTION_KEY": "encryptionkey0123456789abcdef",
		"DATABASE_URL":         "postgres://mnemo:dbpassword@localhost/mnemo",
		"ANTHROPIC_API_KEY":    "sk-ant-secretmodelkey",
		"HTTPS_PROXY":          "http://user:proxypassword@proxy:3128",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LC_TIME", "C.UTF-8")
	exe, err := os.Executable()
	require.NoError(t, err)
	src := NewSource("env", ServerConfig{Type: Stdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{"MNEMO_TEST_MCP_SERVER": "env", "GITHUB_TOKEN": "configured-token", "HOME": "/configured/home"}}, zerolog.Nop())
	t.Cleanup(src.Close)
	list, err := src.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 1)
	v, err := list[0].Handler(context.Background(), tools.Invocation{}, json.RawMessage(`{}`))
	require.NoError(t, err)
	env := strings.Split(v.(string), "\n")

	for k, secret := range secrets {
		for _, kv := range env {
			require.False(t, strings.HasPrefix(kv, k+"="), "the server inherited %s", k)
			require.NotContains(t, kv, secret)
		}
	}
	require.Contains(t, env, "GITHUB_TOKEN=configured-token", "the configured env is passed")
	require.Contains(t, env, "HOME=/configured/home", "the configured env wins over the inherited")
	require.NotContains(t, env, "HOME="+os.Getenv("HOME"))
	require.Contains(t, env, "PATH="+os.Getenv("PATH"), "harmless variables are inherited")
	require.Contains(t, env, "LC_TIME=C.UTF-8")
}

func TestChildEnv(t *testing.T) {
	t.Parallel()
	parent := []string{"PATH=/bin", "SLACK_BOT_TOKEN=xoxb-1", "LC_ALL=C", "TZ=UTC", "HOME=/root", "=weird", "NOEQUALS", "PATHOLOGICAL=1"}
	require.Equal(t, []string{"PATH=/bin", "LC_ALL=C", "TZ=UTC", "A=1", "HOME=/srv"},
		childEnv(parent, map[string]string{"HOME": "/srv", "A": "1"}))
	require.NotNil(t, childEnv(nil, nil), "an empty environment, not exec's inherit-all nil")
	require.Empty(t, childEnv(nil, nil))
}
