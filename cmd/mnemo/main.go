// Command mnemo is a Slack bot that remembers. Its subcommands wire the
// packages together; they hold no logic of their own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/rs/zerolog"
	"golang.org/x/term"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: mnemo <command> [flags]

commands:
  serve                    run the Slack bot (Socket Mode); migrates first
  migrate                  apply database migrations
  chat                     chat with mnemo in the terminal, no Slack needed
  mcp [--http ADDR]        serve mnemo's memory tools over MCP
  tools list [--source S]  list the MCP servers' tools, or why a server failed
  memories list --json     print memories as JSON [--user U] [--source-key K] [--all]
  eval [--live] [--run P]  run the memory workflow evals
  version                  print the version
`

// run is main without the process: tests call it with their own
// environment and streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "version", "--version":
		fmt.Fprintln(stdout, "mnemo", version)
		return 0
	case "serve":
		err = cmdServe(ctx, rest, getenv, stderr)
	case "migrate":
		err = cmdMigrate(ctx, rest, getenv, stdout, stderr)
	case "memories":
		err = cmdMemories(ctx, rest, getenv, stdout, stderr)
	case "chat":
		err = cmdChat(ctx, rest, getenv, stdin, stdout, stderr)
	case "mcp":
		err = cmdMCP(ctx, rest, getenv, stdin, stdout, stderr)
	case "eval":
		err = cmdEval(ctx, rest, getenv, stdout, stderr)
	case "tools":
		err = cmdTools(ctx, rest, getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "mnemo: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err == nil {
		return 0
	}
	var ce *ConfigError
	var ue usageError
	var ec exitCode
	switch {
	case errors.As(err, &ec):
		return int(ec)
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "mnemo %s: %v\n", cmd, err)
	case errors.As(err, &ue), errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stderr, "mnemo %s: %v\n", cmd, err)
		return 2
	default:
		fmt.Fprintf(stderr, "mnemo %s: %v\n", cmd, err)
	}
	return 1
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// newLogger writes JSON, or console format on a terminal, with secrets
// scrubbed from every line.
func newLogger(w io.Writer, level zerolog.Level) zerolog.Logger {
	out := io.Writer(redactWriter{w})
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		out = zerolog.ConsoleWriter{Out: redactWriter{w}}
	}
	return zerolog.New(out).Level(level).With().Timestamp().Logger()
}

// secretInLog matches tokens and keys that must never reach a log.
var secretInLog = regexp.MustCompile(`(xox[abposre]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-ant-[A-Za-z0-9_-]+|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|Bearer [A-Za-z0-9._~+/-]+=*)`)

type redactWriter struct{ w io.Writer }

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(secretInLog.ReplaceAll(p, []byte("[redacted]"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
