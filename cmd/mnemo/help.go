package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

const usage = `usage: mnemo <command> [flags]

commands:
  serve           run the Slack bot (Socket Mode or HTTP); migrates first
  migrate         apply database migrations; migrate status, migrate down-to N
  chat            chat with mnemo in the terminal, no Slack needed
  mcp             serve mnemo's memory tools over MCP (stdio, or HTTP with --http)
  tools list      list the tool catalog: the memory tools and each MCP server's
  memories ...    list, search, forget, restore, history, export memories
  stats           print model usage per day, top channels and people
  turns show      show one turn: timeline, recall, tools, tokens, errors
  embeddings      status|backfill: recall by meaning's embeddings, and pgvector
  eval            run the memory workflow evals
  installs        list the workspace and organisation installations
  teams erase     erase everything of one workspace (admin)
  keys rotate     seal installed workspaces' tokens again under the current key
  version         print the version
  help [CMD|env]  this text, a command's help, or the environment variables

Run 'mnemo <command> -h' for a command's flags, and 'mnemo help env' for the
environment variables.
`

// errHelpShown ends a command whose help was asked for and printed.
var errHelpShown = errors.New("help shown")

// argsError is a command line mnemo can't make sense of; run prints it
// once, with where to find the command's usage, and exits 2.
type argsError struct {
	msg     string
	command string // e.g. "tools list", for "mnemo tools list -h"
}

func (e argsError) Error() string { return e.msg }

// usageError is an argsError of the command itself, for commands that
// parse their own flags.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// flagSet is a command's flags. Its errors are returned, not printed, so
// that run prints each once; -h, -help and --help print the usage to
// stdout.
type flagSet struct {
	*flag.FlagSet
	command string
	usage   string // the synopsis and what the command does
	stdout  io.Writer
}

func newFlagSet(command, usage string, stdout io.Writer) *flagSet {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, command: command, usage: usage, stdout: stdout}
}

// parse parses args and returns the positional arguments, refusing more
// than maxArgs of them (-1: any number, for a command with subcommands).
// Flags end at the first positional argument, as with the flag package.
func (f *flagSet) parse(args []string, maxArgs int) ([]string, error) {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(f.stdout)
			return nil, errHelpShown
		}
		return nil, argsError{err.Error(), f.command}
	}
	if maxArgs >= 0 && f.NArg() > maxArgs {
		return nil, argsError{fmt.Sprintf("unexpected argument %q", f.Arg(maxArgs)), f.command}
	}
	return f.Args(), nil
}

func (f *flagSet) printUsage(w io.Writer) {
	fmt.Fprint(w, f.usage)
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nflags:\n")
		f.SetOutput(w)
		f.PrintDefaults()
		f.SetOutput(io.Discard)
	}
}

// subcommand splits args into a subcommand, one of subs, and its
// arguments, after handling the parent's own -h. def is used when args
// name no subcommand; "" makes that an error.
func subcommand(parent *flagSet, args []string, def string, subs ...string) (string, []string, error) {
	rest, err := parent.parse(args, -1)
	if err != nil {
		return "", nil, err
	}
	if len(rest) == 0 {
		if def == "" {
			synopsis, _, _ := strings.Cut(parent.usage, "\n")
			return "", nil, argsError{fmt.Sprintf("missing subcommand (%s)", synopsis), parent.command}
		}
		return def, nil, nil
	}
	for _, s := range subs {
		if rest[0] == s {
			return s, rest[1:], nil
		}
	}
	return "", nil, argsError{fmt.Sprintf("unknown subcommand %q; expected %s", rest[0], strings.Join(subs, ", ")), parent.command}
}

// writeEnvHelp prints Variables: each name with the commands that need it
// or its default, and what it means.
func writeEnvHelp(w io.Writer) {
	fmt.Fprint(w, "environment:\n")
	for _, v := range Variables {
		var notes []string
		if len(v.Required) > 0 {
			notes = append(notes, "required by "+strings.Join(v.Required, ", "))
		}
		if d := v.DefaultText(); d != "" {
			notes = append(notes, "default: "+d)
		}
		fmt.Fprintf(w, "  %s", v.Name)
		if len(notes) > 0 {
			fmt.Fprintf(w, "  (%s)", strings.Join(notes, "; "))
		}
		fmt.Fprintf(w, "\n      %s\n", v.Meaning)
	}
}

const serveUsage = `usage: mnemo serve

Runs the Slack bot over Socket Mode or HTTP (MNEMO_SLACK_MODE): it applies pending migrations, then
answers mentions and DMs until SIGTERM or Ctrl-C. It reads its settings from
the environment, checked all at once before it starts:

`

func serveHelp() string {
	var b strings.Builder
	b.WriteString(serveUsage)
	writeEnvHelp(&b)
	return b.String()
}
