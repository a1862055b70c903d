package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"maps"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/ops"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/tools/mcp"
)

// mcpIdentity is whom an MCP session acts for.
type mcpIdentity struct {
	Team string `json:"team"`
	User string `json:"user"`
	Name string `json:"name"`
}

// invocation fixes the actor and a private place of its own for an MCP
// session; writes are recorded as made through MCP.
func (id mcpIdentity) invocation(started time.Time) tools.Invocation {
	key := threads.Key{Team: id.Team, Channel: "MCP" + id.User, Root: threads.TSFromTime(started)}
	return tools.Invocation{
		Actor:     provenance.Actor{Kind: provenance.KindUser, Team: id.Team, ID: id.User, Name: id.Name},
		Place:     provenance.Place{Team: id.Team, Channel: key.Channel, SourceKey: key.SourceKey(), ThreadTS: string(key.Root), Visibility: provenance.DM},
		MessageTS: string(key.Root),
		WrittenBy: provenance.ByMCP,
	}
}

// newMCPServer serves the memory tools; identity says whom each request
// acts for. judged says that store has the model's review: without it,
// remember refuses every call (see mcpTools).
func newMCPServer(store *memory.Store, judged bool, identity mcp.IdentityFunc) (*server.MCPServer, error) {
	return mcp.NewServer("mnemo", version, mcpTools(store.Tools(), judged), identity)
}

// rememberNeedsModel is remember's answer over MCP without a model.
const rememberNeedsModel = "remember needs a model to judge what a memory means: set MNEMO_LLM_PROVIDER and MNEMO_MODEL"

// mcpTools are the memory tools as mnemo mcp serves them. Whether a memory
// is sensitive is judged on what it means, which only the model reads; the
// detectors are a floor, and miss a health fact in plain words ("Prefers no
// meetings on Tuesday mornings (therapy)"). A preference stored as ordinary
// is applied in public channels, so without a model remember stores
// nothing: it stays listed, for the client to say why, and refuses every
// call, as it does when the model can't be reached. recall, list_memories
// and forget judge nothing and work.
func mcpTools(list []tools.Tool, judged bool) []tools.Tool {
	if judged {
		return list
	}
	out := slices.Clone(list)
	for i, t := range out {
		if t.Name == memory.ToolRemember {
			out[i].Handler = func(context.Context, tools.Invocation, json.RawMessage) (any, error) {
				return nil, errors.New(rememberNeedsModel)
			}
		}
	}
	return out
}

// modelVariables name the model: serve and chat need both, and mnemo mcp
// the other and the key once it is given one. MNEMO_LLM_API_KEY alone
// names none: it is the embedder's key too (embeddingKey), and mcp with
// only an embedder recalls by meaning and refuses remember, saying why.
var modelVariables = []string{"MNEMO_LLM_PROVIDER", "MNEMO_MODEL"}

const mcpUsage = `usage: mnemo mcp --user U… --team T…
       mnemo mcp --http ADDR --tokens FILE

Serves mnemo's memory tools (remember, recall, list_memories, forget) over MCP,
on stdio for one identity, or over streamable HTTP where each bearer token maps
to an identity. /healthz on the HTTP server needs no token.

remember needs the model (MNEMO_LLM_PROVIDER and MNEMO_MODEL), which judges
whether a memory is sensitive from what it means; without one it refuses
every call, and recall, list_memories and forget work. A model half
configured (MNEMO_LLM_PROVIDER or MNEMO_MODEL set, and another it needs
not) stops mnemo mcp at start, as it stops serve.
`

func cmdMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", mcpUsage, stdout)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address instead of stdio")
	user := fs.String("user", "", "stdio: the Slack user id every call acts for")
	team := fs.String("team", "", "stdio: the Slack team id")
	tokenFile := fs.String("tokens", "", `HTTP: JSON file mapping bearer tokens to identities: {"TOKEN": {"team": "T…", "user": "U…"}}`)
	if _, err := fs.parse(args, 0); err != nil {
		return err
	}
	// The command line is checked before the database is touched.
	var tokens map[string]tools.Invocation
	started := time.Now()
	if *httpAddr == "" {
		if *tokenFile != "" {
			return argsError{"--tokens is for --http; over stdio the identity is --user and --team", "mcp"}
		}
		if err := (mcpIdentity{Team: *team, User: *user}).check(); err != nil {
			return argsError{"mcp over stdio needs --user U… and --team T…, the identity every call acts for: " + err.Error(), "mcp"}
		}
	} else {
		if *user != "" || *team != "" {
			return argsError{"--user and --team are for stdio; over HTTP each token in --tokens names its identity", "mcp"}
		}
		if *tokenFile == "" {
			return argsError{"mcp over HTTP needs --tokens FILE mapping bearer tokens to identities", "mcp"}
		}
		var err error
		if tokens, err = loadTokens(*tokenFile, started); err != nil {
			return err
		}
	}
	cfg, err := LoadConfig(getenv, "mcp")
	if err != nil {
		return err
	}
	// mcp may run without a model (remember then refuses, saying so), but
	// not with half of one: every review would fail as if the model were
	// down for a minute. Once the model is named (its provider or its
	// name), it needs the rest, with the problems chat and serve give. A
	// key alone names no model: the SDKs' (ANTHROPIC_API_KEY, often set
	// for other tools) or MNEMO_LLM_API_KEY, which may be the embedder's.
	if slices.ContainsFunc(modelVariables, func(name string) bool { return getenv(name) != "" }) {
		if _, err := LoadConfig(getenv, "chat"); err != nil {
			return err
		}
	}
	log := newLogger(stderr, cfg.LogLevel.Level())
	c, err := buildCore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	// buildCore gives the store the model's review exactly when there is a
	// model.
	judged := c.model != nil
	if !judged {
		log.Warn().Msg("mcp: no model is configured (MNEMO_LLM_PROVIDER, MNEMO_MODEL), so remember refuses every call; recall, list_memories and forget work")
	}

	if *httpAddr == "" {
		inv := mcpIdentity{Team: *team, User: *user}.invocation(started)
		srv, err := newMCPServer(c.memory, judged, func(context.Context) (tools.Invocation, bool) { return inv, true })
		if err != nil {
			return err
		}
		log.Info().Str("user", *user).Msg("mcp serving on stdio")
		stdio := newDrainingStdio(ctx, stdin, stdout)
		ss := server.NewStdioServer(srv)
		// mcp-go's own error lines (a failed read or write, a recovered
		// panic, which may quote a request) go through the redacting log,
		// as serve's HTTP server's do, not raw to the process's stderr.
		ss.SetErrorLogger(stdlog.New(log.With().Str("component", "mcp").Logger(), "", 0))
		return ss.Listen(ctx, stdio, stdio)
	}

	srv, err := newMCPServer(c.memory, judged, mcp.IdentityFromContext)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return err
	}
	// The operator's timeouts but a write's: a streamable HTTP session may
	// hold a response open for the server's messages.
	hs := ops.HTTPServer(mcp.BearerHandler(srv, tokens, log), log)
	hs.WriteTimeout = 0
	// Requests' contexts outlive ctx by the shutdown's drain, and no more:
	// a call still running then (a write waiting on a row lock) is
	// cancelled, so that the pool it holds a connection of can close.
	requests, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	hs.BaseContext = func(net.Listener) context.Context { return requests }
	// The shutdown waits for ctx's end, or for Serve's, which ends it too:
	// it is joined before this returns.
	serving, stop := context.WithCancel(ctx)
	var shut sync.WaitGroup
	shut.Go(func() {
		<-serving.Done()
		sctx, cancel := context.WithTimeout(context.Background(), mcpDrain)
		defer cancel()
		_ = hs.Shutdown(sctx)
		cancelRequests()
	})
	log.Info().Str("addr", ln.Addr().String()).Int("identities", len(tokens)).Msg("mcp serving on HTTP")
	err = hs.Serve(ln)
	stop()
	shut.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// mcpDrain is how long the HTTP server's shutdown waits for the calls in
// flight before it cancels them.
const mcpDrain = 5 * time.Second

var teamID = regexp.MustCompile(`^[TE][A-Z0-9]+$`)

// check says what is wrong with an identity, if anything.
func (id mcpIdentity) check() error {
	var bad []string
	switch {
	case id.User == "":
		bad = append(bad, "the user is not set")
	case !validUserID(id.User):
		bad = append(bad, fmt.Sprintf("user %q is not a Slack user id (U… or W…)", id.User))
	}
	switch {
	case id.Team == "":
		bad = append(bad, "the team is not set")
	case !teamID.MatchString(id.Team):
		bad = append(bad, fmt.Sprintf("team %q is not a Slack team id (T…)", id.Team))
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// loadTokens reads the HTTP server's tokens file: bearer token → identity.
// Its problems never quote a token.
func loadTokens(path string, started time.Time) (map[string]tools.Invocation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	var ids map[string]mcpIdentity
	if err := json.Unmarshal(b, &ids); err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf(`tokens file %s maps no token: expected {"TOKEN": {"team": "T…", "user": "U…"}}`, path)
	}
	tokens := map[string]tools.Invocation{}
	var bad []string
	for _, tok := range slices.Sorted(maps.Keys(ids)) {
		id := ids[tok]
		switch err := id.check(); {
		case tok == "":
			bad = append(bad, "an entry has an empty token")
		case err != nil:
			bad = append(bad, fmt.Sprintf("the entry for user %q: %v", id.User, err))
		default:
			tokens[tok] = id.invocation(started)
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("tokens file %s: %s", path, strings.Join(bad, "; "))
	}
	return tokens, nil
}
