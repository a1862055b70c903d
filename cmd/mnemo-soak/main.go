// Command mnemo-soak is `make soak`: it drives the real `mnemo serve`, with
// the fake Slack and model and a PostgreSQL server of its own, at a steady
// rate of mentions, thread follow-ups, DMs, slash commands and remembers,
// kills mnemo (kill -9) at a third of the run and restarts PostgreSQL at two
// thirds, then reports what was answered once, twice or never, and the
// process's resources. It exits 1 on a post lost or doubled, or on growth
// that does not level off. Its own binary, so the fakes never link into mnemo.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mnemo-bot/mnemo/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mnemo-soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mnemo := fs.String("mnemo", "bin/mnemo", "the mnemo binary")
	duration := fs.Duration("duration", 10*time.Minute, "how long traffic is sent (SOAK_DURATION in make soak)")
	every := fs.Duration("every", 500*time.Millisecond, "one post or slash command per this")
	logPath := fs.String("log", "bench/out/soak-serve.log", "where mnemo serve's log goes")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := os.Stat(*mnemo); err != nil {
		fmt.Fprintf(stderr, "mnemo-soak: %v (run make build)\n", err)
		return 2
	}
	if err := os.MkdirAll(filepath.Dir(*logPath), 0o755); err != nil {
		fmt.Fprintf(stderr, "mnemo-soak: %v\n", err)
		return 1
	}
	logs, err := os.Create(*logPath)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-soak: %v\n", err)
		return 1
	}
	defer logs.Close()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	logf("mnemo-soak: %s of traffic, one post every %s; mnemo's log: %s", *duration, *every, *logPath)
	rep, err := bench.Soak(ctx, bench.SoakOptions{Mnemo: *mnemo, Duration: *duration, Every: *every, Logf: logf}, logs)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-soak: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, rep.String())
	if rep.Failed() != "" {
		return 1
	}
	return 0
}
