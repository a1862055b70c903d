package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// IdentityFunc says whom an MCP request acts for. It comes from the server's
// configuration (stdio) or the request's bearer token (HTTP), never from
// tool arguments.
type IdentityFunc func(ctx context.Context) (Invocation, bool)

// NewMCPServer serves tools over MCP under their names without the source
// prefix ("memory__remember" is served as "remember"). Arguments are checked
// against the same schemas as in the catalog.
func NewMCPServer(name, version string, list []Tool, identity IdentityFunc) (*server.MCPServer, error) {
	reg := NewRegistry()
	s := server.NewMCPServer(name, version, server.WithToolCapabilities(false))
	for _, t := range list {
		reg.AddSource(t.Source, t.Source)
		if err := reg.Register(t); err != nil {
			return nil, err
		}
		full := t.Name
		short := strings.TrimPrefix(t.Name, t.Source+"__")
		s.AddTool(mcp.NewToolWithRawSchema(short, t.Description, t.InputSchema), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			inv, ok := identity(ctx)
			if !ok {
				return mcp.NewToolResultError("no identity: this server acts only for a configured identity"), nil
			}
			args, err := json.Marshal(req.GetRawArguments())
			if err != nil || string(args) == "null" {
				args = []byte(`{}`)
			}
			res := reg.run(ctx, inv, full, args, false)
			if res.IsError {
				return mcp.NewToolResultError(res.Content), nil
			}
			return mcp.NewToolResultText(res.Content), nil
		})
	}
	return s, nil
}

type identityKey struct{}

// WithIdentity puts an invocation into a context, for IdentityFromContext.
func WithIdentity(ctx context.Context, inv Invocation) context.Context {
	return context.WithValue(ctx, identityKey{}, inv)
}

// IdentityFromContext is the IdentityFunc for servers whose transport puts
// the identity into the context.
func IdentityFromContext(ctx context.Context) (Invocation, bool) {
	inv, ok := ctx.Value(identityKey{}).(Invocation)
	return inv, ok
}

// BearerHandler serves MCP over streamable HTTP, acting for the identity its
// bearer token maps to. A request without a known token gets 401.
func BearerHandler(s *server.MCPServer, tokens map[string]Invocation) http.Handler {
	h := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		if inv, ok := tokens[bearer(r)]; ok {
			return WithIdentity(ctx, inv)
		}
		return ctx
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := tokens[bearer(r)]; !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
			http.Error(w, "a bearer token mapped to an identity is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func bearer(r *http.Request) string {
	t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || t == "" {
		return "\x00"
	}
	return t
}
