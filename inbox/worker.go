package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/periodic"
	"github.com/mnemo-bot/mnemo/threads"
)

// worker runs the inbox's jobs.
type worker struct {
	river.WorkerDefaults[Post]
	in *Inbox
}

// Timeout bounds one attempt; River cancels it then.
func (w *worker) Timeout(*river.Job[Post]) time.Duration { return w.in.o.TurnTimeout }

// NextRetry schedules the attempt after a failed one.
func (w *worker) NextRetry(job *river.Job[Post]) time.Time {
	waits := w.in.o.RetryAfter
	return w.in.o.Now().Add(waits[min(max(attempt(job)-1, 0), len(waits)-1)])
}

func (w *worker) Work(ctx context.Context, job *river.Job[Post]) error {
	return w.in.work(ctx, job)
}

// errLeaseLost cancels a turn whose thread was taken from it: its lease
// expired (its renewals failed for LeaseTTL) and another replica reaped it.
var errLeaseLost = errors.New("the thread's lease was lost")

// busyWait is how long a post waits before asking for its busy thread again.
const busyWait = time.Second

func (i *Inbox) work(ctx context.Context, job *river.Job[Post]) error {
	p := job.Args
	ctx, span := tracer.Start(p.traceContext(ctx), "inbox.job", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		attribute.Int64("mnemo.job.id", job.ID), attribute.Int("mnemo.job.attempt", attempt(job)),
		attribute.Float64("mnemo.job.wait_seconds", time.Since(job.CreatedAt).Seconds())))
	defer span.End()
	if attempt(job) > Attempts {
		// The turn's attempts ended without the person being told: a process
		// died during the last one, or telling them failed.
		return i.handler.GiveUp(ctx, p, lastError(job.JobRow))
	}
	key, _, err := threads.KeyFor(p.Team, p.Channel, p.TS, p.ThreadTS)
	if err != nil {
		// Posts are checked before they are taken in; a bad one is a bug.
		return river.JobCancel(fmt.Errorf("inbox: post with a bad timestamp: %w", err))
	}
	l := db.Lease{SourceKey: key.SourceKey(), PostTS: p.TS, JobID: job.ID, Holder: i.client.ID()}
	acc, err := i.handler.Accept(ctx, p, Claim{Lease: l, TTL: i.o.LeaseTTL, db: i.db})
	if err != nil {
		return i.failed(ctx, job, err)
	}
	if !acc.Needed {
		return nil
	}
	if !acc.Leased {
		// Snoozing counts no attempt and holds no worker while it waits.
		return river.JobSnooze(busyWait + time.Duration(rand.Int64N(int64(busyWait/2))))
	}
	turnCtx, release := i.hold(ctx, l)
	err = i.handler.Turn(turnCtx, p, acc)
	lost := errors.Is(context.Cause(turnCtx), errLeaseLost)
	release()
	if err == nil {
		return nil
	}
	if lost {
		return fmt.Errorf("inbox: %w: %w", errLeaseLost, err)
	}
	return i.failed(ctx, job, err)
}

// failed decides what follows a failed attempt. A shutdown puts the job
// back at once, counting no attempt; before the last attempt, River retries
// it later; after the last, the person is told now.
func (i *Inbox) failed(ctx context.Context, job *river.Job[Post], err error) error {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		i.log.Info().Int64("job", job.ID).Str("ts", job.Args.TS).Msg("turn interrupted by shutdown; back in the inbox")
		return river.JobSnooze(0)
	}
	if attempt(job) < Attempts {
		return err
	}
	// The attempt's context may be spent (a timeout); telling gets its own.
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), giveUpTimeout)
	defer cancel()
	if gerr := i.handler.GiveUp(gctx, job.Args, err); gerr != nil {
		return errors.Join(err, fmt.Errorf("give up: %w", gerr))
	}
	return nil
}

const giveUpTimeout = time.Minute

// hold renews the job's lease while the turn runs and returns the turn's
// context, cancelled if the lease is lost, and a release for when it ends.
func (i *Inbox) hold(ctx context.Context, l db.Lease) (context.Context, func()) {
	turnCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(i.o.LeaseTTL / 4)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-turnCtx.Done():
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(turnCtx, i.o.LeaseTTL/4)
			held, err := i.db.Leases().Renew(rctx, l.SourceKey, l.JobID, i.o.LeaseTTL)
			rcancel()
			switch {
			case err != nil:
				// The database may be back before the lease expires.
				i.log.Debug().Err(err).Str("source_key", l.SourceKey).Msg("lease renewal failed")
			case !held:
				i.log.Warn().Str("source_key", l.SourceKey).Int64("job", l.JobID).Msg("thread lease lost; stopping this attempt")
				cancel(errLeaseLost)
				return
			}
		}
	}()
	return turnCtx, func() {
		close(done)
		<-stopped
		cancel(nil)
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := i.db.Leases().Release(rctx, l.SourceKey, l.JobID); err != nil {
			i.log.Warn().Err(err).Str("source_key", l.SourceKey).Msg("thread lease not released; it expires")
		}
	}
}

// reap hands back to the queue the jobs of leases whose holder stopped
// renewing them (a process that died mid-turn), until ctx ends.
func (i *Inbox) reap(ctx context.Context) {
	every := i.o.LeaseTTL / 4
	periodic.Run(ctx, every, max(every, 5*time.Second), func(ctx context.Context) {
		if err := i.reapOnce(ctx); err != nil && ctx.Err() == nil {
			i.log.Debug().Err(err).Msg("lease reaping failed")
		}
	})
}

func (i *Inbox) reapOnce(ctx context.Context) error {
	if _, err := i.db.Leases().PruneWaiters(ctx, i.o.Now().Add(-time.Minute)); err != nil {
		return err
	}
	leases, err := i.db.Leases().ReapExpired(ctx, 50)
	if err != nil {
		return err
	}
	for _, l := range leases {
		if err := i.rescue(ctx, l); err != nil {
			// River's own rescuer still finds the job, later.
			i.log.Error().Err(err).Int64("job", l.JobID).Msg("could not hand back a stopped process's turn")
		}
	}
	return nil
}

// rescue hands back the turn of a running job whose process stopped, with
// River's public API: it marks the job for cancellation (River's rescuer
// finalizes it as cancelled once it counts as stuck, and a process still
// running it is told to stop) and, in the same transaction, inserts a job
// that takes it over, carrying the attempts made so far. When those are
// spent, there is no new job: the person was told by the last attempt, or
// the abandoned-turn sweep tells them.
func (i *Inbox) rescue(ctx context.Context, l db.Lease) error {
	job, err := i.client.JobGet(ctx, l.JobID)
	if errors.Is(err, rivertype.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if job.State != rivertype.JobStateRunning {
		return nil
	}
	var p Post
	if err := json.Unmarshal(job.EncodedArgs, &p); err != nil {
		return fmt.Errorf("inbox: job %d: %w", job.ID, err)
	}
	p.Takeover, p.Prior = job.ID, p.Prior+job.Attempt
	handedBack := p.Prior < Attempts+2
	err = i.db.InTx(ctx, func(tx *db.Tx) error {
		if _, err := i.client.JobCancelTx(ctx, tx.Pgx(), job.ID); err != nil {
			return err
		}
		if !handedBack {
			return nil
		}
		_, err := i.client.InsertTx(ctx, tx.Pgx(), p, nil)
		return err
	})
	if err != nil {
		return err
	}
	if !handedBack {
		i.log.Warn().Int64("job", job.ID).Str("holder", l.Holder).Str("source_key", l.SourceKey).Msg("a stopped process's turn had no attempt left; its job was cancelled")
		return nil
	}
	i.log.Warn().Int64("job", job.ID).Str("holder", l.Holder).Str("source_key", l.SourceKey).Int("attempts", p.Prior).Msg("a stopped process's turn was handed back to the inbox")
	return nil
}

// attempt is the post's attempt that job is: the jobs it took over made
// the first ones.
func attempt(job *river.Job[Post]) int { return job.Args.Prior + job.Attempt }

// lastError is the error of a job's last failed attempt.
func lastError(job *rivertype.JobRow) error {
	if n := len(job.Errors); n > 0 {
		return errors.New(job.Errors[n-1].Error)
	}
	return errors.New("no attempt finished")
}
