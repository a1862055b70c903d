package db_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

func arrival(ts string) db.Arrival {
	return db.Arrival{Team: "T1", Channel: "C1", TS: ts, Args: []byte(`{"team":"T1","channel":"C1","ts":"` + ts + `"}`)}
}

// An arrival is written once; once moved it still counts as a duplicate
// until it is pruned, and a rolled-back move leaves it waiting.
func TestArrivalIsTakenInOnceAndMovedOnce(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	in := d.DB.Inbox()
	a := arrival("1800000000.000100")

	dup, err := in.Arrive(ctx, a)
	require.NoError(t, err)
	require.False(t, dup)
	again := a
	again.Args = []byte(`{"team":"T1","channel":"C1","ts":"1800000000.000100","envelope_id":"retry"}`)
	dup, err = in.Arrive(ctx, again)
	require.NoError(t, err)
	require.True(t, dup, "a redelivery while it waits")
	n, _, err := in.Arrivals(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	depth, err := in.Depth(ctx, "turns")
	require.NoError(t, err)
	require.EqualValues(t, 1, depth.Arrived, "an arrival not yet moved is in the inbox's depth")

	failed := errors.New("job insert failed")
	err = d.DB.InTx(ctx, func(tx *db.Tx) error {
		got, more, err := tx.Inbox().TakeArrival(ctx)
		require.NoError(t, err)
		require.Equal(t, a.TS, got.TS)
		require.False(t, more)
		return failed
	})
	require.ErrorIs(t, err, failed)
	n, _, err = in.Arrivals(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "a rolled-back move leaves the arrival waiting")

	require.NoError(t, d.DB.InTx(ctx, func(tx *db.Tx) error {
		got, _, err := tx.Inbox().TakeArrival(ctx)
		require.NoError(t, err)
		require.Equal(t, a.TS, got.TS)
		require.JSONEq(t, string(a.Args), string(got.Args), "the first arrival's args are kept")
		_, _, err = tx.Inbox().TakeArrival(ctx)
		require.ErrorIs(t, err, db.ErrNotFound, "taken once, even within its own transaction")
		return nil
	}))
	n, _, err = in.Arrivals(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 0, n)
	depth, err = in.Depth(ctx, "turns")
	require.NoError(t, err)
	require.EqualValues(t, 0, depth.Arrived)
	dup, err = in.Arrive(ctx, a)
	require.NoError(t, err)
	require.True(t, dup, "a redelivery of a moved post")

	pruned, err := in.PruneMoved(ctx, time.Hour, 100)
	require.NoError(t, err)
	require.Zero(t, pruned, "moved just now: kept")
	pruned, err = in.PruneMoved(ctx, 0, 100)
	require.NoError(t, err)
	require.EqualValues(t, 1, pruned)
	dup, err = in.Arrive(ctx, a)
	require.NoError(t, err)
	require.False(t, dup, "once pruned, only River's unique job knows the post")
}

// Two movers never take one arrival: the second skips the one the first
// holds and takes the next.
func TestTakeArrivalSkipsOneHeldElsewhere(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	for _, ts := range []string{"1800000000.000100", "1800000001.000100"} {
		_, err := d.DB.Inbox().Arrive(ctx, arrival(ts))
		require.NoError(t, err)
	}
	took := make(chan string)
	release := make(chan struct{})
	unblock := sync.OnceFunc(func() { close(release) })
	defer unblock() // a failing test still lets the pool close
	done := make(chan error, 1)
	go func() {
		done <- d.DB.InTx(ctx, func(tx *db.Tx) error {
			a, more, err := tx.Inbox().TakeArrival(ctx)
			if err != nil {
				return err
			}
			if !more {
				return errors.New("the second arrival waits beside the first")
			}
			took <- a.TS
			<-release
			return nil
		})
	}()
	require.Equal(t, "1800000000.000100", <-took, "the oldest first")
	// A take that waited for the held row would wait forever here.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, d.DB.InTx(wctx, func(tx *db.Tx) error {
		a, more, err := tx.Inbox().TakeArrival(wctx)
		require.NoError(t, err)
		require.Equal(t, "1800000001.000100", a.TS, "the held one is skipped, not waited for")
		require.True(t, more, "the held one still waits, as far as this transaction sees")
		_, _, err = tx.Inbox().TakeArrival(wctx)
		require.ErrorIs(t, err, db.ErrNotFound)
		return nil
	}))
	unblock()
	require.NoError(t, <-done)
	n, _, err := d.DB.Inbox().Arrivals(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// The ack waits for Arrive: once its statement is prepared, it is one
// round trip (Bind, Execute, Sync; one ReadyForQuery), outside any
// transaction, even on a connection idle long enough that pgxpool would
// ping it first, as between posts in production.
func TestArriveIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	opened, err := db.Open(ctx, d.URL, 1)
	require.NoError(t, err)
	t.Cleanup(opened.Close)
	pool, store := opened.Pool(), opened.Inbox()

	_, err = store.Arrive(ctx, arrival("1800000000.000100")) // prepares the statement
	require.NoError(t, err)
	trace := &harness.Buffer{}
	c, err := pool.Acquire(ctx)
	require.NoError(t, err)
	c.Conn().PgConn().Frontend().Trace(trace, pgproto3.TracerOptions{SuppressTimestamps: true})
	c.Release()
	time.Sleep(1100 * time.Millisecond) // idle past pgxpool's ping threshold
	dup, err := store.Arrive(ctx, arrival("1800000001.000100"))
	require.NoError(t, err)
	require.False(t, dup)
	c, err = pool.Acquire(ctx)
	require.NoError(t, err)
	c.Conn().PgConn().Frontend().Untrace()
	c.Release()

	var sent, ready []string
	for _, line := range strings.Split(strings.TrimSpace(trace.String()), "\n") {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) < 2 {
			continue
		}
		switch {
		case f[0] == "F":
			sent = append(sent, f[1])
		case f[1] == "ReadyForQuery":
			ready = append(ready, line)
		}
	}
	require.NotContains(t, sent, "Parse", "the prepared statement is reused:\n%s", trace)
	require.NotContains(t, sent, "Query", "no ping, BEGIN or other simple query:\n%s", trace)
	require.Equal(t, 1, strings.Count(strings.Join(sent, " "), "Sync"), "one Sync, one round trip:\n%s", trace)
	require.Len(t, ready, 1, trace.String())
	require.True(t, strings.HasSuffix(ready[0], "I"), "idle after it: committed, no transaction open: %s", ready[0])
}

// A connection the server closed while it idled (a restart) fails the
// write without a ping to find out first; the write is made again on a
// fresh connection, once.
func TestArriveSurvivesADeadConnection(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	opened, err := db.Open(ctx, d.URL, 1)
	require.NoError(t, err)
	t.Cleanup(opened.Close)
	_, err = opened.Inbox().Arrive(ctx, arrival("1800000000.000100"))
	require.NoError(t, err)
	var pid int
	require.NoError(t, opened.Pool().QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	var killed bool
	require.NoError(t, d.Pool.QueryRow(ctx, "SELECT pg_terminate_backend($1, 10000)", pid).Scan(&killed))
	require.True(t, killed)

	dup, err := opened.Inbox().Arrive(ctx, arrival("1800000001.000100"))
	require.NoError(t, err)
	require.False(t, dup)
	var n int
	require.NoError(t, d.Pool.QueryRow(ctx, "SELECT count(*) FROM inbox_arrivals WHERE ts = '1800000001.000100'").Scan(&n))
	require.Equal(t, 1, n)
	var now int
	require.NoError(t, opened.Pool().QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&now))
	require.NotEqual(t, pid, now, "written on a new connection")
}
