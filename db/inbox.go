package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Inbox owns inbox_arrivals, where a post is written before its envelope is
// acked, and reads the inbox's jobs as River keeps them (River owns that
// table; this store only reads it, for metrics).
type Inbox struct {
	e executor
	q *dbsqlc.Queries
}

// Arrival is a post as it lands: its key and its job's args, as JSON.
type Arrival struct {
	Team, Channel, TS string
	Args              []byte
	ArrivedAt         time.Time // set by the database
}

// Arrive writes a post in one statement; on a pool from Open it is one
// round trip and one commit, on a connection taken without a liveness
// ping. If that connection was dead the write is made again on a fresh one
// (a write that did commit before its connection died then reads as a
// duplicate, which it is). duplicate is true when the post is already
// there, still waiting or moved into River within the last KeepMoved.
// While its team's erasure runs nothing is written (ErrErasing), and an
// erasure that starts later waits for the write and deletes it.
func (s Inbox) Arrive(ctx context.Context, a Arrival) (duplicate bool, err error) {
	arg := dbsqlc.InboxArriveParams{Team: a.Team, Channel: a.Channel, Ts: a.TS, Args: a.Args}
	r, err := s.q.InboxArrive(context.WithValue(ctx, noPing{}, true), s.e, arg)
	if err != nil && connLost(err) && ctx.Err() == nil {
		r, err = s.q.InboxArrive(ctx, s.e, arg)
	}
	if err == nil && !r.Held {
		err = ErrErasing
	}
	if err != nil {
		return false, fmt.Errorf("inbox arrival %s/%s: %w", a.Channel, a.TS, mapErr(err))
	}
	return !r.Arrived, nil
}

// TakeArrival claims the oldest arrival not yet moved that no other
// transaction holds, and marks it moved. It belongs in a transaction
// (Tx.Inbox) that inserts the post's job: a rollback puts it back. more
// is true when other arrivals waited beside it. ErrNotFound means there
// is none to take.
func (s Inbox) TakeArrival(ctx context.Context) (a Arrival, more bool, err error) {
	r, err := s.q.InboxTakeArrival(ctx, s.e)
	if err != nil {
		return Arrival{}, false, fmt.Errorf("inbox: take arrival: %w", mapErr(err))
	}
	return Arrival{Team: r.Team, Channel: r.Channel, TS: r.Ts, Args: r.Args, ArrivedAt: r.ArrivedAt}, r.More, nil
}

// KeepMoved is how long a moved arrival is kept, so that a redelivery is
// known as a duplicate without reading River's table. Slack stops retrying
// within minutes; a day matches River's retention of completed jobs.
const KeepMoved = 24 * time.Hour

// PruneMoved deletes at most max arrivals moved more than keep ago, and
// says how many it deleted.
func (s Inbox) PruneMoved(ctx context.Context, keep time.Duration, max int) (int64, error) {
	n, err := s.q.InboxPruneMoved(ctx, s.e, dbsqlc.InboxPruneMovedParams{KeepSeconds: keep.Seconds(), MaxRows: int32(max)})
	if err != nil {
		return 0, fmt.Errorf("inbox: prune arrivals: %w", mapErr(err))
	}
	return n, nil
}

// Arrivals is how many posts wait to be moved into River, and how long
// the oldest of them has waited (0 when there are none).
func (s Inbox) Arrivals(ctx context.Context) (n int64, oldest time.Duration, err error) {
	r, err := s.q.InboxArrivals(ctx, s.e)
	if err != nil {
		return 0, 0, fmt.Errorf("inbox arrivals: %w", mapErr(err))
	}
	return r.Waiting, time.Duration(r.OldestAgeSeconds * float64(time.Second)), nil
}

// InboxDepth is how many posts wait in the inbox, by where they are.
type InboxDepth struct {
	Arrived   int64 // written, not yet moved into River's queue
	Available int64 // ready for a worker
	Running   int64 // being worked
	Waiting   int64 // scheduled for later: a retry, or a thread that was busy
	// Oldest is when the oldest of them arrived (now when there are none).
	Oldest time.Time
}

// Depth counts the arrivals not yet moved and the queue's unfinished jobs.
func (s Inbox) Depth(ctx context.Context, queue string) (InboxDepth, error) {
	r, err := s.q.InboxDepth(ctx, s.e, queue)
	if err != nil {
		return InboxDepth{}, fmt.Errorf("inbox depth: %w", mapErr(err))
	}
	return InboxDepth{Arrived: r.Arrived, Available: r.Available, Running: r.Running, Waiting: r.Waiting, Oldest: r.Oldest}, nil
}
