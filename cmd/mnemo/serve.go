package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"golang.org/x/sync/errgroup"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/periodic"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/ops"
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
	return openDBSized(ctx, url, 0, log)
}

// openDBSized opens the pool with at most maxConns connections (0: pgx's
// default) and migrates.
func openDBSized(ctx context.Context, url string, maxConns int32, log zerolog.Logger) (*db.DB, error) {
	d, err := db.Open(ctx, url, maxConns)
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
	return buildCoreWith(ctx, cfg, log, coreOptions{})
}

// coreOptions are what serve adds to the shared parts.
type coreOptions struct {
	maxConns int32        // the pool's size; 0 for pgx's default
	metrics  *ops.Metrics // counts model calls, tools, memory writes, recall
}

func buildCoreWith(ctx context.Context, cfg Config, log zerolog.Logger, o coreOptions) (*core, error) {
	d, err := openDBSized(ctx, cfg.DatabaseURL, o.maxConns, log)
	if err != nil {
		return nil, err
	}
	c := &core{db: d, closers: []func(){d.Close}}
	opts := memory.Options{Logger: log}
	if cfg.Provider != "" {
		c.model = o.metrics.Model(newModel(cfg, cfg.Model))
		judge := memory.ModelJudge{Model: c.model}
		opts.Reviewer, opts.Decider = judge, judge
	}
	if cfg.EmbeddingModel != "" {
		// Recall reranks its candidates by meaning; Anthropic has no
		// embeddings endpoint, so MNEMO_EMBEDDING_BASE_URL names one there.
		opts.Embedder = llm.NewEmbedder(cfg.LLMKey, cfg.EmbeddingBaseURL, cfg.EmbeddingModel, llm.WithLogger(log))
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
		ao := agent.Options{Model: c.model, Registry: c.registry, Recall: c.memory, Logger: log}
		if o.metrics != nil {
			ao.Observer = o.metrics
		}
		c.agent = agent.New(ao)
	}
	return c, nil
}

// serveConfig is what only serve reads, beside Config.
type serveConfig struct {
	HTTPAddr        string        // MNEMO_HTTP_ADDR: /healthz, /readyz, /metrics
	MaxTurns        int           // MNEMO_MAX_TURNS: turns this process runs at once
	ShutdownTimeout time.Duration // MNEMO_SHUTDOWN_TIMEOUT: the drain on SIGTERM
}

// loadServeConfig reads serve's own settings and returns every problem.
func loadServeConfig(getenv func(string) string) (serveConfig, []string) {
	c := serveConfig{HTTPAddr: getenv("MNEMO_HTTP_ADDR"), MaxTurns: 16, ShutdownTimeout: 20 * time.Second}
	var problems []string
	if c.HTTPAddr == "" {
		c.HTTPAddr = "127.0.0.1:9464"
	} else if _, port, err := net.SplitHostPort(c.HTTPAddr); err != nil || port == "" {
		problems = append(problems, fmt.Sprintf("MNEMO_HTTP_ADDR must be host:port, such as 127.0.0.1:9464, not %q", c.HTTPAddr))
	}
	if v := getenv("MNEMO_MAX_TURNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			problems = append(problems, fmt.Sprintf("MNEMO_MAX_TURNS must be a whole number from 1 to 1000, not %q", v))
		} else {
			c.MaxTurns = n
		}
	}
	if v := getenv("MNEMO_SHUTDOWN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			problems = append(problems, fmt.Sprintf("MNEMO_SHUTDOWN_TIMEOUT must be a duration such as 20s, not %q", v))
		} else {
			c.ShutdownTimeout = d
		}
	}
	return c, problems
}

// poolSize is serve's database pool: a connection for each turn it may
// run, one for each learning worker, and eight for River's notifier,
// producers and maintenance, the ack path's inbox writes and the health
// checks. The README's configuration table says the same.
func poolSize(maxTurns int) int32 { return int32(maxTurns + learningWorkers + 8) }

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := LoadConfig(getenv, Needs{Database: true, Slack: true, Model: true})
	sc, problems := loadServeConfig(getenv)
	if len(problems) > 0 {
		var ce *ConfigError
		if !errors.As(err, &ce) {
			ce = &ConfigError{}
		}
		ce.Problems = append(ce.Problems, problems...)
		err = ce
	}
	if err != nil {
		if cfg.SlackBot == "" && cfg.SlackApp == "" {
			return fmt.Errorf("%w\n\n%s", err, SlackAppHelp)
		}
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	metrics := ops.NewMetrics()
	c, err := buildCoreWith(ctx, cfg, log, coreOptions{maxConns: poolSize(sc.MaxTurns), metrics: metrics})
	if err != nil {
		return err
	}
	defer c.Close()

	// Every Web API request ends: a Slack that never answers fails the call
	// (retried within its budget) instead of holding a turn or a shutdown.
	api := slack.New(cfg.SlackBot, slack.OptionAPIURL(cfg.SlackAPIURL), slack.OptionAppLevelToken(cfg.SlackApp),
		slack.OptionHTTPClient(&http.Client{Timeout: slackHTTPTimeout}))
	sm := socketmode.New(api, socketmode.OptionDebug(cfg.LogLevel == zerolog.DebugLevel), socketmode.OptionLog(stdlog.New(redactWriter{stderr}, "socketmode: ", 0)))
	// The learning queue rides on the inbox's River client, which needs the
	// app (its handler), which needs the runner, whose after-turn hook
	// enqueues learning: the hook reads the queue once turns run.
	var learning *learn.Queue
	runner := agent.NewRunner(c.db, c.agent, agent.RunnerOptions{
		Logger: log, MaxConcurrent: sc.MaxTurns, Observer: metrics,
		AfterTurn: func(ctx context.Context, tx *db.Tx, turnID int64) error { return learning.EnqueueTx(ctx, tx, turnID) },
	})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: sm, DB: c.db, Runner: runner, Memory: c.memory,
		Directory: slackapp.NewDirectory(api, cfg.Admins), Logger: log,
		SlashCommand: cfg.SlashCommand, Observer: metrics,
	})
	app.OnFeedback(metrics.Feedback)
	learner := learn.NewLearner(c.db, c.memory, c.model, log)
	in, err := inbox.New(c.db, inbox.Options{
		Logger: log, Handler: app, MaxTurns: sc.MaxTurns,
		Register: func(w *river.Workers) error { return learn.Register(w, learner, learned(metrics)) },
		Queues:   map[string]int{river.QueueDefault: learningWorkers},
	})
	if err != nil {
		return err
	}
	learning = learn.Attach(in.Client())
	app.UseInbox(in)
	metrics.WatchInbox(func(ctx context.Context) (ops.InboxDepth, error) {
		d, err := in.Depth(ctx)
		return ops.InboxDepth{Arrived: d.Arrived, Available: d.Available, Running: d.Running, Waiting: d.Waiting, Oldest: d.Oldest}, err
	}, time.Now)

	srv, err := ops.Listen(sc.HTTPAddr, metrics, []ops.Check{
		{Name: "postgres", Check: c.db.Ping},
		{Name: "slack", Check: func(context.Context) error { return app.Connected() }},
		{Name: "queue", Check: func(context.Context) error { return in.Healthy() }},
	}, log)
	if err != nil {
		return err
	}
	// One owner for everything serve runs: the operator server, the socket,
	// the inbox's workers and mover, the sweeps and the Slack calls in the
	// background. The first to fail, or the signal, stops them all, and
	// shutdown joins them within MNEMO_SHUTDOWN_TIMEOUT.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		srv.Serve()
		return nil
	})
	start := func() error {
		if err := app.Authenticate(gctx); err != nil {
			return err
		}
		return in.Start(gctx)
	}
	if err := start(); err != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = g.Wait()
		return err
	}
	log.Info().Str("version", version).Str("http", srv.Addr()).Int("max_turns", sc.MaxTurns).Int32("db_pool", poolSize(sc.MaxTurns)).
		Dur("shutdown_timeout", sc.ShutdownTimeout).Msg("mnemo serving")

	g.Go(func() error {
		periodic.Run(gctx, time.Minute, sweepTimeout, func(ctx context.Context) { sweepExpired(ctx, c, log) })
		return nil
	})
	g.Go(func() error {
		if err := app.Run(gctx); err != nil {
			return fmt.Errorf("slack: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		return shutdown(in, app, srv, sc.ShutdownTimeout, log)
	})
	if err := g.Wait(); err != nil {
		return err
	}
	log.Info().Msg("mnemo stopped")
	return nil
}

// slackHTTPTimeout bounds one Slack Web API request; sweepTimeout one
// expiry sweep.
const (
	slackHTTPTimeout = 30 * time.Second
	sweepTimeout     = 30 * time.Second
)

// shutdown stops serve's parts in order, within timeout: the inbox drains
// the turns in flight (Run has stopped reading Slack), then the app's
// background Slack calls, which turns start too, are joined, then the
// operator server, which answered /healthz and /readyz until then.
func shutdown(in *inbox.Inbox, app *slackapp.App, srv *ops.Server, timeout time.Duration, log zerolog.Logger) error {
	deadline := time.Now().Add(timeout)
	// The last part of the budget is for the app's calls and the server.
	reserve := min(2*time.Second, timeout/5)
	log.Info().Dur("drain", timeout-reserve).Msg("stopped reading Slack; finishing the turns in flight")
	stopErr := in.Stop(timeout - reserve)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := app.Close(ctx); err != nil {
		// Reactions, titles, slash-command answers: nothing a turn needs.
		log.Warn().Err(err).Msg("background Slack calls cancelled at the shutdown deadline")
	}
	return errors.Join(stopErr, srv.Shutdown(ctx))
}

// sweepExpired archives expired memories.
func sweepExpired(ctx context.Context, c *core, log zerolog.Logger) {
	if n, err := c.memory.SweepExpired(ctx); err != nil {
		log.Warn().Err(err).Msg("expiry sweep failed")
	} else if n > 0 {
		log.Info().Int64("archived", n).Msg("expired memories archived")
	}
}
