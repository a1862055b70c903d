package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/tools"
)

// ServerConfig is one server of an MCP client configuration: a command
// spoken to over stdio, or a URL spoken to over streamable HTTP or SSE.
type ServerConfig struct {
	// Type is stdio, http or sse once parsed ("streamable-http" reads as
	// http); a file may leave it out, and command or url then says which.
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
}

// The transports a server can be reached by.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
)

// Config is a parsed MCP client configuration: the servers to connect
// to, variables expanded, and the names of those the file disables.
type Config struct {
	Servers  map[string]ServerConfig
	Disabled []string
}

// LoadConfig reads an MCP client configuration file, expanding ${VAR}
// from the process environment. See ParseConfig.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("mcp config: %w", err)
	}
	c, err := ParseConfig(b, os.LookupEnv)
	if err != nil {
		return c, fmt.Errorf("mcp config %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig reads the configuration format MCP clients share,
// {"mcpServers": {NAME: {…}}}, or the {"servers": {NAME: {…}}} editors
// write. In command, args, env values, url and headers, ${VAR} (or
// ${env:VAR}) is replaced by lookupEnv's value and ${VAR:-default} falls
// back to default when VAR is unset or empty; an unset VAR without a
// default is an error. Disabled servers are skipped unchecked. Every
// problem is reported at once, and a file with no server left to use is an
// error too.
func ParseConfig(data []byte, lookupEnv func(string) (string, bool)) (Config, error) {
	var file struct {
		MCPServers map[string]ServerConfig `json:"mcpServers"`
		Servers    map[string]ServerConfig `json:"servers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return Config{}, err
	}
	servers := file.MCPServers
	switch {
	case servers != nil && file.Servers != nil:
		return Config{}, errors.New(`both "mcpServers" and "servers" are set; use one`)
	case servers == nil:
		servers = file.Servers
	}
	c := Config{Servers: map[string]ServerConfig{}}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		if s.Disabled {
			c.Disabled = append(c.Disabled, name)
			continue
		}
		if !serverName.MatchString(name) {
			problems = append(problems, fmt.Sprintf("server name %q must be letters, digits, - or _", name))
			continue
		}
		s, bad := checkServer(name, s, lookupEnv)
		if len(bad) > 0 {
			problems = append(problems, bad...)
			continue
		}
		c.Servers[name] = s
	}
	if len(problems) > 0 {
		return c, errors.New(strings.Join(problems, "; "))
	}
	if len(c.Servers) == 0 {
		if len(c.Disabled) > 0 {
			return c, fmt.Errorf("no usable server: every server is disabled (%s)", strings.Join(c.Disabled, ", "))
		}
		return c, errors.New(`no servers: expected {"mcpServers": {"NAME": {…}}} or {"servers": {"NAME": {…}}}`)
	}
	return c, nil
}

var serverName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,30}$`)

// checkServer expands a server's variables and settles its transport.
func checkServer(name string, s ServerConfig, lookupEnv func(string) (string, bool)) (ServerConfig, []string) {
	var problems []string
	expand := func(where, v string) string {
		out, err := expandVars(v, lookupEnv)
		if err != nil {
			problems = append(problems, fmt.Sprintf("server %q: %s: %v", name, where, err))
		}
		return out
	}
	s.Command = expand("command", s.Command)
	s.URL = expand("url", s.URL)
	s.Args = slices.Clone(s.Args)
	for i, a := range s.Args {
		s.Args[i] = expand(fmt.Sprintf("args[%d]", i), a)
	}
	s.Env = expandMap(s.Env, "env", expand)
	s.Headers = expandMap(s.Headers, "headers", expand)

	switch strings.ToLower(s.Type) {
	case "":
		switch {
		case (s.Command == "") == (s.URL == ""):
			problems = append(problems, fmt.Sprintf("server %q needs exactly one of command or url", name))
		case s.Command != "":
			s.Type = Stdio
		default:
			s.Type = HTTP
		}
	case Stdio:
		s.Type = Stdio
		if s.Command == "" || s.URL != "" {
			problems = append(problems, fmt.Sprintf("server %q is stdio: it needs a command and no url", name))
		}
	case HTTP, "streamable-http", "streamablehttp":
		s.Type = HTTP
	case SSE:
		s.Type = SSE
	default:
		problems = append(problems, fmt.Sprintf("server %q has type %q; use stdio, http (streamable-http) or sse", name, s.Type))
	}
	if s.Type == HTTP || s.Type == SSE {
		if u, err := url.Parse(s.URL); s.Command != "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("server %q is %s: it needs an http(s) url and no command", name, s.Type))
		}
	}
	return s, problems
}

func expandMap(m map[string]string, field string, expand func(where, v string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out[k] = expand(field+"."+k, m[k])
	}
	return out
}

var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expandVars replaces ${VAR}, ${env:VAR} and ${VAR:-default}. Errors name
// the variable, never a value.
func expandVars(s string, lookupEnv func(string) (string, bool)) (string, error) {
	var errs []string
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		inner := ref[2 : len(ref)-1]
		name, def, hasDef := strings.Cut(inner, ":-")
		if rest, ok := strings.CutPrefix(name, "env:"); ok {
			name = rest
		}
		if !varName.MatchString(name) {
			errs = append(errs, fmt.Sprintf("%s is not an environment variable reference", ref))
			return ref
		}
		v, ok := lookupEnv(name)
		switch {
		case ok && v != "" || ok && !hasDef:
			return v
		case hasDef:
			return def
		}
		errs = append(errs, fmt.Sprintf("environment variable %s is not set", name))
		return ref
	})
	if len(errs) > 0 {
		return out, errors.New(strings.Join(errs, ", "))
	}
	return out, nil
}

// AddServers adds each server of the configuration file as a source
// mcp:NAME; see AddConfig.
func AddServers(reg *tools.Registry, path string, log zerolog.Logger) (func(), error) {
	cfg, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	return AddConfig(reg, cfg, log)
}

// AddConfig adds each configured server as a source mcp:NAME and logs
// the disabled ones. Servers connect lazily, on first use; the returned
// func closes them.
func AddConfig(reg *tools.Registry, cfg Config, log zerolog.Logger) (func(), error) {
	for _, n := range cfg.Disabled {
		log.Info().Str("server", n).Msg("mcp server disabled in the config; skipped")
	}
	var sources []*Source
	closeAll := func() {
		for _, s := range sources {
			s.Close()
		}
	}
	for _, n := range slices.Sorted(maps.Keys(cfg.Servers)) {
		src := NewSource(n, cfg.Servers[n], log)
		if err := reg.AddProvider(src); err != nil {
			closeAll()
			return nil, err
		}
		sources = append(sources, src)
	}
	return closeAll, nil
}

// Source is one MCP server as a catalog source. It connects on first use
// (within ConnectTimeout), tries again after a failed connection no sooner
// than RetryAfter, drops a connection whose call fails so the next use
// reconnects, and bounds each call with CallTimeout.
//
// No network call runs under mu: one connection attempt at a time runs on
// its own (see attempt), and a dropped client is closed after mu is let go.
type Source struct {
	name     string
	cfg      ServerConfig
	log      zerolog.Logger
	scrubber *urlScrubber // its URL's, for its errors and its transport's log

	CallTimeout    time.Duration
	ConnectTimeout time.Duration
	RetryAfter     time.Duration

	mu         sync.Mutex
	client     *client.Client
	stop       context.CancelFunc // ends an SSE stream with its client
	tools      []tools.Tool
	lastErr    error
	failedAt   time.Time
	connecting *attempt // the connection being made, if any
}

// attempt is one connection being made. Its goroutine belongs to the
// Source: it ends within ConnectTimeout, or sooner when Close cancels it
// (and waits for it). Callers wait for done, or give up on their own
// context without ending the attempt for the others.
type attempt struct {
	done   chan struct{}      // closed once the result below is set
	cancel context.CancelFunc // ends the attempt
	stop   context.CancelFunc // ends the SSE stream it starts
	client *client.Client
	tools  []tools.Tool
	err    error
}

// NewSource returns a lazily connected source for one server.
func NewSource(name string, cfg ServerConfig, log zerolog.Logger) *Source {
	return &Source{name: name, cfg: cfg, log: log, scrubber: newURLScrubber(cfg.URL), CallTimeout: 30 * time.Second, ConnectTimeout: 15 * time.Second, RetryAfter: 5 * time.Second}
}

// SourceName is mcp:NAME.
func (s *Source) SourceName() string { return "mcp:" + s.name }

// Summary is the one line the catalog shows for the server.
func (s *Source) Summary() string { return "tools of the MCP server " + s.name }

// Tools connects if needed and returns the tools the server listed when it
// connected: the same slice until it reconnects. A caller whose ctx ends
// while the server is connecting gets ctx's error; the connection goes on
// for the others.
func (s *Source) Tools(ctx context.Context) ([]tools.Tool, error) {
	_, list, err := s.connected(ctx)
	return list, err
}

// connected returns the client and its tools, connecting if needed.
func (s *Source) connected(ctx context.Context) (*client.Client, []tools.Tool, error) {
	s.mu.Lock()
	if s.client != nil {
		c, list := s.client, s.tools
		s.mu.Unlock()
		return c, list, nil
	}
	if s.lastErr != nil && time.Since(s.failedAt) < s.RetryAfter {
		err := s.lastErr
		s.mu.Unlock()
		return nil, nil, err
	}
	a := s.connecting
	if a == nil {
		a = s.startConnect(ctx)
	}
	s.mu.Unlock()
	select {
	case <-a.done:
		return a.client, a.tools, a.err
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("%s: waiting for the connection: %w", s.SourceName(), ctx.Err())
	}
}

// startConnect starts an attempt; the caller holds s.mu. The attempt keeps
// ctx's values but not its cancellation, which is one caller's: it ends
// after ConnectTimeout, or when Close cancels it.
func (s *Source) startConnect(ctx context.Context) *attempt {
	base := context.WithoutCancel(ctx)
	actx, cancel := context.WithTimeout(base, s.ConnectTimeout)
	// An SSE stream lives as long as its client, not as long as the
	// attempt that connected it.
	stream, stop := context.WithCancel(base)
	a := &attempt{done: make(chan struct{}), cancel: cancel, stop: stop}
	s.connecting = a
	go s.runAttempt(actx, stream, a)
	return a
}

// runAttempt connects and publishes the result under s.mu.
func (s *Source) runAttempt(ctx, stream context.Context, a *attempt) {
	defer close(a.done)
	defer a.cancel()
	c, list, err := s.connect(ctx, stream)
	// The error may quote the server's URL: scrubbed here, it is scrubbed
	// for the log, the catalog and every caller.
	err = s.scrub(err)
	s.mu.Lock()
	current := s.connecting == a
	if current {
		s.connecting = nil
		if err == nil {
			s.client, s.stop, s.tools, s.lastErr = c, a.stop, list, nil
			a.client, a.tools = c, list
			s.mu.Unlock()
			return
		}
		s.lastErr, s.failedAt = fmt.Errorf("unavailable: %w", err), time.Now()
		a.err = s.lastErr
	}
	s.mu.Unlock()
	// Failed (connect closed its client), or closed while connecting:
	// nothing was published.
	closeClient(c, a.stop)
	if !current {
		a.err = fmt.Errorf("%s: closed while connecting", s.SourceName())
		return
	}
	s.log.Warn().Err(err).Str("source", s.SourceName()).Msg("mcp server unavailable")
}

// connect dials the server, initializes and lists its tools, within ctx.
// It closes the client it made when it fails.
func (s *Source) connect(ctx, stream context.Context) (*client.Client, []tools.Tool, error) {
	c, err := s.dial(ctx, stream)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*client.Client, []tools.Tool, error) {
		_ = c.Close()
		return nil, nil, err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "mnemo", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return fail(fmt.Errorf("tools/list: %w", err))
	}
	var out []tools.Tool
	for _, t := range list.Tools {
		schema := t.RawInputSchema
		if len(schema) == 0 {
			schema, _ = json.Marshal(t.InputSchema)
		}
		remote := t.Name
		out = append(out, tools.Tool{
			Name: ToolName(s.name, remote), Source: s.SourceName(), Description: t.Description,
			InputSchema: objectSchema(schema), Exposure: tools.Deferred,
			Handler: func(ctx context.Context, _ tools.Invocation, args json.RawMessage) (any, error) {
				v, err := s.call(ctx, remote, args)
				// The error may quote the server's URL; it goes to the
				// model and the session log.
				return v, s.scrub(err)
			},
		})
	}
	return c, out, nil
}

// dial starts a client on the server's transport. A config built by hand
// may leave Type empty: a command means stdio, a URL streamable HTTP.
func (s *Source) dial(ctx, stream context.Context) (*client.Client, error) {
	kind := s.cfg.Type
	if kind == "" {
		kind = HTTP
		if s.cfg.Command != "" {
			kind = Stdio
		}
	}
	var c *client.Client
	var err error
	switch kind {
	case Stdio:
		// Only what childEnv lets through: never mnemo's own secrets.
		return client.NewStdioMCPClientWithOptions(s.cfg.Command, childEnv(os.Environ(), s.cfg.Env), s.cfg.Args,
			transport.WithCommandFunc(stdioCommand))
	case SSE:
		c, err = client.NewSSEMCPClient(s.cfg.URL, transport.WithHeaders(s.cfg.Headers), transport.WithEndpointTimeout(s.ConnectTimeout),
			transport.WithResponseTimeout(s.CallTimeout), transport.WithHTTPClient(sseHTTPClient(s.ConnectTimeout)),
			transport.WithSSELogger(s.transportLog()))
		if err == nil {
			err = c.Start(stream)
		}
	default:
		c, err = client.NewStreamableHttpClient(s.cfg.URL, transport.WithHTTPHeaders(s.cfg.Headers), transport.WithHTTPTimeout(s.CallTimeout),
			transport.WithHTTPLogger(s.transportLog()))
		if err == nil {
			err = c.Start(ctx)
		}
	}
	if err != nil && c != nil {
		_ = c.Close()
	}
	return c, err
}

func (s *Source) call(ctx context.Context, tool string, args json.RawMessage) (any, error) {
	c, _, err := s.connected(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.CallTimeout)
	defer cancel()
	var arguments map[string]any
	_ = json.Unmarshal(args, &arguments)
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = arguments
	res, err := c.CallTool(ctx, req)
	if err != nil {
		// The connection may be gone: drop it so the next use reconnects.
		s.mu.Lock()
		var stop context.CancelFunc
		if s.client == c {
			stop = s.detach()
		} else {
			c = nil
		}
		s.mu.Unlock()
		closeClient(c, stop)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %s timed out after %s", s.SourceName(), tool, s.CallTimeout)
		}
		return nil, fmt.Errorf("%s: %s: %w", s.SourceName(), tool, err)
	}
	var texts []string
	for _, part := range res.Content {
		if t, ok := part.(mcpgo.TextContent); ok {
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

// Close disconnects, and ends a connection being made and waits for it;
// the next use connects again.
func (s *Source) Close() {
	s.mu.Lock()
	a := s.connecting
	s.connecting = nil
	c := s.client
	stop := s.detach()
	s.mu.Unlock()
	if a != nil {
		a.cancel()
		a.stop()
		<-a.done
	}
	closeClient(c, stop)
}

// detach drops the connection and returns its stream's stop, for
// closeClient once s.mu is let go; the caller holds s.mu.
func (s *Source) detach() context.CancelFunc {
	stop := s.stop
	s.client, s.stop, s.tools = nil, nil, nil
	return stop
}

// closeClient closes a dropped client; never under s.mu. mcp-go bounds
// each close: a streamable HTTP session's DELETE by 5 s (and the HTTP
// client's timeout, CallTimeout), a stdio server's exit by its graceful and
// kill timeouts; SSE closes at once.
func closeClient(c *client.Client, stop context.CancelFunc) {
	if c != nil {
		_ = c.Close()
	}
	if stop != nil {
		stop()
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ToolName is the catalog name of a server's tool: mcp__NAME__TOOL, made
// safe for model providers' tool-name rules (other characters become _, and
// it is cut at 64 characters).
func ToolName(server, tool string) string {
	n := "mcp__" + server + "__" + unsafeName.ReplaceAllString(tool, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// objectSchema fills in type object where a server's schema leaves it out,
// and stands in an empty object schema for one that is not a JSON object. A
// schema of another type fails to compile, and its tool is left out.
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

// sseHTTPClient is an SSE server's client. Its event stream stays open for
// the connection's life, so no whole-request timeout: connecting, the TLS
// handshake and the response's headers are bounded instead, and each call
// by CallTimeout (WithResponseTimeout).
func sseHTTPClient(connect time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout, t.ResponseHeaderTimeout = connect, connect
	t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}
