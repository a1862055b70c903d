package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// take is Turns.Take for the post at ts of thread, by job (0: no lease).
func take(t *testing.T, d *db.DB, ts string, job int64) db.Taken {
	t.Helper()
	key := threads.Key{Team: "T1", Channel: "C1", Root: "1800000000.000100"}
	tt := db.TurnTake{
		Start: db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: key.SourceKey(), Visibility: provenance.Public}, MessageTS: ts, ActorID: "UA"},
		Key:   key,
		Post:  threads.Message{TS: threads.TS(ts), Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "UA"}, Authority: provenance.Instruction, Text: "post " + ts},
	}
	if job != 0 {
		l := lease(ts, job)
		tt.Lease, tt.TTL = &l, time.Minute
	}
	got, err := d.Turns().Take(context.Background(), tt)
	require.NoError(t, err)
	return got
}

// Take writes in one round trip what taking a post up wrote in three
// transactions: the turn and its post once, the thread's lease for one job
// at a time (an earlier waiting post first), and an attempt only with the
// lease.
func TestTakeRecordsLeasesAndCountsOnce(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	const first, second, third = "1800000001.000100", "1800000002.000100", "1800000003.000100"
	logged := func(ts string) (n int, turnID *int64) {
		t.Helper()
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*), max(turn_id) FROM session_messages WHERE source_key = $1 AND ts = $2`, thread, ts).Scan(&n, &turnID))
		return n, turnID
	}

	a := take(t, d.DB, first, 1)
	require.True(t, a.Created)
	require.True(t, a.Leased)
	require.Equal(t, 1, a.Turn.Attempts)
	n, turnID := logged(first)
	require.Equal(t, 1, n)
	require.Equal(t, a.Turn.ID, *turnID, "the post is logged with its turn")

	again := take(t, d.DB, first, 1)
	require.False(t, again.Created, "one turn per post")
	require.True(t, again.Leased, "the job that holds the thread takes it again")
	require.Equal(t, 2, again.Turn.Attempts)
	n, _ = logged(first)
	require.Equal(t, 1, n, "the post is logged once")

	b := take(t, d.DB, second, 2)
	require.True(t, b.Created, "a post of a busy thread is recorded")
	require.False(t, b.Leased, "and waits")
	require.Equal(t, 0, b.Turn.Attempts, "waiting is no attempt")
	n, _ = logged(second)
	require.Equal(t, 1, n)

	require.NoError(t, d.DB.Leases().Release(ctx, thread, 1))
	c := take(t, d.DB, third, 3)
	require.False(t, c.Leased, "a later post lets the earlier waiting one go first")
	bb := take(t, d.DB, second, 2)
	require.True(t, bb.Leased)
	require.Equal(t, 1, bb.Turn.Attempts)
	var waiting int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM thread_waiters WHERE source_key = $1 AND post_ts = $2`, thread, second).Scan(&waiting))
	require.Zero(t, waiting, "a post that took its thread waits no more")
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM thread_waiters WHERE source_key = $1 AND post_ts = $2`, thread, third).Scan(&waiting))
	require.Equal(t, 1, waiting, "the waiting post is on record (the check above finds rows)")

	// A finished turn takes no lease and counts no attempt.
	require.NoError(t, d.DB.Turns().Finish(ctx, bb.Turn.ID, db.TurnDone, false, ""))
	require.NoError(t, d.DB.Leases().Release(ctx, thread, 2))
	done := take(t, d.DB, second, 2)
	require.Equal(t, db.TurnDone, done.Turn.Status)
	require.False(t, done.Leased)
	var leases int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM thread_leases WHERE source_key = $1`, thread).Scan(&leases))
	require.Zero(t, leases)
	require.True(t, take(t, d.DB, third, 3).Leased, "while the next post's job does (the count above would see its row)")
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM thread_leases WHERE source_key = $1`, thread).Scan(&leases))
	require.Equal(t, 1, leases)

	// Without a lease, Take only records.
	rec := take(t, d.DB, "1800000004.000100", 0)
	require.True(t, rec.Created)
	require.False(t, rec.Leased)
	require.Equal(t, 0, rec.Turn.Attempts)
}

// A batch that fails writes nothing: text the database refuses leaves no
// turn behind, and the connection goes back to the pool usable.
func TestTakeIsAllOrNothing(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	key := threads.Key{Team: "T1", Channel: "C1", Root: "1800000000.000100"}
	l := lease("1800000009.000100", 9)
	_, err := d.DB.Turns().Take(ctx, db.TurnTake{
		Start: db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: key.SourceKey(), Visibility: provenance.Public}, MessageTS: "1800000009.000100", ActorID: "UA"},
		Key:   key, Post: threads.Message{TS: "1800000009.000100", Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "UA"}, Text: "bad \x00 text"},
		Lease: &l, TTL: time.Minute,
	})
	require.ErrorIs(t, err, db.ErrInvalidText)
	_, err = d.DB.Turns().Find(ctx, "T1", "C1", "1800000009.000100")
	require.ErrorIs(t, err, db.ErrNotFound, "the turn was not recorded without its post")
	require.True(t, take(t, d.DB, "1800000009.000100", 9).Leased, "the same post, taken again, is recorded (Find above sees a turn once there is one)")
	_, err = d.DB.Turns().Find(ctx, "T1", "C1", "1800000009.000100")
	require.NoError(t, err)
}
