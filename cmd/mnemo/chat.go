package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/provenance"
)

const chatUsage = `usage: mnemo chat [--user U] [--team T]

Talks to mnemo in the terminal through the same agent, tools and memory store
as the Slack bot, under a local identity; each session is its own thread.
`

func cmdChat(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, _ <-chan os.Signal) error {
	fs := newFlagSet("chat", chatUsage, stdout)
	user := fs.String("user", "ULOCAL", "the local identity's user id")
	team := fs.String("team", "TLOCAL", "the local identity's team id")
	if _, err := fs.parse(args, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, commandNeeds["chat"])
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

	actor := provenance.Actor{Kind: provenance.KindUser, Team: *team, ID: *user, Name: cfg.ChatName}
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
