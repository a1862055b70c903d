package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mnemo-bot/mnemo/tools"
)

const toolsUsage = `usage: mnemo tools list [--source S]

Lists the MCP servers of MNEMO_MCP_CONFIG, connecting to each, with its tools
or why it failed.
`

// cmdTools is `mnemo tools list [--source S]`: the MCP servers of
// MNEMO_MCP_CONFIG, each connected, with its tools or why it failed.
func cmdTools(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	_, rest, err := subcommand(newFlagSet("tools", toolsUsage, stdout), args, "", "list")
	if err != nil {
		return err
	}
	fs := newFlagSet("tools list", toolsUsage, stdout)
	source := fs.String("source", "", "only this source, e.g. mcp:github")
	if _, err := fs.parse(rest, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, commandNeeds["tools"])
	if err != nil {
		return err
	}
	if cfg.MCPConfig == "" {
		fmt.Fprintln(stdout, "No MCP servers: MNEMO_MCP_CONFIG is not set.")
		return nil
	}
	log := newLogger(stderr, cfg.LogLevel)
	b, err := os.ReadFile(cfg.MCPConfig)
	if err != nil {
		return fmt.Errorf("mcp config: %w", err)
	}
	// getenv can't tell unset from empty, so ${VAR} set to "" reads as
	// unset here.
	mcpCfg, err := tools.ParseMCPConfig(b, func(k string) (string, bool) { v := getenv(k); return v, v != "" })
	if err != nil {
		return fmt.Errorf("mcp config %s: %w", cfg.MCPConfig, err)
	}
	reg := tools.NewRegistry()
	closeAll, err := tools.AddMCPConfig(reg, mcpCfg, log)
	if err != nil {
		return err
	}
	defer closeAll()
	fmt.Fprintf(stdout, "MCP servers of %s (mnemo's own memory tools are served by mnemo serve and mnemo mcp, not listed here)\n\n", cfg.MCPConfig)
	return listTools(ctx, reg, *source, stdout)
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
