package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/db"
)

// moveEvery is how often the mover looks for arrivals nobody announced to
// it: ones a process left when it stopped between writing a post and moving
// it, ones another replica took in, and ones a failed move put back. Each
// Enqueue wakes it at once.
const moveEvery = 5 * time.Second

// moveOnStop bounds Stop's last move.
const moveOnStop = time.Second

// pruneEvery is how often moved arrivals older than db.KeepMoved are
// deleted, and pruneBatch how many at a time.
const (
	pruneEvery = 10 * time.Minute
	// moveTimeout bounds one move, and one prune.
	moveTimeout = 10 * time.Second
	pruneBatch  = 1000
)

// move takes arrivals into River, whenever Enqueue says one came and every
// moveEvery, until ctx ends. Every replica runs one; the database hands
// each arrival to one of them.
func (i *Inbox) move(ctx context.Context) {
	t := time.NewTicker(moveEvery)
	defer t.Stop()
	var pruned time.Time
	for {
		i.moveArrivals(ctx)
		if ctx.Err() == nil && i.o.Now().Sub(pruned) >= pruneEvery {
			pruned = i.o.Now()
			pctx, cancel := context.WithTimeout(ctx, moveTimeout)
			i.prune(pctx)
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-i.wake:
		case <-t.C:
		}
	}
}

// moveArrivals moves arrivals until none is left, or a move fails (what
// is left waits for the next wake-up or sweep). A post that arrives after
// the last move saw none left sends its own wake-up.
func (i *Inbox) moveArrivals(ctx context.Context) {
	for ctx.Err() == nil {
		mctx, cancel := context.WithTimeout(ctx, moveTimeout)
		more, err := i.moveOne(mctx)
		cancel()
		if ctx.Err() != nil {
			if err != nil {
				// Stopped while a move waited on the database, perhaps
				// for its commit's answer: whether it committed is not
				// known here. If it did not, the arrival is still there
				// for the next start or another replica to move; if it
				// did, it is in River once.
				i.log.Info().Err(err).Msg("inbox: stopped during a move; if it did not commit, the post is moved by the next start")
			}
			return
		}
		i.health.moved(err)
		if err != nil || !more {
			return
		}
	}
}

// moveOne moves the oldest arrival no one else is moving into River: it
// inserts the post's job and marks the arrival moved in one transaction,
// so a crash either moves it or leaves it, and two replicas never both
// move it. more is true when others waited beside it.
func (i *Inbox) moveOne(ctx context.Context) (more bool, err error) {
	var (
		a         db.Arrival
		duplicate bool
		unusable  error
	)
	// Relaxed: the arrival is durable, and a database crash that loses
	// its move loses its mark with it, so it is moved again. Its job's
	// fetch, a durable commit, flushes the move anyway.
	var span trace.Span // the move's, once the arrival is read
	defer func() {
		if span != nil {
			span.End()
		}
	}()
	err = i.db.InTxRelaxed(ctx, func(tx *db.Tx) error {
		var err error
		if a, more, err = tx.Inbox().TakeArrival(ctx); err != nil {
			return err
		}
		var p Post
		if err := json.Unmarshal(a.Args, &p); err != nil {
			// Only Enqueue writes arrivals, so this is a bug; the row is
			// marked moved (kept a day, for a look) rather than left to
			// stall every post behind it.
			unusable = err
			return nil
		}
		_, span = tracer.Start(p.traceContext(ctx), "inbox.move", trace.WithAttributes(attribute.String("messaging.destination.name", "mnemo_turn")))
		res, err := i.client.InsertTx(ctx, tx.Pgx(), p, nil)
		if err != nil {
			return fmt.Errorf("insert job: %w", err)
		}
		duplicate = res.UniqueSkippedAsDuplicate
		return nil
	})
	if errors.Is(err, db.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inbox: move %s/%s: %w", a.Channel, a.TS, err)
	}
	log := i.log.With().Str("channel", a.Channel).Str("ts", a.TS).Logger()
	switch {
	case unusable != nil:
		log.Error().Err(unusable).Msg("inbox arrival unreadable; not moved into the job queue")
	case duplicate:
		// The arrival did not know the post (its row was pruned), but
		// River's unique job did: the post was taken in before.
		log.Info().Msg("post already in the job queue; duplicate caught by the job queue and ignored")
	default:
		log.Debug().Msg("post moved into the job queue")
	}
	return more, nil
}

// prune deletes arrivals moved more than db.KeepMoved ago.
func (i *Inbox) prune(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := i.db.Inbox().PruneMoved(ctx, db.KeepMoved, pruneBatch)
		if err != nil {
			if ctx.Err() == nil {
				i.log.Warn().Err(err).Msg("pruning moved inbox arrivals failed; tried again later")
			}
			return
		}
		if n < pruneBatch {
			return
		}
	}
}
