package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
)

// TurnsQueue is the River queue of the inbox's jobs.
const TurnsQueue = "turns"

// Attempts is how many times a post's turn is tried before its author is
// told it failed. Its job has two more attempts, to tell them.
const Attempts = 3

// RetryAfter is the default wait after each failed attempt: short at first,
// since someone is waiting in Slack, then longer for the attempts that only
// tell them it failed.
var RetryAfter = []time.Duration{5 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute}

// Post is one Slack post that may need a turn, as the inbox keeps it: the
// args of its River job. It is unique by (team, channel, ts), and the job
// it replaces, if any.
type Post struct {
	Team        string `json:"team" river:"unique"`
	Channel     string `json:"channel" river:"unique"`
	TS          string `json:"ts" river:"unique"`
	ThreadTS    string `json:"thread_ts,omitempty"`
	ChannelType string `json:"channel_type,omitempty"`
	User        string `json:"user"`
	Text        string `json:"text"`
	// Mention is true for an app_mention; other posts are DMs or messages
	// in threads, which may or may not be for the bot.
	Mention    bool   `json:"mention,omitempty"`
	EnvelopeID string `json:"envelope_id,omitempty"`
	EventID    string `json:"event_id,omitempty"`
	// Takeover is the job this one replaces: one a process that died left
	// running (see Inbox.rescue), 0 for a post's first job. It is part of
	// the unique key, so the replacement is not taken for a duplicate.
	Takeover int64 `json:"takeover,omitempty" river:"unique"`
	// Prior counts the attempts the jobs this one replaces made.
	Prior int `json:"prior,omitempty"`
	// Trace is the W3C traceparent of the event's arrival, so that the
	// move and the turn are spans of its trace ("" when not traced).
	Trace string `json:"trace,omitempty"`
}

// Kind names the job in River.
func (Post) Kind() string { return "mnemo_turn" }

// InsertOpts puts the job in the turns queue, unique by post in every state,
// so a post answered (or given up on) is never taken in again while River
// keeps its job (a day for completed jobs, a week for discarded ones; Slack
// stops retrying within minutes).
func (p Post) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue:       TurnsQueue,
		MaxAttempts: Attempts + 2 - p.Prior,
		UniqueOpts:  river.UniqueOpts{ByArgs: true, ByState: rivertype.JobStates()},
	}
}

// Handler is what the inbox runs for a post: the front end's side of it.
type Handler interface {
	// Accept takes a post in as soon as its job runs, before its thread is
	// free: it decides whether the post needs a turn and, if it does,
	// records the turn, logs the post and takes the thread's lease the
	// claim names (in the same round trip as its own writes, or with
	// Claim.Acquire). It may be called several times for a post.
	Accept(ctx context.Context, p Post, c Claim) (Accepted, error)
	// Turn runs the post's turn while the job holds its thread; a is what
	// Accept returned. An error means the turn did not finish and is tried
	// again.
	Turn(ctx context.Context, p Post, a Accepted) error
	// GiveUp tells the post's author, in its thread, that the request failed
	// and can be asked again; cause is the last attempt's error. An error
	// means they were not told; it is tried again.
	GiveUp(ctx context.Context, p Post, cause error) error
}

// Claim is the thread's lease a post's job asks for, until now+TTL; the
// inbox renews it while the turn runs and releases it after.
type Claim struct {
	Lease db.Lease
	TTL   time.Duration
	db    *db.DB
}

// Acquire takes the claimed lease on its own, for a handler that writes
// nothing with it (see db.Leases.Acquire).
func (c Claim) Acquire(ctx context.Context) (bool, error) {
	// A lease lost to a crash of the database is taken again by the job's
	// next run; its commit need not wait for the disk.
	var ok bool
	err := c.db.InTxRelaxed(ctx, func(tx *db.Tx) error {
		var err error
		ok, err = tx.Leases().Acquire(ctx, c.Lease, c.TTL)
		return err
	})
	return ok, err
}

// Accepted is what Accept did with a post.
type Accepted struct {
	// Needed is true when the post needs a turn.
	Needed bool
	// Leased is true when its job took the thread's lease; false with
	// Needed means the thread is busy, and the job waits for it.
	Leased bool
	// State is the handler's own, handed back to Turn.
	State any
}

// Options configures an Inbox.
type Options struct {
	Logger zerolog.Logger
	// Handler works the posts. Without one the inbox only takes posts in,
	// and works no job.
	Handler Handler
	// MaxTurns bounds the turns this process runs at once. Default 16.
	MaxTurns int
	// TurnTimeout bounds one attempt at a turn: the model's deadline, Slack's
	// retry budget and the database calls around them. Default 4 minutes.
	TurnTimeout time.Duration
	// LeaseTTL is how long a thread's lease outlives its holder's last
	// renewal, so how soon a turn left by a dead process runs again.
	// Default 20 seconds.
	LeaseTTL time.Duration
	// Register adds other job kinds' workers to the shared client, and
	// Queues names their queues with their worker counts.
	Register func(*river.Workers) error
	Queues   map[string]int
	// RetryAfter is the wait after each failed attempt, the last repeated.
	// Default RetryAfter.
	RetryAfter []time.Duration
	// FetchPollInterval is how often River looks for jobs when no
	// notification came. Default 1 second.
	FetchPollInterval time.Duration
	// Middleware is River's, around every job the client works (a test
	// marks the turns' contexts with it).
	Middleware []rivertype.Middleware
	Now        func() time.Time
}

// River notifies an insert, and fetches, at most once per FetchCooldown
// (100 ms by default); an insert whose notification was held back waits
// for the next poll. Someone is waiting on every post, so the turns queue
// fetches within 2 ms of a notification and polls every 100 ms: measured
// by `make bench`, River's defaults put a median 98 ms, and a p95 of 960 ms,
// between a post's ack and its turn. A fetch is one indexed query.
const (
	fetchCooldown     = 2 * time.Millisecond
	turnsPollInterval = 100 * time.Millisecond
)

// Inbox is the durable inbox and the process's River client. Build it with
// New, then Start it; Stop drains it.
type Inbox struct {
	client  *river.Client[pgx.Tx]
	db      *db.DB
	log     zerolog.Logger
	handler Handler
	o       Options
	health  *health
	// works is true when River works jobs here (a handler or registered
	// workers); an inbox that only takes posts in still moves them.
	works bool
	// wake tells the mover a post arrived; it holds one wake-up, which is
	// enough: the mover moves every arrival it finds.
	wake chan struct{}

	mu      sync.Mutex
	started bool
	cancel  context.CancelFunc
	loops   sync.WaitGroup
}

// New builds an inbox over d's pool.
func New(d *db.DB, o Options) (*Inbox, error) {
	if o.MaxTurns <= 0 {
		o.MaxTurns = 16
	}
	if o.TurnTimeout <= 0 {
		o.TurnTimeout = 4 * time.Minute
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 20 * time.Second
	}
	if o.FetchPollInterval <= 0 {
		o.FetchPollInterval = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(o.RetryAfter) == 0 {
		o.RetryAfter = RetryAfter
	}
	i := &Inbox{db: d, log: o.Logger, handler: o.Handler, o: o, wake: make(chan struct{}, 1)}
	i.health = newHealth(o.Logger, o.Now)
	cfg := &river.Config{
		Logger:       slog.New(i.health.slogHandler()),
		ErrorHandler: errorHandler{log: o.Logger},
		// The leases hand back a dead process's turns within LeaseTTL; this
		// is River's own rescue, for any job that held no lease.
		RescueStuckJobsAfter: o.TurnTimeout + time.Minute,
		Middleware:           o.Middleware,
	}
	i.works = o.Handler != nil || o.Register != nil
	if i.works {
		workers := river.NewWorkers()
		cfg.Queues = map[string]river.QueueConfig{}
		if o.Handler != nil {
			if err := river.AddWorkerSafely(workers, &worker{in: i}); err != nil {
				return nil, fmt.Errorf("inbox: %w", err)
			}
			// A turn's post must not wait for a poll: see fetchCooldown.
			cfg.Queues[TurnsQueue] = river.QueueConfig{MaxWorkers: o.MaxTurns, FetchPollInterval: min(o.FetchPollInterval, turnsPollInterval)}
		}
		if o.Register != nil {
			if err := o.Register(workers); err != nil {
				return nil, fmt.Errorf("inbox: %w", err)
			}
		}
		for q, n := range o.Queues {
			cfg.Queues[q] = river.QueueConfig{MaxWorkers: n}
		}
		cfg.Workers = workers
		cfg.FetchPollInterval = o.FetchPollInterval
		cfg.FetchCooldown = min(o.FetchPollInterval, fetchCooldown)
	}
	c, err := river.NewClient(riverpgxv5.New(d.Pool()), cfg)
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	i.client = c
	return i, nil
}

// Client is the River client, for other job kinds to insert their jobs.
func (i *Inbox) Client() *river.Client[pgx.Tx] { return i.client }

// Enqueue writes a post to the inbox: one INSERT, committed on its own,
// which is all an ack waits for. The mover then takes it into River. A post
// already there (waiting to be moved, or moved within db.KeepMoved) is not
// written again: duplicate is true. An error means the post is not in the
// inbox.
func (i *Inbox) Enqueue(ctx context.Context, p Post) (duplicate bool, err error) {
	args, err := json.Marshal(p)
	if err != nil {
		return false, fmt.Errorf("inbox: %w", err)
	}
	duplicate, err = i.db.Inbox().Arrive(ctx, db.Arrival{Team: p.Team, Channel: p.Channel, TS: p.TS, Args: args})
	if err != nil {
		return false, fmt.Errorf("inbox: %w", err)
	}
	if !duplicate {
		select {
		case i.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	return duplicate, nil
}

// Start works jobs until Stop: turns, the jobs Options.Register added, and
// the reaping of leases a dead process left; and it moves posts into River
// as they arrive, starting with any a stopped process left. An inbox with
// no workers only moves posts. ctx only bounds the start.
func (i *Inbox) Start(ctx context.Context) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	// The client must outlive the caller's context: a shutdown signal ends
	// that at once, and Stop drains the turns in flight first.
	if i.works {
		if err := i.client.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("inbox: start: %w", err)
		}
	}
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	i.cancel, i.started = cancel, true
	i.health.started()
	i.loops.Add(2)
	go func() { defer i.loops.Done(); i.probe(loopCtx) }()
	go func() { defer i.loops.Done(); i.move(loopCtx) }()
	if i.handler != nil {
		i.loops.Add(1)
		go func() { defer i.loops.Done(); i.reap(loopCtx) }()
	}
	return nil
}

// cancelGrace bounds the wait for cancelled turns to return; cancelFloor is
// the least they are given, whatever the drain.
const (
	cancelGrace = 5 * time.Second
	cancelFloor = 500 * time.Millisecond
)

// Stop stops moving posts and taking jobs, and gives the jobs in flight
// most of drain to finish; then it cancels them, and they go back to the
// inbox, for another replica or the next start. It returns within drain
// (or cancelFloor, if longer; a cancelled job that ignores its context
// aside), and nil when every job finished or went back.
func (i *Inbox) Stop(drain time.Duration) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.started {
		return nil
	}
	deadline := time.Now().Add(drain)
	i.started = false
	i.cancel()
	i.loops.Wait()
	i.health.stopping()
	// A post that arrived as the mover stopped is moved now, so another
	// replica can work it; one that can't be is safe where it is, and moved
	// by the next start or another replica's sweep.
	mctx, mcancel := context.WithTimeout(context.Background(), min(drain/4, moveOnStop))
	i.moveArrivals(mctx)
	mcancel()
	if !i.works {
		return nil
	}
	// The turns get the drain, less the grace their cancellation needs.
	grace := min(cancelGrace, drain/4)
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-grace))
	defer cancel()
	err := i.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		i.log.Warn().Dur("drain", drain).Msg("turns still running at the shutdown deadline; cancelling them, they go back to the inbox")
		ctx, cancel := context.WithDeadline(context.Background(), later(deadline, time.Now().Add(cancelFloor)))
		defer cancel()
		err = i.client.StopAndCancel(ctx)
	}
	if err != nil {
		return fmt.Errorf("inbox: stop: %w", err)
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Depth counts the posts in the inbox, by where they are, arrivals not
// yet moved into River included.
func (i *Inbox) Depth(ctx context.Context) (db.InboxDepth, error) {
	return i.db.Inbox().Depth(ctx, TurnsQueue)
}

// Healthy returns nil while the inbox works: started, River able to read
// its table and not reporting errors, and posts moving into River (none
// failing to move, none waiting long). It never blocks.
func (i *Inbox) Healthy() error { return i.health.err() }

// errorHandler logs a job's failed attempt once, with its job and attempt;
// the inbox decides what follows (a retry, or telling the person).
type errorHandler struct{ log zerolog.Logger }

func (h errorHandler) HandleError(_ context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	h.log.Warn().Err(err).Str("kind", job.Kind).Int64("job", job.ID).Int("attempt", job.Attempt).Int("max_attempts", job.MaxAttempts).Msg("job attempt failed")
	return nil
}

func (h errorHandler) HandlePanic(_ context.Context, job *rivertype.JobRow, v any, trace string) *river.ErrorHandlerResult {
	h.log.Error().Str("kind", job.Kind).Int64("job", job.ID).Int("attempt", job.Attempt).Interface("panic", v).Str("trace", trace).Msg("job panicked")
	return nil
}
