package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
)

// MCPServerConfig is one entry of the MCP client configuration format that
// MCP clients share: a command to start over stdio, or a URL for streamable
// HTTP.
type MCPServerConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// MCPConfig is the whole file: {"mcpServers": {"NAME": {…}}}.
type MCPConfig struct {
	Servers map[string]MCPServerConfig `json:"mcpServers"`
}

// LoadMCPConfig reads and checks an MCP client configuration file.
func LoadMCPConfig(path string) (MCPConfig, error) {
	var c MCPConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("mcp config: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("mcp config %s: %w", path, err)
	}
	var problems []string
	for name, s := range c.Servers {
		switch {
		case !serverName.MatchString(name):
			problems = append(problems, fmt.Sprintf("server name %q must be letters, digits, - or _", name))
		case (s.Command == "") == (s.URL == ""):
			problems = append(problems, fmt.Sprintf("server %q needs exactly one of command or url", name))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return c, fmt.Errorf("mcp config %s: %s", path, strings.Join(problems, "; "))
	}
	return c, nil
}

var serverName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,30}$`)

// AddMCPServers adds each configured server as a source mcp:NAME. Servers
// connect lazily, on first use; the returned func closes them.
func AddMCPServers(reg *Registry, path string, log zerolog.Logger) (func(), error) {
	cfg, err := LoadMCPConfig(path)
	if err != nil {
		return nil, err
	}
	var sources []*MCPSource
	names := make([]string, 0, len(cfg.Servers))
	for n := range cfg.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		src := NewMCPSource(n, cfg.Servers[n], log)
		if err := reg.AddProvider(src); err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	return func() {
		for _, s := range sources {
			s.Close()
		}
	}, nil
}

// MCPSource is one MCP server as a catalog source. It connects on first use,
// reconnects after a failure (no sooner than RetryAfter), and bounds each
// call with CallTimeout.
type MCPSource struct {
	name string
	cfg  MCPServerConfig
	log  zerolog.Logger

	CallTimeout    time.Duration
	ConnectTimeout time.Duration
	RetryAfter     time.Duration

	mu       sync.Mutex
	client   *client.Client
	tools    []Tool
	lastErr  error
	failedAt time.Time
}

// NewMCPSource returns a lazily connected source for one server.
func NewMCPSource(name string, cfg MCPServerConfig, log zerolog.Logger) *MCPSource {
	return &MCPSource{name: name, cfg: cfg, log: log, CallTimeout: 30 * time.Second, ConnectTimeout: 15 * time.Second, RetryAfter: 5 * time.Second}
}

// SourceName is mcp:NAME.
func (s *MCPSource) SourceName() string { return "mcp:" + s.name }

// Summary is the one line the catalog shows for the server.
func (s *MCPSource) Summary() string { return "tools of the MCP server " + s.name }

// Tools connects if needed and lists the server's tools.
func (s *MCPSource) Tools(ctx context.Context) ([]Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		return s.tools, nil
	}
	if s.lastErr != nil && time.Since(s.failedAt) < s.RetryAfter {
		return nil, s.lastErr
	}
	if err := s.connect(ctx); err != nil {
		s.lastErr, s.failedAt = fmt.Errorf("unavailable: %w", err), time.Now()
		s.log.Warn().Err(err).Str("source", s.SourceName()).Msg("mcp server unavailable")
		return nil, s.lastErr
	}
	s.lastErr = nil
	return s.tools, nil
}

func (s *MCPSource) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	defer cancel()
	var c *client.Client
	var err error
	if s.cfg.Command != "" {
		env := make([]string, 0, len(s.cfg.Env))
		for k, v := range s.cfg.Env {
			env = append(env, k+"="+v)
		}
		c, err = client.NewStdioMCPClient(s.cfg.Command, env, s.cfg.Args...)
	} else {
		c, err = client.NewStreamableHttpClient(s.cfg.URL, transport.WithHTTPHeaders(s.cfg.Headers))
		if err == nil {
			err = c.Start(ctx)
		}
	}
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mnemo", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return fmt.Errorf("initialize: %w", err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		_ = c.Close()
		return fmt.Errorf("tools/list: %w", err)
	}
	var out []Tool
	for _, t := range list.Tools {
		schema := t.RawInputSchema
		if len(schema) == 0 {
			schema, _ = json.Marshal(t.InputSchema)
		}
		remote := t.Name
		out = append(out, Tool{
			Name: MCPToolName(s.name, remote), Source: s.SourceName(), Description: t.Description,
			InputSchema: objectSchema(schema), Exposure: Deferred,
			Handler: func(ctx context.Context, _ Invocation, args json.RawMessage) (any, error) {
				return s.call(ctx, remote, args)
			},
		})
	}
	s.client, s.tools = c, out
	return nil
}

func (s *MCPSource) call(ctx context.Context, tool string, args json.RawMessage) (any, error) {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c == nil {
		if _, err := s.Tools(ctx); err != nil {
			return nil, err
		}
		s.mu.Lock()
		c = s.client
		s.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(ctx, s.CallTimeout)
	defer cancel()
	var arguments map[string]any
	_ = json.Unmarshal(args, &arguments)
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = arguments
	res, err := c.CallTool(ctx, req)
	if err != nil {
		// The connection may be gone: drop it so the next use reconnects.
		s.mu.Lock()
		if s.client == c {
			_ = c.Close()
			s.client, s.tools = nil, nil
		}
		s.mu.Unlock()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %s timed out after %s", s.SourceName(), tool, s.CallTimeout)
		}
		return nil, fmt.Errorf("%s: %s: %w", s.SourceName(), tool, err)
	}
	var texts []string
	for _, part := range res.Content {
		if t, ok := part.(mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: %s failed: %s", s.SourceName(), tool, strings.Join(texts, "\n"))
	}
	if res.StructuredContent != nil {
		return res.StructuredContent, nil
	}
	return strings.Join(texts, "\n"), nil
}

// Close disconnects.
func (s *MCPSource) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		_ = s.client.Close()
		s.client = nil
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// MCPToolName is the catalog name of a server's tool: mcp__NAME__TOOL, made
// safe for every provider's tool-name rules.
func MCPToolName(server, tool string) string {
	n := "mcp__" + server + "__" + unsafeName.ReplaceAllString(tool, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// objectSchema makes sure a server's schema is an object schema.
func objectSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if m["type"] == nil {
		m["type"] = "object"
	}
	b, _ := json.Marshal(m)
	return b
}
