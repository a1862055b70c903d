// Command mnemo is a Slack bot that remembers. Its subcommands wire the
// packages together; they hold no logic of their own.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/rs/zerolog"
	"golang.org/x/term"

	"github.com/mnemo-bot/mnemo/detect"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() { os.Exit(mainProcess()) }

// mainProcess runs mnemo as this process: its arguments, environment,
// streams and signals. SIGTERM cancels the command. Ctrl-C (SIGINT) does
// too, except in chat, where it stops the turn that is running.
func mainProcess() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	p := process{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, interrupts: interrupts}
	return p.run(ctx, os.Args[1:])
}

// run is main without the process: tests call it with their own
// environment and streams; nothing interrupts it but ctx.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return process{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}.run(ctx, args)
}

// process is what a command may use of the process it runs in.
type process struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	// interrupts delivers Ctrl-C; nil when nothing interrupts.
	interrupts <-chan os.Signal
}

func (p process) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(p.stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	if cmd != "chat" && p.interrupts != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-p.interrupts:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	var err error
	switch cmd {
	case "--version":
		fmt.Fprintln(p.stdout, "mnemo", version)
		return 0
	case "version":
		if _, err = newFlagSet("version", "usage: mnemo version\n\nPrints the version.\n", p.stdout).parse(rest, 0); err == nil {
			fmt.Fprintln(p.stdout, "mnemo", version)
		}
	case "serve":
		// serve has no flags of its own: its arguments are checked here.
		if _, err = newFlagSet("serve", serveHelp(), p.stdout).parse(rest, 0); err == nil {
			err = cmdServe(ctx, nil, p.getenv, p.stderr)
		}
	case "migrate":
		err = cmdMigrate(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "memories":
		err = cmdMemories(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "stats":
		err = cmdStats(ctx, rest, p.getenv, p.stdout)
	case "turns":
		err = cmdTurns(ctx, rest, p.getenv, p.stdout)
	case "chat":
		err = cmdChat(ctx, rest, p.getenv, p.stdin, p.stdout, p.stderr, p.interrupts)
	case "mcp":
		err = cmdMCP(ctx, rest, p.getenv, p.stdin, p.stdout, p.stderr)
	case "eval":
		err = cmdEval(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "tools":
		err = cmdTools(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "embeddings":
		err = cmdEmbeddings(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "teams":
		err = cmdTeams(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "keys":
		err = cmdKeys(ctx, rest, p.getenv, p.stdout, p.stderr)
	case "installs":
		err = cmdInstalls(ctx, rest, p.getenv, p.stdout)
	case "help", "-h", "-help", "--help":
		return p.help(ctx, cmd, rest)
	default:
		fmt.Fprintf(p.stderr, "mnemo: unknown command %q\n\n%s", detect.Redact(cmd), usage)
		return 2
	}
	var ae argsError
	var ue usageError
	var ec exitCode
	// The error is scrubbed as a log line is (errorWriter): it may quote
	// what it failed on (a value pasted into the wrong flag, a URL with a
	// key, a failed exchange's answer), and stderr is often a log.
	errOut := errorWriter{p.stderr}
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &ec):
		return int(ec)
	case errors.As(err, &ae):
		fmt.Fprintf(errOut, "mnemo %s: %v\nRun 'mnemo %s -h' for usage.\n", ae.command, err, ae.command)
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(errOut, "mnemo %s: %v\nRun 'mnemo %s -h' for usage.\n", cmd, err, cmd)
		return 2
	default:
		fmt.Fprintf(errOut, "mnemo %s: %v\n", cmd, err)
	}
	return 1
}

// help is `mnemo help [env [--markdown] | COMMAND…]`: the usage, the environment
// variables, or a command's own help.
func (p process) help(ctx context.Context, cmd string, rest []string) int {
	switch {
	case cmd != "help" || len(rest) == 0 || rest[0] == "-h" || rest[0] == "-help" || rest[0] == "--help":
		fmt.Fprint(p.stdout, usage)
		return 0
	case rest[0] == "env":
		switch {
		case len(rest) == 2 && rest[1] == "--markdown":
			// The README's configuration table, generated.
			fmt.Fprint(p.stdout, ConfigTable())
			return 0
		case len(rest) > 1:
			fmt.Fprintf(p.stderr, "mnemo help: unexpected argument %q\n", detect.Redact(rest[1]))
			return 2
		}
		writeEnvHelp(p.stdout)
		return 0
	}
	return p.run(ctx, append(append([]string(nil), rest...), "-h"))
}

// errorWriter scrubs a command's final error, written whole in one Write,
// as a log line is scrubbed (redactLine). mnemo's own errors are worded so
// that none reads as a secret to it: a connection string's form has a
// placeholder password, and no "NAME_TOKEN: value" precedes prose.
type errorWriter struct{ w io.Writer }

func (e errorWriter) Write(p []byte) (int, error) {
	if _, err := e.w.Write(redactLine(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// newLogger writes JSON, or console format on a terminal, with secrets
// scrubbed from every line at every level.
func newLogger(w io.Writer, level zerolog.Level) zerolog.Logger {
	out := io.Writer(w)
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		out = zerolog.ConsoleWriter{Out: w}
	}
	// The scrubber reads zerolog's JSON, before the console writer formats
	// it. Lines come from many goroutines (MCP sources connect side by
	// side): one is written whole before the next, whatever w is.
	return zerolog.New(zerolog.SyncWriter(redactWriter{out})).Level(level).With().Timestamp().Logger()
}

// redactWriter scrubs each line written through it with detect.Redact, the
// one redactor: the session log's, so a log knows every shape of secret the
// detectors know. Each Write is one line (zerolog, log and slog write a line
// at a time). A JSON string in the line, such as a zerolog field or a
// Socket Mode frame in socketmode's debug line, is scrubbed unescaped, as it
// was typed, and with its key ("password": "…" reads as password: …), and
// written back as valid JSON; the text around the strings is scrubbed as it
// stands.
type redactWriter struct{ w io.Writer }

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(redactLine(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// jsonString matches a JSON string literal.
var jsonString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

func redactLine(p []byte) []byte {
	var out []byte
	prev, key := 0, ""
	for _, loc := range jsonString.FindAllIndex(p, -1) {
		between := string(p[prev:loc[0]])
		if strings.TrimSpace(between) != ":" {
			key = ""
		}
		out = append(out, detect.Redact(between)...)
		lit, text := redactJSONString(p[loc[0]:loc[1]], key)
		out = append(out, lit...)
		prev, key = loc[1], text
	}
	return append(out, detect.Redact(string(p[prev:]))...)
}

// redactJSONString scrubs the text a JSON string literal holds, read after
// its key when it is an object's value, and returns the literal and the
// text it holds. A literal that does not decode is scrubbed as it stands.
func redactJSONString(lit []byte, key string) ([]byte, string) {
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return []byte(detect.Redact(string(lit))), ""
	}
	red := detect.Redact(s)
	if key != "" {
		if kv, prefix := detect.Redact(key+": "+red), key+": "; strings.HasPrefix(kv, prefix) {
			red = kv[len(prefix):]
		}
	}
	if red == s {
		return lit, s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(red) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), s
}
