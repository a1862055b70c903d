package inbox_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// arrive writes a post as Enqueue does, through the store, with no mover
// running: what a process leaves when it dies between the commit of a
// post (and its ack) and the post's move into River.
func arrive(t *testing.T, d *db.DB, p inbox.Post) {
	t.Helper()
	args, err := json.Marshal(p)
	require.NoError(t, err)
	dup, err := d.Inbox().Arrive(context.Background(), db.Arrival{Team: p.Team, Channel: p.Channel, TS: p.TS, Args: args})
	require.NoError(t, err)
	require.False(t, dup)
}

func jobs(t *testing.T, d *testdb.DB, ts string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM river_job WHERE kind = 'mnemo_turn' AND args->>'ts' = $1", ts).Scan(&n))
	return n
}

// A post whose process died before moving it is moved by the next start
// and worked once; so is one two replicas start over together.
func TestArrivalLeftBehindIsMovedAndWorkedOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		replicas int
	}{
		{"the next start", 1},
		{"two replicas starting together", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := testdb.New(t)
			h := newHandler()
			logs := &harness.Buffer{}
			left := mention("1800000000.000100", "")
			arrive(t, d.DB, left)
			require.Zero(t, jobs(t, d, left.TS), "not in River yet")
			depth, err := d.DB.Inbox().Depth(context.Background(), inbox.TurnsQueue)
			require.NoError(t, err)
			require.EqualValues(t, 1, depth.Arrived, "the operator sees it")

			var replicas []*inbox.Inbox
			for range tc.replicas {
				in, err := inbox.New(d.DB, inbox.Options{Handler: h, Logger: zerolog.New(logs), FetchPollInterval: 50 * time.Millisecond})
				require.NoError(t, err)
				t.Cleanup(func() { _ = in.Stop(time.Second) })
				replicas = append(replicas, in)
			}
			var wg sync.WaitGroup
			errs := make(chan error, len(replicas))
			for _, in := range replicas {
				wg.Go(func() { errs <- in.Start(context.Background()) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			h.waitFor(t, "the left post's turn", func() bool { return h.count(h.finished, left.TS) == 1 })
			// A later post goes through a mover after the left one: by the
			// time it is answered, a second move of the first would show.
			later := mention("1800000001.000100", "")
			dup, err := replicas[len(replicas)-1].Enqueue(context.Background(), later)
			require.NoError(t, err)
			require.False(t, dup)
			h.waitFor(t, "the later post's turn", func() bool { return h.count(h.finished, later.TS) == 1 })

			require.Equal(t, 1, jobs(t, d, left.TS), "one job")
			h.mu.Lock()
			require.Equal(t, 1, h.count(h.started, left.TS), "worked once")
			h.mu.Unlock()
			// A move is logged after its commit, so a turn can finish first;
			// Stop joins the movers, so every move is logged once it returns,
			// and none can follow.
			for _, in := range replicas {
				require.NoError(t, in.Stop(time.Second))
			}
			// Each post is in River once; the left one's move is logged
			// once. (The later one's may be unlogged: a stop that cancels a
			// move waiting for its commit's answer cannot tell whether it
			// committed, and says so instead. It committed here: its turn
			// ran.)
			require.Equal(t, 1, jobs(t, d, later.TS), "one job for the later post")
			moved := func(ts string) int {
				n := 0
				for _, l := range strings.Split(logs.String(), "\n") {
					if strings.Contains(l, "post moved into the job queue") && strings.Contains(l, ts) {
						n++
					}
				}
				return n
			}
			require.Equal(t, 1, moved(left.TS), "the left post moved once:\n%s", logs)
			require.LessOrEqual(t, moved(later.TS), 1, "the later post moved at most once:\n%s", logs)
			if moved(later.TS) == 0 {
				require.Contains(t, logs.String(), "stopped during a move", "an unlogged move is one a stop cut short:\n%s", logs)
			}
			require.NotContains(t, logs.String(), "duplicate caught by the job queue", "no second move had to be caught by River")
			n, _, err := d.DB.Inbox().Arrivals(context.Background())
			require.NoError(t, err)
			require.Zero(t, n)
		})
	}
}

// A redelivered post is reported as a duplicate whether it still waits to
// be moved or was moved and answered, and makes no second job. Once its
// arrival is pruned, River's unique job still catches it, and says so.
func TestDuplicateIsCaughtWhereverThePostIs(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	ctx := context.Background()
	require.NoError(t, b.inbox.Stop(time.Second))
	p := mention("1800000000.000100", "")
	retry := p
	retry.EnvelopeID = "env-2"

	dup, err := b.inbox.Enqueue(ctx, p)
	require.NoError(t, err)
	require.False(t, dup)
	dup, err = b.inbox.Enqueue(ctx, retry)
	require.NoError(t, err)
	require.True(t, dup, "a duplicate of a post waiting to be moved")
	require.Zero(t, jobs(t, b.db, p.TS), "not moved while stopped")

	first := b.start(t)
	b.h.waitFor(t, "the turn", func() bool { return len(b.h.finished) == 1 })
	dup, err = b.inbox.Enqueue(ctx, retry)
	require.NoError(t, err)
	require.True(t, dup, "a duplicate of a post moved and answered")
	require.Equal(t, 1, jobs(t, b.db, p.TS))

	// A day later its arrival is forgotten; River's job is the last guard.
	pruned, err := b.db.DB.Inbox().PruneMoved(ctx, 0, 10)
	require.NoError(t, err)
	require.EqualValues(t, 1, pruned)
	// Stop joins the mover: whatever it moved is logged by then.
	require.NoError(t, first.Stop(time.Second))
	require.NotContains(t, b.logs.String(), "duplicate caught by the job queue")
	in := b.start(t)
	dup, err = in.Enqueue(ctx, retry)
	require.NoError(t, err)
	require.False(t, dup, "the arrivals no longer know it")
	require.True(t, b.logs.WaitFor("duplicate caught by the job queue", 30*time.Second), "River caught it:\n%s", b.logs)
	require.Equal(t, 1, jobs(t, b.db, p.TS), "still one job")
	n, _, err := b.db.DB.Inbox().Arrivals(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "the duplicate arrival was moved out of the way")
	b.h.mu.Lock()
	require.Equal(t, []string{p.TS}, b.h.started)
	b.h.mu.Unlock()
}

// Posts no mover takes show in the depth and, once they have waited, make
// the inbox unhealthy; moved, they leave both.
func TestUnmovedPostsShowInDepthAndHealth(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	ctx := context.Background()
	require.Eventually(t, func() bool { return b.inbox.Healthy() == nil }, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, b.inbox.Stop(time.Second))
	stuck := mention("1800000000.000100", "")
	arrive(t, b.db.DB, stuck)
	_, err := b.db.Pool.Exec(ctx, "UPDATE inbox_arrivals SET arrived_at = now() - interval '1 minute'")
	require.NoError(t, err)
	// A mover that stalls holding it (here, a transaction that locked it).
	tx, err := b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	var ts string
	require.NoError(t, tx.QueryRow(ctx, "SELECT ts FROM inbox_arrivals FOR UPDATE").Scan(&ts))

	in := b.start(t)
	depth, err := in.Depth(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, depth.Arrived)
	require.Less(t, depth.Oldest, time.Now().Add(-50*time.Second), "the oldest post is the waiting arrival")
	require.Eventually(t, func() bool {
		err := in.Healthy()
		return err != nil && strings.Contains(err.Error(), "1 posts not moved into the job queue")
	}, 30*time.Second, 20*time.Millisecond)

	require.NoError(t, tx.Rollback(ctx))
	b.h.waitFor(t, "the stuck post's turn", func() bool { return len(b.h.finished) == 1 })
	depth, err = in.Depth(ctx)
	require.NoError(t, err)
	require.Zero(t, depth.Arrived)
	require.Eventually(t, func() bool { return in.Healthy() == nil }, 30*time.Second, 20*time.Millisecond)
}
