package learn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/mnemo-bot/mnemo/db"
)

// Queue runs learning jobs with River in mnemo's database, so they survive
// restarts and run on any replica.
type Queue struct {
	client *river.Client[pgx.Tx]
	owned  bool // false when another owner starts and stops the client
}

// QueueOptions configures a Queue.
type QueueOptions struct {
	Workers   int       // concurrent jobs; 0 means insert only, no work
	LogOutput io.Writer // River's own warnings
	// FetchPollInterval is how often to look for jobs when LISTEN misses
	// them; tests shorten it.
	FetchPollInterval time.Duration
	// OnResult, if set, is told what each job decided, or why it failed.
	// It must return at once.
	OnResult func(Result, error)
}

// NewQueue builds a queue. Call Start to work jobs.
func NewQueue(d *db.DB, learner *Learner, o QueueOptions) (*Queue, error) {
	out := o.LogOutput
	if out == nil {
		out = io.Discard
	}
	cfg := &river.Config{Logger: slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if o.Workers > 0 {
		workers := river.NewWorkers()
		if err := river.AddWorkerSafely(workers, &observedWorker{learner: learner, onResult: o.OnResult}); err != nil {
			return nil, fmt.Errorf("learn queue: %w", err)
		}
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}}
		cfg.FetchPollInterval = o.FetchPollInterval
		if cfg.FetchPollInterval > 0 {
			cfg.FetchCooldown = min(cfg.FetchPollInterval, 100*time.Millisecond)
		}
	}
	c, err := river.NewClient(riverpgxv5.New(d.Pool()), cfg)
	if err != nil {
		return nil, fmt.Errorf("learn queue: %w", err)
	}
	return &Queue{client: c, owned: true}, nil
}

// Register adds learning's worker to a worker set whose River client
// someone else owns (serve shares the inbox's client), and tells onResult,
// if set, what each job decided.
func Register(workers *river.Workers, learner *Learner, onResult func(Result, error)) error {
	if err := river.AddWorkerSafely(workers, &observedWorker{learner: learner, onResult: onResult}); err != nil {
		return fmt.Errorf("learn queue: %w", err)
	}
	return nil
}

// Attach returns a Queue that enqueues through a client whose owner starts
// and stops it; its Start and Stop do nothing.
func Attach(client *river.Client[pgx.Tx]) *Queue { return &Queue{client: client} }

// Start works jobs until Stop.
func (q *Queue) Start(ctx context.Context) error {
	if !q.owned {
		return nil
	}
	return q.client.Start(ctx)
}

// Stop waits for jobs in flight, up to a bound.
func (q *Queue) Stop() {
	if !q.owned {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = q.client.Stop(ctx)
}

// observedWorker is Worker, telling onResult what each job decided.
type observedWorker struct {
	river.WorkerDefaults[Args]
	learner  *Learner
	onResult func(Result, error)
}

func (w *observedWorker) Work(ctx context.Context, job *river.Job[Args]) error {
	res, err := w.learner.Learn(ctx, job.Args.TurnID)
	w.learner.logFailure(job, err)
	if w.onResult != nil {
		w.onResult(res, err)
	}
	return err
}

func (w *observedWorker) Timeout(job *river.Job[Args]) time.Duration {
	return (&Worker{}).Timeout(job)
}

// EnqueueTx enqueues learning for a turn in the caller's transaction, so the
// job exists exactly when the turn is recorded as delivered. It is the
// turn runner's after-turn hook.
func (q *Queue) EnqueueTx(ctx context.Context, tx *db.Tx, turnID int64) error {
	if _, err := q.client.InsertTx(ctx, tx.Pgx(), Args{TurnID: turnID}, nil); err != nil {
		return fmt.Errorf("learn enqueue: %w", err)
	}
	return nil
}
