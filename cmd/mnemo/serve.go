package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	stdlog "log"
	"net/http"
	"os"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"golang.org/x/sync/errgroup"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/embedding"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/periodic"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/lifecycle"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/ops"
	"github.com/mnemo-bot/mnemo/slackapp"
	"github.com/mnemo-bot/mnemo/tools"
	turnusage "github.com/mnemo-bot/mnemo/usage"
)

// core is what every model-running command shares: the database, the memory
// store, the one tool registry and the agent.
type core struct {
	db       *db.DB
	memory   *memory.Store
	registry *tools.Registry
	model    llm.Model
	agent    *agent.Agent
	// meter records each turn's model usage and enforces the budgets.
	meter *turnusage.Meter
	// vectors: the server has pgvector (hybrid recall with an embedding model).
	vectors bool
	closers []func()
}

func (c *core) Close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

// openDB opens the pool and checks that the schema is migrated; only
// `mnemo migrate` and serve change it.
func openDB(ctx context.Context, url string) (*db.DB, error) {
	return openDBSized(ctx, url, 0, nil)
}

// openDBSized opens the pool with at most maxConns connections (0: pgx's
// default). With a logger it migrates and logs what it applied (serve);
// without one it only checks that nothing is pending, so a read-only
// command never changes the schema.
func openDBSized(ctx context.Context, url string, maxConns int32, migrate *zerolog.Logger) (*db.DB, error) {
	d, err := db.Open(ctx, url, maxConns)
	if err != nil {
		return nil, err
	}
	if migrate == nil {
		if err := d.CheckMigrated(ctx); err != nil {
			d.Close()
			return nil, err
		}
		return d, nil
	}
	n, err := d.Migrate(ctx)
	if err != nil {
		d.Close()
		return nil, err
	}
	migrate.Info().Int("applied", n).Msg("database schema migrated")
	return d, nil
}

func newModel(cfg Config, model string, log zerolog.Logger) llm.Model {
	if cfg.Provider == "anthropic" {
		return llm.NewAnthropic(cfg.LLMKey, string(cfg.LLMBaseURL), model, llm.WithLogger(log))
	}
	return llm.NewOpenAI(cfg.LLMKey, string(cfg.LLMBaseURL), model, llm.WithLogger(log))
}

// buildCore wires the shared parts. Without a configured provider (the MCP
// server may run without one) the store has no model's review and there is
// no agent: mnemo mcp then refuses remember (mcpTools).
func buildCore(ctx context.Context, cfg Config, log zerolog.Logger) (*core, error) {
	return buildCoreWith(ctx, cfg, log, coreOptions{})
}

// coreOptions are what serve adds to the shared parts.
type coreOptions struct {
	maxConns int32        // the pool's size; 0 for pgx's default
	metrics  *ops.Metrics // counts model calls, tools, memory writes, recall
	migrate  bool         // apply pending migrations (serve); else require none
}

func buildCoreWith(ctx context.Context, cfg Config, log zerolog.Logger, o coreOptions) (*core, error) {
	var migrate *zerolog.Logger
	if o.migrate {
		migrate = &log
	}
	d, err := openDBSized(ctx, string(cfg.DatabaseURL), o.maxConns, migrate)
	if err != nil {
		return nil, err
	}
	c := &core{db: d, closers: []func(){d.Close}, meter: turnusage.NewMeter(d, cfg.Budgets(), log, nil)}
	opts := memory.Options{Logger: log}
	if cfg.Provider != "" {
		// Budgets outermost: a call a budget refuses is no model call.
		c.model = c.meter.Model(ops.Trace(o.metrics.Model(newModel(cfg, cfg.Model, log)), bool(cfg.TraceContent)))
		judge := memory.ModelJudge{Model: c.model}
		opts.Reviewer, opts.Decider = judge, judge
	}
	if cfg.EmbeddingModel != "" {
		// Recall by meaning; Anthropic has no embeddings endpoint, so
		// MNEMO_EMBEDDING_BASE_URL names one there. With pgvector, hybrid
		// recall over every memory, embedded in the background; without
		// it, the lexical candidates are reranked (said once, here).
		opts.Embedder = llm.NewEmbedder(cfg.EmbeddingKey, string(cfg.EmbeddingBaseURL), cfg.EmbeddingModel, llm.WithLogger(log))
		opts.EmbeddingModel = cfg.EmbeddingModel
		opts.QueryDeadline = time.Duration(cfg.EmbeddingDeadline)
		opts.OnVectorFallback = o.metrics.VectorFallback
		vec, err := d.HasVectors(ctx)
		if err != nil {
			c.Close()
			return nil, err
		}
		opts.Vectors = vec
		c.vectors = vec
		if vec {
			log.Info().Str("model", cfg.EmbeddingModel).Msg("recall: hybrid, lexical and by meaning (pgvector)")
		} else {
			log.Warn().Str("model", cfg.EmbeddingModel).Msg("recall: pgvector is not installed on the database server, so recall is lexical, reranked by meaning among its candidates; install pgvector and run mnemo migrate for recall by meaning over every memory")
		}
	}
	c.memory = memory.New(d, opts)
	// The same registry `mnemo tools list` shows.
	reg, closeTools, err := newRegistry(c.memory, string(cfg.MCPConfig), os.LookupEnv, log)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.registry = reg
	c.closers = append(c.closers, closeTools)
	if c.model != nil {
		ao := agent.Options{Model: c.model, Registry: c.registry, Recall: c.memory, Logger: log, ToolSteps: int(cfg.Budgets().TurnToolSteps)}
		if o.metrics != nil {
			ao.Observer = o.metrics
		}
		c.agent = agent.New(ao)
	}
	return c, nil
}

// indexer is the background embedding job's, when an embedding model is
// configured.
func (c *core) indexer(cfg Config, log zerolog.Logger) *embedding.Indexer {
	if cfg.EmbeddingModel == "" {
		return nil
	}
	return &embedding.Indexer{
		DB: c.db, Model: cfg.EmbeddingModel, Vectors: c.vectors, Logger: log,
		Embedder: llm.NewEmbedder(cfg.EmbeddingKey, string(cfg.EmbeddingBaseURL), cfg.EmbeddingModel, llm.WithLogger(log)),
	}
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
	cfg, err := LoadConfig(getenv, "serve")
	if err != nil {
		// Neither token set (a malformed one is not parsed into cfg).
		if getenv("SLACK_BOT_TOKEN") == "" && getenv("SLACK_APP_TOKEN") == "" {
			return fmt.Errorf("%w\n\n%s", err, SlackAppHelp)
		}
		return err
	}
	log := newLogger(stderr, cfg.LogLevel.Level())
	// What libraries write through the standard library's log is scrubbed
	// as serve's own lines are.
	prevLog := stdlog.Writer()
	stdlog.SetOutput(redactWriter{stderr})
	defer stdlog.SetOutput(prevLog)
	stopTracing, err := ops.StartTracing(ctx, getenv, version, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := ops.StopTracing(stopTracing); err != nil {
			log.Warn().Err(err).Msg("spans not all exported at shutdown")
		}
	}()
	metrics := ops.NewMetrics()
	c, err := buildCoreWith(ctx, cfg, log, coreOptions{maxConns: poolSize(int(cfg.MaxTurns)), metrics: metrics, migrate: true})
	if err != nil {
		return err
	}
	defer c.Close()

	// Every Web API request ends: a Slack that never answers fails the call
	// (retried within its budget) instead of holding a turn or a shutdown.
	newClient := func(token string) *slack.Client {
		return slack.New(token, slack.OptionAPIURL(string(cfg.SlackAPIURL)), slack.OptionAppLevelToken(string(cfg.SlackApp)),
			slack.OptionHTTPClient(&http.Client{Timeout: slackHTTPTimeout}))
	}
	// The socket's client has the app token; with SLACK_BOT_TOKEN it is
	// also that workspace's bot, and without one every workspace's bot is
	// its installation's (clients).
	api := newClient(string(cfg.SlackBot))
	var single *slack.Client
	if cfg.SlackBot != "" {
		single = api
	}
	clients, oauth, err := installations(cfg, c.db, newClient, log)
	if err != nil {
		return err
	}
	var sm *socketmode.Client
	if cfg.SlackMode == "socket" {
		sm = socketmode.New(api, socketmode.OptionDebug(cfg.LogLevel.Level() == zerolog.DebugLevel), socketmode.OptionLog(stdlog.New(redactWriter{stderr}, "socketmode: ", 0)))
	}
	// The learning queue rides on the inbox's River client, which needs the
	// app (its handler), which needs the runner, whose after-turn hook
	// enqueues learning: the hook reads the queue once turns run.
	var learning *learn.Queue
	runner := agent.NewRunner(c.db, c.agent, agent.RunnerOptions{
		Logger: log, MaxConcurrent: int(cfg.MaxTurns), Observer: metrics, BackfillMessages: int(cfg.BackfillMessages), Meter: c.meter,
		AfterTurn: func(ctx context.Context, tx *db.Tx, turnID int64) error { return learning.EnqueueTx(ctx, tx, turnID) },
	})
	app := slackapp.New(slackapp.Config{
		API: single, Socket: sm, Clients: clients, DB: c.db, Runner: runner, Memory: c.memory,
		Directory: slackapp.NewTeamDirectory(clients, cfg.Admins), Logger: log,
		SlashCommand: string(cfg.SlashCommand), Observer: metrics,
		Retention: cfg.Retention(), EraseDeletedUsers: bool(cfg.EraseDeletedUsers),
		OrgMemories: cfg.OrgMemories,
		Prices:      cfg.Prices.Prices, AdminOversight: bool(cfg.AdminOversight),
		SlackAPIURL: string(cfg.SlackAPIURL),
	})
	app.OnFeedback(metrics.Feedback)
	learner := learn.NewLearner(c.db, c.memory, c.model, log)
	in, err := inbox.New(c.db, inbox.Options{
		Logger: log, Handler: app, MaxTurns: int(cfg.MaxTurns),
		Register: func(w *river.Workers) error {
			if err := learn.Register(w, learner, learned(metrics)); err != nil {
				return err
			}
			if err := river.AddWorkerSafely(w, &lifecycle.Worker{Sweeper: lifecycle.Sweeper{DB: c.db, Retention: cfg.Retention(), Uninstalled: cfg.RetentionUninstalled(), Observer: metrics}, Logger: log}); err != nil {
				return err
			}
			if ix := c.indexer(cfg, log); ix != nil {
				return river.AddWorkerSafely(w, &embedding.Worker{Indexer: ix, OnRun: metrics.Embedded})
			}
			return nil
		},
		Queues: map[string]int{river.QueueDefault: learningWorkers},
	})
	if err != nil {
		return err
	}
	learning = learn.Attach(in.Client())
	// Retention runs as a River periodic job: the leader enqueues it, so
	// one replica sweeps, and a sweep cut short is retried.
	if _, err := in.Client().PeriodicJobs().AddSafely(lifecycle.Periodic()); err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	// Embeddings are written in the background, by River's leader's
	// periodic job: never on the write path.
	if c.indexer(cfg, log) != nil {
		if _, err := in.Client().PeriodicJobs().AddSafely(embedding.Periodic()); err != nil {
			return fmt.Errorf("embeddings: %w", err)
		}
	}
	app.UseInbox(in)
	metrics.WatchInbox(func(ctx context.Context) (ops.InboxDepth, error) {
		d, err := in.Depth(ctx)
		return ops.InboxDepth{Arrived: d.Arrived, Available: d.Available, Running: d.Running, Waiting: d.Waiting, Oldest: d.Oldest}, err
	}, time.Now)

	// In http mode Slack's routes get a server of their own, apart from
	// /metrics: an operator exposes /slack/* to the internet and keeps the
	// operator endpoints inside. Other routes of the same Slack app (the
	// OAuth install) are mounted on slackMux beside them.
	var slackSrv *ops.Server
	if cfg.SlackMode == "http" {
		slackMux := http.NewServeMux()
		app.Mount(slackMux, slackapp.HTTPOptions{SigningSecret: cfg.SigningSecret, Refused: metrics.SlackRequestRefused})
		if oauth != nil {
			mountInstall(slackMux, oauth)
		}
		slackMux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
		if slackSrv, err = ops.ListenHandler("MNEMO_SLACK_HTTP_ADDR", string(cfg.SlackHTTPAddr), slackMux, log); err != nil {
			return err
		}
	}
	srv, err := ops.Listen(string(cfg.HTTPAddr), metrics, []ops.Check{
		{Name: "postgres", Check: c.db.Ping},
		{Name: "slack", Check: func(context.Context) error { return app.Connected() }},
		{Name: "queue", Check: func(context.Context) error { return in.Healthy() }},
	}, log)
	if err != nil {
		if slackSrv != nil {
			_ = slackSrv.Shutdown(context.Background())
		}
		return err
	}
	if oauth != nil && slackSrv == nil {
		// In socket mode the operator server is the one HTTP listener:
		// put the install's two paths behind the public ingress.
		mountInstall(srv, oauth)
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
		if slackSrv != nil {
			_ = slackSrv.Shutdown(sctx)
		}
		_ = g.Wait()
		return err
	}
	// Slack's requests are taken once the inbox and the bot's identity are
	// ready; the listener was bound at start, so they waited in its queue.
	slackAddr := ""
	if slackSrv != nil {
		slackAddr = slackSrv.Addr()
		g.Go(func() error {
			slackSrv.Serve()
			return nil
		})
	}
	log.Info().Str("version", version).Str("http", srv.Addr()).Str("slack_mode", string(cfg.SlackMode)).Str("slack_http", slackAddr).Int("max_turns", int(cfg.MaxTurns)).Int32("db_pool", poolSize(int(cfg.MaxTurns))).
		Dur("shutdown_timeout", time.Duration(cfg.ShutdownTimeout)).Msg("mnemo serving")

	g.Go(func() error {
		// A workspace erased by `mnemo teams erase` is dropped from the
		// installations' cache as the erasure commits.
		clients.Watch(gctx, log)
		return nil
	})
	g.Go(func() error {
		embeddings := cfg.EmbeddingModel != ""
		periodic.Run(gctx, time.Minute, sweepTimeout, func(ctx context.Context) { sweepExpired(ctx, c, embeddings, log) })
		return nil
	})
	g.Go(func() error {
		// Run's error names its cause (a refused token, say) as it is.
		return app.Run(gctx)
	})
	g.Go(func() error {
		<-gctx.Done()
		return shutdown(in, app, srv, slackSrv, time.Duration(cfg.ShutdownTimeout), log)
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

// shutdown stops serve's parts in order, within timeout: Slack's HTTP
// server, in http mode, answers its requests in flight, the inbox drains
// the turns in flight (Run has stopped reading Slack), then the app's
// background Slack calls, which turns start too, are joined, then the
// operator server, which answered /healthz and /readyz until then.
func shutdown(in *inbox.Inbox, app *slackapp.App, srv, slackSrv *ops.Server, timeout time.Duration, log zerolog.Logger) error {
	deadline := time.Now().Add(timeout)
	// The last part of the budget is for the app's calls and the server.
	reserve := min(2*time.Second, timeout/5)
	var slackErr error
	if slackSrv != nil {
		// In http mode, Slack's server stops taking requests first and
		// answers those in flight (an ack waits for one inbox write); a
		// request it no longer takes is retried by Slack, to a replica
		// that is still up.
		sctx, cancel := context.WithTimeout(context.Background(), min(5*time.Second, (timeout-reserve)/2))
		slackErr = slackSrv.Shutdown(sctx)
		cancel()
	}
	log.Info().Dur("drain", time.Until(deadline)-reserve).Msg("stopped reading Slack; finishing the turns in flight")
	stopErr := in.Stop(time.Until(deadline) - reserve)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := app.Close(ctx); err != nil {
		// Reactions, titles, slash-command answers: nothing a turn needs.
		log.Warn().Err(err).Msg("background Slack calls cancelled at the shutdown deadline")
	}
	return errors.Join(slackErr, stopErr, srv.Shutdown(ctx))
}

// sweepExpired archives expired memories and, with no embedding model,
// empties the embedding job's queue, which then has no reader: what was
// written meanwhile is queued again by the job's first run when a model
// is configured (embedding.Indexer reads every memory with no embedding
// of its model).
func sweepExpired(ctx context.Context, c *core, embeddings bool, log zerolog.Logger) {
	if !embeddings {
		if _, err := c.db.Memories().ClearEmbedQueue(ctx); err != nil {
			log.Warn().Err(err).Msg("emptying the embedding queue failed")
		}
	}
	if n, err := c.memory.SweepExpired(ctx); err != nil {
		log.Warn().Err(err).Msg("expiry sweep failed")
	} else if n > 0 {
		log.Info().Int64("archived", n).Msg("expired memories archived")
	}
}
