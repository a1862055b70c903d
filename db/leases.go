package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Leases owns thread_leases and thread_waiters: one turn at a time per
// thread, across every replica, without holding a database lock while the
// turn calls the model or Slack.
type Leases struct {
	e executor
	q *dbsqlc.Queries
}

// Lease is a thread held by one job.
type Lease struct {
	SourceKey string
	PostTS    string
	JobID     int64
	Holder    string
	ExpiresAt time.Time
}

// WaiterFresh is how long a post that waited for its thread keeps later
// posts behind it without asking again.
const WaiterFresh = 10 * time.Second

// Acquire takes the thread's lease for the job answering the post at
// l.PostTS, until now+ttl. It fails (false) while another job holds the
// thread, or while an earlier post of the thread waits for it; a post that
// fails is recorded as waiting, so it goes before later ones.
func (s Leases) Acquire(ctx context.Context, l Lease, ttl time.Duration) (bool, error) {
	_, err := s.q.ThreadLeaseAcquire(ctx, s.e, dbsqlc.ThreadLeaseAcquireParams{
		SourceKey: l.SourceKey, PostTs: l.PostTS, JobID: l.JobID, Holder: l.Holder,
		TtlSeconds: ttl.Seconds(), WaiterFreshSeconds: WaiterFresh.Seconds(),
	})
	switch err = mapErr(err); err {
	case nil:
		if err := s.q.ThreadWaiterDelete(ctx, s.e, dbsqlc.ThreadWaiterDeleteParams{SourceKey: l.SourceKey, PostTs: l.PostTS}); err != nil {
			return true, fmt.Errorf("lease %s: waiter: %w", l.SourceKey, mapErr(err))
		}
		return true, nil
	case ErrNotFound:
		if err := s.q.ThreadWaiterUpsert(ctx, s.e, dbsqlc.ThreadWaiterUpsertParams{SourceKey: l.SourceKey, PostTs: l.PostTS}); err != nil {
			return false, fmt.Errorf("lease %s: waiter: %w", l.SourceKey, mapErr(err))
		}
		return false, nil
	}
	return false, fmt.Errorf("lease %s: %w", l.SourceKey, err)
}

// Renew extends the job's lease to now+ttl; false means the job no longer
// holds it (it expired and was reaped).
func (s Leases) Renew(ctx context.Context, sourceKey string, jobID int64, ttl time.Duration) (bool, error) {
	n, err := s.q.ThreadLeaseRenew(ctx, s.e, dbsqlc.ThreadLeaseRenewParams{SourceKey: sourceKey, JobID: jobID, TtlSeconds: ttl.Seconds()})
	if err != nil {
		return false, fmt.Errorf("renew lease %s: %w", sourceKey, mapErr(err))
	}
	return n > 0, nil
}

// Release gives the thread back, if the job still holds it.
func (s Leases) Release(ctx context.Context, sourceKey string, jobID int64) error {
	if err := s.q.ThreadLeaseRelease(ctx, s.e, dbsqlc.ThreadLeaseReleaseParams{SourceKey: sourceKey, JobID: jobID}); err != nil {
		return fmt.Errorf("release lease %s: %w", sourceKey, mapErr(err))
	}
	return nil
}

// ReapExpired removes up to limit leases whose holder stopped renewing them
// and returns them: their jobs were left running by a process that stopped.
// Two replicas reaping at once get different leases.
func (s Leases) ReapExpired(ctx context.Context, limit int) ([]Lease, error) {
	rows, err := s.q.ThreadLeaseReapExpired(ctx, s.e, int32(limit))
	if err != nil {
		return nil, fmt.Errorf("reap leases: %w", mapErr(err))
	}
	out := make([]Lease, 0, len(rows))
	for _, r := range rows {
		out = append(out, Lease{SourceKey: r.SourceKey, PostTS: r.PostTs, JobID: r.JobID, Holder: r.Holder, ExpiresAt: r.ExpiresAt})
	}
	return out, nil
}

// PruneWaiters drops waiters not seen since before.
func (s Leases) PruneWaiters(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.ThreadWaiterPrune(ctx, s.e, before)
	if err != nil {
		return 0, fmt.Errorf("prune waiters: %w", mapErr(err))
	}
	return n, nil
}
