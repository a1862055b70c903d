package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	stdlog "log"
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
	"github.com/mnemo-bot/mnemo/tools"
)

// core is what every model-running command shares: the database, the memory
// store, the one tool registry and the agent.
type core struct {
	db       *db.DB
	memory   *memory.Store
	registry *tools.Registry
	model    llm.Model
	agent    *agent.Agent
	closers  []func()
}

func (c *core) Close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

func openDB(ctx context.Context, url string, log zerolog.Logger) (*db.DB, error) {
	d, err := db.Open(ctx, url, 0)
	if err != nil {
		return nil, err
	}
	n, err := d.Migrate(ctx)
	if err != nil {
		d.Close()
		return nil, err
	}
	if n > 0 {
		log.Info().Int("applied", n).Msg("migrations applied")
	}
	return d, nil
}

func newModel(cfg Config, model string) llm.Model {
	if cfg.Provider == "anthropic" {
		return llm.NewAnthropic(cfg.LLMKey, cfg.LLMBaseURL, model)
	}
	return llm.NewOpenAI(cfg.LLMKey, cfg.LLMBaseURL, model)
}

// buildCore wires the shared parts. Without a configured provider (the MCP
// server may run without one) memory review is deterministic only and there
// is no agent.
func buildCore(ctx context.Context, cfg Config, log zerolog.Logger) (*core, error) {
	d, err := openDB(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, err
	}
	c := &core{db: d, closers: []func(){d.Close}}
	opts := memory.Options{Logger: log}
	if cfg.Provider != "" {
		c.model = newModel(cfg, cfg.Model)
		judge := memory.ModelJudge{Model: c.model}
		opts.Reviewer, opts.Decider = judge, judge
	}
	c.memory = memory.New(d, opts)
	// The same registry `mnemo tools list` shows.
	reg, closeTools, err := newRegistry(c.memory, cfg.MCPConfig, os.LookupEnv, log)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.registry = reg
	c.closers = append(c.closers, closeTools)
	if c.model != nil {
		c.agent = agent.New(agent.Options{Model: c.model, Registry: c.registry, Recall: c.memory, Logger: log})
	}
	return c, nil
}

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := LoadConfig(getenv, Needs{Database: true, Slack: true, Model: true})
	if err != nil {
		if cfg.SlackBot == "" && cfg.SlackApp == "" {
			return fmt.Errorf("%w\n\n%s", err, SlackAppHelp)
		}
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	c, err := buildCore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()

	api := slack.New(cfg.SlackBot, slack.OptionAPIURL(cfg.SlackAPIURL), slack.OptionAppLevelToken(cfg.SlackApp))
	sm := socketmode.New(api, socketmode.OptionDebug(cfg.LogLevel == zerolog.DebugLevel), socketmode.OptionLog(stdlog.New(redactWriter{stderr}, "socketmode: ", 0)))
	learner, err := startLearning(ctx, c, log, stderr)
	if err != nil {
		return err
	}
	defer learner.Stop()
	runner := agent.NewRunner(c.db, c.agent, agent.RunnerOptions{Logger: log, AfterTurn: learner.EnqueueTx})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: sm, DB: c.db, Runner: runner, Memory: c.memory,
		Directory: slackapp.NewDirectory(api, cfg.Admins), Logger: log,
		SlashCommand: cfg.SlashCommand,
	})
	go sweep(ctx, c, log, time.Minute)
	log.Info().Str("version", version).Msg("mnemo serving")
	return app.Run(ctx)
}

// StaleTurnAge is how long a turn may stay running before the sweep calls
// it failed: well past any turn's deadline.
const StaleTurnAge = 10 * time.Minute

// sweep archives expired memories and fails turns a dead process left
// running, periodically.
func sweep(ctx context.Context, c *core, log zerolog.Logger, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := c.memory.SweepExpired(ctx); err != nil {
			log.Warn().Err(err).Msg("expiry sweep failed")
		} else if n > 0 {
			log.Info().Int64("archived", n).Msg("expired memories archived")
		}
		if n, err := c.db.Turns().FailStale(ctx, time.Now().Add(-StaleTurnAge)); err != nil {
			log.Warn().Err(err).Msg("stale turn sweep failed")
		} else if n > 0 {
			log.Warn().Int64("turns", n).Msg("turns left running by a stopped process marked failed")
		}
	}
}
