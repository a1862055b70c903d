package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/tools/mcp"
)

const toolsUsage = `usage: mnemo tools list [--source S]

Lists the tool catalog as serve and chat build it: the memory tools and, with
MNEMO_MCP_CONFIG, each MCP server's tools. It connects to every MCP server and
says which failed and why; it needs no database, model or Slack.
`

// cmdTools is `mnemo tools list [--source S]`.
func cmdTools(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	_, rest, err := subcommand(newFlagSet("tools", toolsUsage, stdout), args, "", "list")
	if err != nil {
		return err
	}
	fs := newFlagSet("tools list", toolsUsage, stdout)
	source := fs.String("source", "", "only this source, e.g. memory or mcp:github")
	if _, err := fs.parse(rest, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, "tools")
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel.Level())
	// getenv can't tell unset from empty, so ${VAR} set to "" reads as
	// unset here.
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	// The memory tools need a store to run, not to be listed: no database
	// is opened.
	reg, closeAll, err := newRegistry(memory.New(nil, memory.Options{}), string(cfg.MCPConfig), lookup, log)
	if err != nil {
		return err
	}
	defer closeAll()
	if cfg.MCPConfig == "" {
		fmt.Fprint(stdout, "MNEMO_MCP_CONFIG is not set: no MCP servers, only mnemo's own tools.\n\n")
	}
	return listTools(ctx, reg, *source, stdout)
}

// newRegistry builds the one tool registry as serve and chat use it: the
// memory tools and, when mcpConfig names a file, each of its MCP servers as
// a source mcp:NAME, with ${VAR} read through lookupEnv. It connects to
// nothing: MCP servers connect on first use, and the returned func closes
// them.
func newRegistry(store *memory.Store, mcpConfig string, lookupEnv func(string) (string, bool), log zerolog.Logger) (*tools.Registry, func(), error) {
	reg := tools.NewRegistry()
	if err := store.Register(reg); err != nil {
		return nil, nil, err
	}
	if mcpConfig == "" {
		return reg, func() {}, nil
	}
	b, err := os.ReadFile(mcpConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp config: %w", err)
	}
	parsed, err := mcp.ParseConfig(b, lookupEnv)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp config %s: %w", mcpConfig, err)
	}
	closeAll, err := mcp.AddConfig(reg, parsed, log)
	if err != nil {
		return nil, nil, err
	}
	return reg, closeAll, nil
}

// listTools prints every source of reg (or only source) with its tools, or
// the reason it could not list them. A failed source does not stop the
// listing; it makes the result an error once everything is printed.
func listTools(ctx context.Context, reg *tools.Registry, source string, stdout io.Writer) error {
	list, err := tools.Describe(ctx, reg, source)
	if err != nil {
		return err
	}
	failed := 0
	for _, s := range list {
		fmt.Fprintf(stdout, "%s — %s\n", s.Source, s.Summary)
		if s.Err != nil {
			failed++
			fmt.Fprintf(stdout, "  unavailable: %s\n\n", strings.TrimPrefix(s.Err.Error(), "unavailable: "))
			continue
		}
		if len(s.Tools) == 0 {
			fmt.Fprint(stdout, "  (no tools)\n\n")
			continue
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, t := range s.Tools {
			kind := ""
			if t.Direct {
				kind = " (direct)"
			}
			fmt.Fprintf(w, "  %s%s\t%s\n", t.Name, kind, t.Summary)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d sources unavailable", failed, len(list))
	}
	return nil
}
