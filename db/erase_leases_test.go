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

// A person's erasure deletes the lease of a thread of their DMs, held by
// the job answering their post there: its row names the DM and the
// thread. The job's next renewal finds it gone (and so stops the turn).
// The waiter of a later post in that thread goes too. Another person's DM
// lease, and a channel thread's lease of the person's own post, stay.
func TestEraseDeletesTheLeasesOfTheirDMs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const root, later = "1800000000.000100", "1800000001.000100"
	// take takes a post up in a thread as the inbox's job does (Turns.Take
	// with the job's lease): the turn, the post logged, the lease.
	take := func(channel, actor, ts string, vis provenance.Visibility, job int64) db.Taken {
		t.Helper()
		key := threads.Key{Team: "T1", Channel: channel, Root: root}
		l := db.Lease{SourceKey: key.SourceKey(), PostTS: ts, JobID: job, Holder: "replica-1"}
		tk, err := d.DB.Turns().Take(ctx, db.TurnTake{
			Start: db.TurnStart{Place: provenance.Place{Team: "T1", Channel: channel, SourceKey: key.SourceKey(), ThreadTS: root, Visibility: vis}, MessageTS: ts, ActorID: actor},
			Key:   key,
			Post:  threads.Message{TS: threads.TS(ts), Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: actor}, Authority: provenance.Instruction, Text: "post " + ts},
			Lease: &l, TTL: time.Minute,
		})
		require.NoError(t, err)
		return tk
	}
	mine := take("D0U1DM", "U0ERASED", root, provenance.DM, 1)
	require.True(t, mine.Leased, "their DM turn holds its thread")
	require.False(t, take("D0U1DM", "U0ERASED", later, provenance.DM, 2).Leased, "a later post of theirs waits for it")
	require.True(t, take("D0BOBDM", "U0BOB", root, provenance.DM, 3).Leased, "control: Bob's DM")
	require.True(t, take("C0SHARED", "U0ERASED", root, provenance.Public, 4).Leased, "control: their post in a channel's thread")
	leases := func() []string {
		t.Helper()
		var keys []string
		rows, err := d.Pool.Query(ctx, `SELECT source_key FROM thread_leases ORDER BY source_key`)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var k string
			require.NoError(t, rows.Scan(&k))
			keys = append(keys, k)
		}
		require.NoError(t, rows.Err())
		return keys
	}
	require.Equal(t, []string{"slack:T1:C0SHARED:" + root, "slack:T1:D0BOBDM:" + root, "slack:T1:D0U1DM:" + root}, leases())
	require.Subset(t, testdb.Tables(d.Find(t, "D0U1DM")), []string{"thread_leases", "thread_waiters"}, "the walk sees the DM's lease and waiter before")

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ERASED", By: "U9"})
	require.NoError(t, err)
	require.Empty(t, d.Find(t, "D0U1DM"), "no row names their DM")
	require.Contains(t, r, db.ReceiptLine{Table: "thread_leases", Action: "deleted", Rows: 1}, "the receipt counts the lease")
	require.Equal(t, []string{"slack:T1:C0SHARED:" + root, "slack:T1:D0BOBDM:" + root}, leases(), "Bob's DM and the channel's thread keep their leases")

	held, err := d.DB.Leases().Renew(ctx, mine.Turn.Place.SourceKey, 1, time.Minute)
	require.NoError(t, err, "the job's renewal is no error")
	require.False(t, held, "the job's next renewal finds its lease gone")

	again, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ERASED", By: "U9"})
	require.NoError(t, err)
	require.Zero(t, again.Total(), "erasing them again finds nothing: %v", again)
}
