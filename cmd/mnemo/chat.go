package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/provenance"
)

func cmdChat(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.String("user", "ULOCAL", "the local identity's user id")
	team := fs.String("team", "TLOCAL", "the local identity's team id")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := LoadConfig(getenv, Needs{Database: true, Model: true})
	if err != nil {
		return err
	}
	log := newLogger(stderr, max(cfg.LogLevel, zerolog.WarnLevel)) // the terminal is the conversation
	c, err := buildCore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	learner, err := startLearning(ctx, c, log, stderr)
	if err != nil {
		return err
	}
	defer learner.Stop()

	name := getenv("USER")
	if name == "" {
		name = "you"
	}
	actor := provenance.Actor{Kind: provenance.KindUser, Team: *team, ID: *user, Name: name}
	runner := agent.NewRunner(c.db, c.agent, agent.RunnerOptions{Logger: log, AfterTurn: learner.EnqueueTx})
	s := agent.NewLocalSession(runner, actor, nil)
	fmt.Fprintf(stdout, "mnemo chat (thread %s). Type /exit or press Ctrl-D to leave.\n", s.SourceKey())
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 64*1024), 1<<20)
	for {
		fmt.Fprint(stdout, "you> ")
		if !in.Scan() {
			fmt.Fprintln(stdout)
			return in.Err()
		}
		text := strings.TrimSpace(in.Text())
		switch {
		case text == "":
			continue
		case text == "/exit" || text == "/quit":
			return nil
		}
		reply, err := s.Say(ctx, text)
		if err != nil {
			fmt.Fprintf(stdout, "mnemo> (%v)\n", err)
			continue
		}
		fmt.Fprintf(stdout, "mnemo> %s\n", reply)
	}
}
