package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/tools"
)

// IdentityFunc says whom an MCP request acts for. It comes from the server's
// configuration (stdio) or the request's bearer token (HTTP), never from
// tool arguments.
type IdentityFunc func(ctx context.Context) (tools.Invocation, bool)

// ServeCallTimeout bounds one tool call a served client makes, as a turn
// bounds the tools it calls (a turn's default timeout).
const ServeCallTimeout = 2 * time.Minute

// NewServer serves tools over MCP under their MCPName, or else their
// name without the source prefix ("memory__remember" is served as
// "remember"). Arguments are checked against the same schemas as in the
// catalog; ReadOnly and Destructive reach clients as annotations, and each
// result comes both as JSON text and as structured content.
func NewServer(name, version string, list []tools.Tool, identity IdentityFunc) (*server.MCPServer, error) {
	reg := tools.NewRegistry()
	s := server.NewMCPServer(name, version, server.WithToolCapabilities(false))
	served := map[string]string{}
	for _, t := range list {
		reg.AddSource(t.Source, t.Source)
		if err := reg.Register(t); err != nil {
			return nil, err
		}
		full := t.Name
		external := t.MCPName
		if external == "" {
			external = strings.TrimPrefix(t.Name, t.Source+"__")
		}
		if other, dup := served[external]; dup {
			return nil, fmt.Errorf("tools: %q and %q would both be served over MCP as %q", other, full, external)
		}
		served[external] = full
		tool := mcpgo.NewToolWithRawSchema(external, t.Description, t.InputSchema)
		tool.Annotations = annotations(t)
		s.AddTool(tool, func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			inv, ok := identity(ctx)
			if !ok {
				return mcpgo.NewToolResultError("no identity: this server acts only for a configured identity"), nil
			}
			args, err := json.Marshal(req.GetRawArguments())
			if err != nil || string(args) == "null" {
				args = []byte(`{}`)
			}
			// A registry refuses the catalog's own names, so Call runs
			// exactly the named tool, within ServeCallTimeout: the
			// transport's context need not end (an HTTP request's lives
			// as long as its client waits).
			ctx, cancel := context.WithTimeout(ctx, ServeCallTimeout)
			defer cancel()
			res := reg.Call(ctx, inv, full, args)
			out := mcpgo.NewToolResultStructured(structured(res.Content), res.Content)
			out.IsError = res.IsError
			return out, nil
		})
	}
	return s, nil
}

// structured decodes a result's JSON object once, numbers kept exact, so
// every transport carries the same structured content as the text.
func structured(content string) map[string]any {
	d := json.NewDecoder(strings.NewReader(content))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return map[string]any{"ok": false, "error": "tool result is not a JSON object"}
	}
	return m
}

// annotations tells MCP clients whether a tool changes anything. Without
// hints a client must assume a tool is destructive, so a writing tool that
// is not says so.
func annotations(t tools.Tool) mcpgo.ToolAnnotation {
	a := mcpgo.ToolAnnotation{ReadOnlyHint: mcpgo.ToBoolPtr(t.ReadOnly)}
	if !t.ReadOnly {
		a.DestructiveHint = mcpgo.ToBoolPtr(t.Destructive)
	}
	return a
}

type identityKey struct{}

// WithIdentity puts an invocation into a context, for IdentityFromContext.
func WithIdentity(ctx context.Context, inv tools.Invocation) context.Context {
	return context.WithValue(ctx, identityKey{}, inv)
}

// IdentityFromContext is the IdentityFunc for servers whose transport puts
// the identity into the context.
func IdentityFromContext(ctx context.Context) (tools.Invocation, bool) {
	inv, ok := ctx.Value(identityKey{}).(tools.Invocation)
	return inv, ok
}

// BearerHandler serves MCP over streamable HTTP, acting for the identity its
// bearer token maps to. A request without a known token gets 401 and is
// logged, without the token; /healthz answers 200 to anyone, for probes.
// Tokens are looked up by their SHA-256, so that how long a lookup takes
// says nothing of how much of a guess matched, and a body is read up to
// MaxBody.
func BearerHandler(s *server.MCPServer, tokens map[string]tools.Invocation, log zerolog.Logger) http.Handler {
	byHash := make(map[[sha256.Size]byte]tools.Invocation, len(tokens))
	for t, inv := range tokens {
		byHash[sha256.Sum256([]byte(t))] = inv
	}
	identity := func(r *http.Request) (tools.Invocation, bool) {
		inv, ok := byHash[sha256.Sum256([]byte(bearer(r)))]
		return inv, ok
	}
	h := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		if inv, ok := identity(r); ok {
			return WithIdentity(ctx, inv)
		}
		return ctx
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == HealthPath {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, "ok\n")
			return
		}
		if _, ok := identity(r); !ok {
			reason := "unknown bearer token"
			if bearer(r) == noToken {
				reason = "no bearer token"
			}
			log.Warn().Str("method", r.Method).Str("path", r.URL.Path).Str("remote", r.RemoteAddr).
				Str("reason", reason).Msg("mcp request refused")
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
			http.Error(w, "a bearer token mapped to an identity is required", http.StatusUnauthorized)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		h.ServeHTTP(w, r)
	})
}

// MaxBody bounds an MCP request's body: a tool call's arguments are a few
// kilobytes (a memory is at most 600 characters).
const MaxBody = 1 << 20

// HealthPath is where BearerHandler answers health checks.
const HealthPath = "/healthz"

// noToken never matches a configured token, so a request without one
// can't be mistaken for the empty token.
const noToken = "\x00"

func bearer(r *http.Request) string {
	t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || t == "" {
		return noToken
	}
	return t
}
