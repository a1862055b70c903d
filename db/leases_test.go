package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

const thread = "slack:T1:C1:1800000000.000100"

func lease(ts string, job int64) db.Lease {
	return db.Lease{SourceKey: thread, PostTS: ts, JobID: job, Holder: "replica-a"}
}

func TestThreadLeaseIsHeldByOneJobAtATime(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	leases := d.DB.Leases()

	ok, err := leases.Acquire(ctx, lease("1800000000.000100", 1), time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = leases.Acquire(ctx, lease("1800000000.000100", 1), time.Minute)
	require.NoError(t, err)
	require.True(t, ok, "the holder may take it again (a job worked twice)")
	ok, err = leases.Acquire(ctx, lease("1800000001.000100", 2), time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "another job waits")
	other := db.Lease{SourceKey: "slack:T1:C1:1800000005.000100", PostTS: "1800000005.000100", JobID: 9, Holder: "replica-b"}
	ok, err = leases.Acquire(ctx, other, time.Minute)
	require.NoError(t, err)
	require.True(t, ok, "another thread is independent")

	renewed, err := leases.Renew(ctx, thread, 1, time.Minute)
	require.NoError(t, err)
	require.True(t, renewed)
	renewed, err = leases.Renew(ctx, thread, 2, time.Minute)
	require.NoError(t, err)
	require.False(t, renewed, "only the holder renews")

	require.NoError(t, leases.Release(ctx, thread, 2), "releasing a lease you don't hold changes nothing")
	ok, err = leases.Acquire(ctx, lease("1800000001.000100", 2), time.Minute)
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, leases.Release(ctx, thread, 1))
	ok, err = leases.Acquire(ctx, lease("1800000001.000100", 2), time.Minute)
	require.NoError(t, err)
	require.True(t, ok)

	elsewhere := lease("1800000001.000100", 2)
	elsewhere.Holder = "replica-b"
	ok, err = leases.Acquire(ctx, elsewhere, time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "the same job in another process waits: the holder may still be working it")
}

// Posts of a thread take their turns in the order they were written, when
// they both had to wait.
func TestEarlierWaitingPostGoesFirst(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	leases := d.DB.Leases()
	require.True(t, must(leases.Acquire(ctx, lease("1800000000.000100", 1), time.Minute)))
	require.False(t, must(leases.Acquire(ctx, lease("1800000002.000100", 3), time.Minute)), "the later post waits")
	require.False(t, must(leases.Acquire(ctx, lease("1800000001.000100", 2), time.Minute)), "and the earlier one")
	require.NoError(t, leases.Release(ctx, thread, 1))

	require.False(t, must(leases.Acquire(ctx, lease("1800000002.000100", 3), time.Minute)), "the later post lets the earlier one go first")
	require.True(t, must(leases.Acquire(ctx, lease("1800000001.000100", 2), time.Minute)))
	require.NoError(t, leases.Release(ctx, thread, 2))
	require.True(t, must(leases.Acquire(ctx, lease("1800000002.000100", 3), time.Minute)), "then the later one")
}

// A waiter that stopped asking no longer holds later posts back.
func TestStaleWaiterIsIgnoredAndPruned(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	leases := d.DB.Leases()
	require.True(t, must(leases.Acquire(ctx, lease("1800000000.000100", 1), time.Minute)))
	require.False(t, must(leases.Acquire(ctx, lease("1800000001.000100", 2), time.Minute)))
	require.NoError(t, leases.Release(ctx, thread, 1))
	_, err := d.Pool.Exec(ctx, "UPDATE thread_waiters SET seen_at = now() - interval '1 minute'")
	require.NoError(t, err)
	require.True(t, must(leases.Acquire(ctx, lease("1800000002.000100", 3), time.Minute)))

	n, err := leases.PruneWaiters(ctx, time.Now().Add(-30*time.Second))
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
}

func TestExpiredLeasesAreReapedOnce(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	leases := d.DB.Leases()
	require.True(t, must(leases.Acquire(ctx, lease("1800000000.000100", 7), time.Minute)))

	got, err := leases.ReapExpired(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, got, "a live lease is not reaped")

	_, err = d.Pool.Exec(ctx, "UPDATE thread_leases SET expires_at = now() - interval '1 second'")
	require.NoError(t, err)
	got, err = leases.ReapExpired(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, int64(7), got[0].JobID)
	require.Equal(t, "replica-a", got[0].Holder)
	got, err = leases.ReapExpired(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, got)

	renewed, err := leases.Renew(ctx, thread, 7, time.Minute)
	require.NoError(t, err)
	require.False(t, renewed, "the old holder learns it lost the thread")
}

func TestInboxDepthCountsUnfinishedJobsOfItsQueue(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	empty, err := d.DB.Inbox().Depth(ctx, "turns")
	require.NoError(t, err)
	require.Equal(t, db.InboxDepth{Oldest: empty.Oldest}, empty)
	require.WithinDuration(t, time.Now(), empty.Oldest, time.Minute, "an empty inbox's oldest item is now")

	for _, j := range []struct {
		queue, state string
		age          string
	}{
		{"turns", "available", "3 minutes"}, {"turns", "running", "1 minute"}, {"turns", "scheduled", "2 minutes"},
		{"turns", "retryable", "1 minute"}, {"turns", "completed", "1 hour"}, {"default", "available", "2 hours"},
	} {
		_, err := d.Pool.Exec(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state, created_at, scheduled_at, attempted_at, finalized_at)
			VALUES ('{}', 'k', 5, $1, $2::text::river_job_state, now() - $3::interval, now(), CASE WHEN $2::text = 'running' THEN now() END, CASE WHEN $2::text = 'completed' THEN now() END)`, j.queue, j.state, j.age)
		require.NoError(t, err)
	}
	got, err := d.DB.Inbox().Depth(ctx, "turns")
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Available)
	require.Equal(t, int64(1), got.Running)
	require.Equal(t, int64(2), got.Waiting)
	require.WithinDuration(t, time.Now().Add(-3*time.Minute), got.Oldest, 30*time.Second, "the oldest unfinished job of the queue, not the completed one nor another queue's")
}

func must(ok bool, err error) bool {
	if err != nil {
		panic(err)
	}
	return ok
}
