package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/tools"
)

// The secrets a remote server's URL may carry, in the forms services
// document: a secret path segment (Zapier), an API key in the query
// (Tavily), a hex key.
const (
	secretPath  = "zapSECRETpath0123456789"
	secretQuery = "tvly-dev-SECRETkey0123456789"
	secretHex   = "0123456789abcdef0123456789abcdef"
)

func secretURL(base string) string {
	return base + "/api/mcp/s/" + secretPath + "/mcp?tavilyApiKey=" + secretQuery + "&key=" + secretHex
}

// requireScrubbed fails if text holds any of the URL's secrets, or, when
// host is set, does not name the server's host.
func requireScrubbed(t *testing.T, text, host string) {
	t.Helper()
	for _, s := range []string{secretPath, secretQuery, secretHex, "tvly-dev", "tavilyApiKey"} {
		require.NotContains(t, text, s)
	}
	if host != "" {
		require.Contains(t, text, host+"/…", "the host still says which server it was")
	}
}

// closedAddr is a local address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A server whose URL carries a secret fails in every way it can: nothing
// listens (HTTP and SSE), it answers 500 quoting the request's path and
// query, and it goes away after connecting, so a call fails. The error
// callers get, the catalog's unavailable text, the tool call's error, and
// the log name the host and none of the secrets.
func TestMCPServerURLSecretsStayOutOfErrorsAndLogs(t *testing.T) {
	t.Parallel()
	down := closedAddr(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no route for "+r.URL.RequestURI(), http.StatusInternalServerError)
	}))
	t.Cleanup(echo.Close)
	gone := httptest.NewServer(legacyServer(server.NewStreamableHTTPServer(weatherServer("gone"))))
	t.Cleanup(gone.Close)
	hostOf := func(raw string) string { u, _ := url.Parse(raw); return u.Host }

	var logs syncbuf.Buffer
	b := setup(t)
	closeAll, err := AddConfig(b.reg, Config{Servers: map[string]ServerConfig{
		"down":    {Type: HTTP, URL: secretURL("http://" + down)},
		"downsse": {Type: SSE, URL: secretURL("http://" + down)},
		"echo":    {Type: HTTP, URL: secretURL(echo.URL)},
		"gone":    {Type: HTTP, URL: secretURL(gone.URL)},
	}}, zerolog.New(&logs))
	require.NoError(t, err)
	t.Cleanup(closeAll)

	// The echoing server's error quotes no URL, only its path and query.
	for _, c := range []struct{ name, host string }{{"down", down}, {"downsse", down}, {"echo", ""}} {
		t.Run("connect "+c.name, func(t *testing.T) {
			all, err := tools.Describe(context.Background(), b.reg, "mcp:"+c.name)
			require.NoError(t, err)
			require.Error(t, all[0].Err)
			requireScrubbed(t, all[0].Err.Error(), c.host)

			out := b.call(t, tools.SearchToolsName, `{"source":"mcp:`+c.name+`"}`)
			unavailable, _ := out["sources"].([]any)[0].(map[string]any)["unavailable"].(string)
			require.NotEmpty(t, unavailable, out)
			requireScrubbed(t, unavailable, c.host)
		})
	}

	t.Run("call", func(t *testing.T) {
		// Connected, then the server goes: the call fails quoting the URL.
		out := b.call(t, tools.ExecuteToolName, `{"tool_name":"mcp__gone__forecast","arguments":{"city":"Porto"}}`)
		require.Equal(t, true, out["ok"], out)
		gone.Close()
		out = b.call(t, tools.ExecuteToolName, `{"tool_name":"mcp__gone__forecast","arguments":{"city":"Porto"}}`)
		require.Equal(t, false, out["ok"], out)
		requireScrubbed(t, out["error"].(string), hostOf(gone.URL))
	})

	t.Run("log", func(t *testing.T) {
		closeAll()
		require.Contains(t, logs.String(), "mcp server unavailable")
		require.Contains(t, logs.String(), `"message":"failed to send close request"`,
			"what mcp-go logs goes to mnemo's log, scrubbed, not to slog's default")
		require.Contains(t, logs.String(), "no route for", "the echoing server's answer is logged, its path and query are not")
		requireScrubbed(t, logs.String(), down)
	})
}

// legacyServer answers server/discover as a server of the protocol before
// 2026-07-28 does, with method not found, so the client falls back to the
// initialize handshake and a session that it ends with a DELETE on close.
func legacyServer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "server/discover" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, req.ID)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func TestScrubURL(t *testing.T) {
	t.Parallel()
	raw := "https://user:hunter2password@mcp.example.com/api/mcp/s/" + secretPath + "/mcp?tavilyApiKey=" + secretQuery
	for _, c := range []struct{ in, want string }{
		{`Post "` + raw + `": dial tcp: connection refused`, `Post "https://mcp.example.com/…": dial tcp: connection refused`},
		{`Post "https://user:***@mcp.example.com/api/mcp/s/` + secretPath + `/mcp?tavilyApiKey=` + secretQuery + `": EOF`, `Post "https://mcp.example.com/…": EOF`},
		{`GET https://MCP.example.com/messages?sessionId=1 failed`, `GET https://mcp.example.com/… failed`},
		{`no route for /api/mcp/s/` + secretPath + `/mcp?tavilyApiKey=` + secretQuery, `no route for …`},
		{`bad key ` + secretQuery + `, path ` + secretPath + `, password hunter2password`, `bad key …, path …, password …`},
		{`other servers stay: https://mcp.example.community/x https://mcp.example.com:8443/y`, `other servers stay: https://mcp.example.community/x https://mcp.example.com:8443/y`},
		{`tools/list: mcp and api are words`, `tools/list: mcp and api are words`},
	} {
		require.Equal(t, c.want, scrubURL(raw, c.in), c.in)
	}
	require.Equal(t, "dial <mcp server url>: refused", scrubURL("not a url", "dial not a url: refused"))
	require.Equal(t, "as is", scrubURL("", "as is"))

	src := NewSource("s", ServerConfig{Type: HTTP, URL: raw}, zerolog.Nop())
	err := src.scrub(&url.Error{Op: "Post", URL: raw, Err: context.DeadlineExceeded})
	require.ErrorIs(t, err, context.DeadlineExceeded, "the error's identity is kept")
	require.Nil(t, errors.Unwrap(err), "its original text is not reachable")
	require.NotContains(t, err.Error(), secretQuery)
}

// What mcp-go's HTTP and SSE transports log goes through the same scrub.
func TestMCPTransportLogIsScrubbed(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	raw := secretURL("https://mcp.example.com")
	src := NewSource("s", ServerConfig{Type: HTTP, URL: raw}, zerolog.New(&logs))
	log := src.transportLog()
	log.Error("failed to send close request", "err", &url.Error{Op: "Delete", URL: raw, Err: errors.New("connection refused")})
	log.With("endpoint", raw).WithGroup("g").Warn("endpoint "+raw, "n", 1)
	log.Info("listening to server forever")
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		lines = append(lines, m)
	}
	require.Len(t, lines, 3)
	requireScrubbed(t, logs.String(), "mcp.example.com")
	require.Equal(t, "error", lines[0]["level"])
	require.Equal(t, "mcp:s", lines[0]["source"])
	require.Equal(t, `Delete "https://mcp.example.com/…": connection refused`, lines[0]["err"])
	require.Equal(t, "warn", lines[1]["level"])
	require.Equal(t, "https://mcp.example.com/…", lines[1]["endpoint"])
	require.Equal(t, "1", lines[1]["g.n"])
	require.Equal(t, "debug", lines[2]["level"])
}
