// Package embedding writes memories' embeddings in the background (issue
// 31): a River job reads the memories of its queue (memory_embed_queue,
// which the database's triggers fill as memories are written, restored or
// changed; and, as the job starts, every active memory with no embedding
// of the configured model, so that changing MNEMO_EMBEDDING_MODEL redoes
// them all), embeds their content and cues in batches through the
// OpenAI-compatible embedder, and stores each with its model and
// dimension: as halfvec with pgvector, else as real[]. Nothing runs on
// the write path, inside a transaction or under a lock: the rows are
// read, embedded with no transaction open, and written in one statement
// that skips any memory archived or changed meanwhile.
package embedding

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/llm"
)

// Batch is how many memories one embeddings request carries.
const Batch = 64

// RequestTimeout bounds one embeddings request, its retries included.
const RequestTimeout = 2 * time.Minute

// Indexer embeds what is pending.
type Indexer struct {
	DB       *db.DB
	Embedder llm.Embedder
	Model    string
	// Vectors stores halfvec and keeps the HNSW index (pgvector present).
	Vectors bool
	Logger  zerolog.Logger
	// Batch overrides Batch.
	Batch int

	// requeued: the first run queued what has no embedding of Model.
	mu       sync.Mutex
	requeued bool
}

// requeue queues, once per Indexer, every active memory with no embedding
// of the model (after the model changed, or pgvector was installed). It
// says whether this was that once.
func (x *Indexer) requeue(ctx context.Context) (bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.requeued {
		return false, nil
	}
	n, err := x.DB.Memories().Requeue(ctx, x.Model, x.Vectors)
	if err != nil {
		return false, err
	}
	if n > 0 {
		x.Logger.Info().Int64("memories", n).Str("model", x.Model).Msg("embeddings: queued the memories with no embedding of the model")
	}
	x.requeued = true
	return true, nil
}

// Progress is how far a run is: memories embedded so far, and left.
type Progress struct{ Done, Left int64 }

// Run embeds pending memories until none is left or ctx ends, telling
// progress (if set) after each batch. It returns how many it embedded.
func (x *Indexer) Run(ctx context.Context, progress func(Progress)) (int64, error) {
	batch := x.Batch
	if batch <= 0 {
		batch = Batch
	}
	first, err := x.requeue(ctx)
	if err != nil {
		return 0, err
	}
	if first && x.Vectors {
		// Each indexed dimension's indexes, as this version has them
		// (the public memories' one came later than the first).
		dims, err := x.DB.VectorIndexDims(ctx)
		if err != nil {
			return 0, err
		}
		for _, d := range dims {
			if err := x.DB.EnsureVectorIndex(ctx, d); err != nil {
				return 0, err
			}
		}
	}
	// What is left is told from the queue's length at the start, less what
	// was done: counting the queue after every batch would read it whole
	// each time.
	var queued int64
	if progress != nil {
		st, err := x.DB.Memories().EmbedQueueLength(ctx)
		if err != nil {
			return 0, err
		}
		queued = st
	}
	var done int64
	indexed := map[int]bool{}
	for ctx.Err() == nil {
		todo, err := x.DB.Memories().EmbedPending(ctx, batch)
		if err != nil {
			return done, err
		}
		if len(todo) == 0 {
			return done, nil
		}
		texts := make([]string, len(todo))
		for i, t := range todo {
			texts[i] = t.Text
		}
		ectx, cancel := context.WithTimeout(ctx, RequestTimeout)
		vecs, err := x.Embedder.Embed(ectx, texts)
		cancel()
		if err != nil {
			return done, fmt.Errorf("embedding %d memories: %w", len(todo), err)
		}
		if len(vecs) != len(todo) {
			return done, fmt.Errorf("embedding: asked for %d vectors, got %d", len(todo), len(vecs))
		}
		es := make([]db.Embedded, len(todo))
		for i, t := range todo {
			es[i] = db.Embedded{ID: t.ID, Text: t.Text, Vec: vecs[i]}
			if d := len(vecs[i]); x.Vectors && !indexed[d] {
				// The index first, while its dimension has few rows: later
				// embeddings are added to it as they are written.
				if err := x.DB.EnsureVectorIndex(ctx, d); err != nil {
					return done, err
				}
				indexed[d] = true
			}
		}
		n, err := x.DB.Memories().StoreEmbeddings(ctx, x.Model, x.Vectors, es)
		if err != nil {
			return done, err
		}
		done += n
		if n == 0 {
			// Every one was archived or changed meanwhile; they leave the
			// pending set by themselves. Stop rather than spin.
			return done, nil
		}
		if progress != nil {
			progress(Progress{Done: done, Left: max(queued-done, 0)})
		}
	}
	return done, ctx.Err()
}

// Args is the embedding job. It carries nothing: what is pending is read
// from the table.
type Args struct{}

// Kind names the job in River.
func (Args) Kind() string { return "mnemo_embed" }

// InsertOpts: one job at a time, however often it is asked for (a second
// would embed the same rows); a failure (429s past the embedder's own
// retries included) is retried with River's backoff.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}}
}

// Every is how often the job looks for memories to embed.
const Every = 10 * time.Second

// Periodic is the River periodic job that embeds what is pending every
// Every, and as the client starts. River's leader enqueues it.
func Periodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(Every), func() (river.JobArgs, *river.InsertOpts) {
		return Args{}, nil
	}, &river.PeriodicJobOpts{ID: "mnemo_embed", RunOnStart: true})
}

// Worker runs the job.
type Worker struct {
	river.WorkerDefaults[Args]
	Indexer *Indexer
	// OnRun, if set, is told what each run embedded and its error.
	OnRun func(n int64, err error)
}

// Work embeds until nothing is pending.
func (w *Worker) Work(ctx context.Context, _ *river.Job[Args]) error {
	n, err := w.Indexer.Run(ctx, nil)
	if w.OnRun != nil {
		w.OnRun(n, err)
	}
	if n > 0 || err != nil {
		ev := w.Indexer.Logger.Info()
		if err != nil {
			ev = w.Indexer.Logger.Warn().Err(err)
		}
		ev.Int64("embedded", n).Str("model", w.Indexer.Model).Msg("embeddings")
	}
	return err
}

// Timeout bounds one run (a backfill of many memories takes several).
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 30 * time.Minute }
