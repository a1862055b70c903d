package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Inbox reads the inbox as River keeps it: the jobs of one queue. River
// owns the table; this store only reads it, for metrics.
type Inbox struct {
	e executor
	q *dbsqlc.Queries
}

// InboxDepth is how many posts wait in the inbox, by where they are.
type InboxDepth struct {
	Available int64 // ready for a worker
	Running   int64 // being worked
	Waiting   int64 // scheduled for later: a retry, or a thread that was busy
	// Oldest is when the oldest of them arrived (now when there are none).
	Oldest time.Time
}

// Depth counts the queue's unfinished jobs.
func (s Inbox) Depth(ctx context.Context, queue string) (InboxDepth, error) {
	r, err := s.q.InboxDepth(ctx, s.e, queue)
	if err != nil {
		return InboxDepth{}, fmt.Errorf("inbox depth: %w", mapErr(err))
	}
	return InboxDepth{Available: r.Available, Running: r.Running, Waiting: r.Waiting, Oldest: r.Oldest}, nil
}
