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
// expired (its renewals failed for LeaseTTL) and another replica reaped it,
// or its person's erasure deleted it (a DM's).
var errLeaseLost = errors.New("the thread's lease was lost")

// errErased ends the job of a post that was erased: there is nothing left
// to answer, and nobody to tell. It is what the job's errors keep, so it
// names nothing.
var errErased = errors.New("the post was erased")

// busyWait is how long a post waits before asking for its busy thread again.
const busyWait = time.Second

func (i *Inbox) work(ctx context.Context, job *river.Job[Post]) error {
	p := job.Args
	ctx, span := tracer.Start(p.traceContext(ctx), "inbox.job", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		attribute.Int64("mnemo.job.id", job.ID), attribute.Int("mnemo.job.attempt", attempt(job)),
		attribute.Float64("mnemo.job.wait_seconds", time.Since(job.CreatedAt).Seconds())))
	defer span.End()
	if p.erased() {
		// Checked before giving up too: a tombstone has no thread to tell.
		i.log.Info().Int64("job", job.ID).Msg("the post was erased; its job ends")
		return river.JobCancel(errErased)
	}
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
		// A DM's lease goes with its person's erasure, which leaves the
		// job's args a tombstone: the job ends now, rather than fail and
		// find the tombstone on its next attempt.
		if i.erasedMeanwhile(ctx, job) {
			i.log.Info().Int64("job", job.ID).Msg("the post was erased while its turn ran; the turn stopped")
			return river.JobCancel(errErased)
		}
		i.log.Warn().Str("source_key", l.SourceKey).Int64("job", l.JobID).Msg("thread lease lost; this attempt stopped")
		return fmt.Errorf("inbox: %w: %w", errLeaseLost, err)
	}
	return i.failed(ctx, job, err)
}

// erased reports whether the post is erasure's tombstone: a running job's
// args, once its person is erased, name no channel and no post (see
// db.DB.Erase). A post taken in always has both.
func (p Post) erased() bool { return p.Channel == "" && p.TS == "" }

// erasedMeanwhile reports whether the job's post was erased while its
// attempt ran: the args River holds now are a tombstone, though the job's
// copy, read when the attempt began, is not. When River can't say, it was
// not.
func (i *Inbox) erasedMeanwhile(ctx context.Context, job *river.Job[Post]) bool {
	// The attempt's context may be spent (a timeout); the look gets its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	row, err := i.client.JobGet(ctx, job.ID)
	if err != nil {
		i.log.Debug().Err(err).Int64("job", job.ID).Msg("could not read the job's args again")
		return false
	}
	var p Post
	if err := json.Unmarshal(row.EncodedArgs, &p); err != nil {
		return false
	}
	return p.erased()
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
	// GiveUp would tell the post's thread, and record the post's turn,
	// again: not for a post erased while its attempt ran.
	if i.erasedMeanwhile(ctx, job) {
		i.log.Info().Int64("job", job.ID).Msg("the post was erased while its turn ran; nobody is told")
		return river.JobCancel(errErased)
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
				// work says why, once it knows (an erasure, or a reaping).
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
