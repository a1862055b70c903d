package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// turnWrites are the rest of what serve writes for a live workspace: a
// post's turn (Turns.Take, by a job, with the lease and the post's line;
// Turns.Open, by Accept and GiveUp) and the settings a slash command sets.
type turnWrites struct{ liveTeam }

// take takes the post at ts of the thread in channel up for job, as the
// inbox's job does.
func (w turnWrites) take(x interface{ Turns() db.Turns }, channel, ts string, job int64) error {
	key, _, err := threads.KeyFor(w.team, channel, "1800000000.000100", "")
	require.NoError(w.t, err)
	l := db.Lease{SourceKey: key.SourceKey(), PostTS: ts, JobID: job, Holder: "replica-a"}
	place := provenance.Place{Team: w.team, Channel: channel, SourceKey: key.SourceKey(), Visibility: provenance.Public}
	_, err = x.Turns().Take(w.ctx, db.TurnTake{
		Start: db.TurnStart{Place: place, MessageTS: ts, ActorID: "U1"}, Key: key,
		Post:  threads.Message{TS: threads.TS(ts), Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "U1"}, Authority: provenance.Instruction, Text: "zqx post " + ts},
		Lease: &l, TTL: time.Minute,
	})
	return err
}

// open records the post at ts's turn, as Accept and GiveUp do.
func (w turnWrites) open(x interface{ Turns() db.Turns }, ts string) error {
	place := provenance.Place{Team: w.team, Channel: "C1", SourceKey: w.key.SourceKey(), Visibility: provenance.Public}
	_, _, err := x.Turns().Open(w.ctx, db.TurnStart{Place: place, MessageTS: ts, ActorID: "U1"})
	return err
}

// settings turns learning off in channel and about user, as /mnemo
// learning does.
func (w turnWrites) settings(channel, user string) error {
	s := w.d.DB.Settings()
	return errors.Join(s.SetLearning(w.ctx, w.team, channel, false, "U0ADMIN"), s.SetUserLearning(w.ctx, w.team, user, false))
}

// rows counts the team's rows in each table these go to.
func (w turnWrites) rows() map[string]int {
	return w.count(map[string]string{
		"turns":            `SELECT count(*) FROM turns WHERE team_id = $1`,
		"session_messages": `SELECT count(*) FROM session_messages WHERE team_id = $1`,
		"thread_leases":    `SELECT count(*) FROM thread_leases WHERE source_key LIKE 'slack:' || $1 || ':%'`,
		"thread_waiters":   `SELECT count(*) FROM thread_waiters WHERE source_key LIKE 'slack:' || $1 || ':%'`,
		"channel_settings": `SELECT count(*) FROM channel_settings WHERE team_id = $1`,
		"user_settings":    `SELECT count(*) FROM user_settings WHERE team_id = $1`,
	})
}

// A post's turn taken up, or recorded, while its workspace's erasure runs,
// after the erasure deleted the turns, is refused with its lease and its
// line: they would outlive it. So is a post whose turn was recorded before
// (a job's next attempt), and the settings a slash command sets. The
// erasure is held on its admin record (a row lock, taken by the test),
// past every table they go to. Taking up again a post whose turn the
// erasure deleted would wait for it to end (and then write): that runs
// beside it, and is found refused, or waiting. Once the erasure has committed the same writes are
// taken again, and the counts find them.
func TestEraseTeamRefusesTurnsAndSettingsWhileItRuns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	w := turnWrites{newLiveTeam(t, ctx, d, "T0GONE")}
	require.NoError(t, w.take(d.DB, "C1", "1800000000.000200", 1))
	require.NoError(t, w.take(d.DB, "C1", "1800000000.000300", 2)) // waits for the first
	require.NoError(t, w.settings("C1", "U1"))
	before := map[string]int{"turns": 2, "session_messages": 2, "thread_leases": 1, "thread_waiters": 1, "channel_settings": 1, "user_settings": 1}
	require.Equal(t, before, w.rows(), "the counts find what was written before")
	release := w.holdErasure()

	during := map[string]error{
		"new thread's post taken up": w.take(d.DB, "C2", "1800000000.000400", 3),
		"new post's turn":            w.open(d.DB, "1800000000.000500"),
		"new settings":               w.settings("C2", "U2"),
	}
	// beside runs a write of rows the erasure deleted, and returns once
	// it did, or waits at statement.
	beside := func(what, statement string, write func() error) func() {
		done := make(chan error, 1)
		go func() { done <- write() }()
		err, waiting := testdb.AwaitLockWait(ctx, t, d, statement, done)
		return func() {
			if waiting {
				err = <-done
				what += " (it waited for the erasure)"
			}
			during[what] = err
		}
	}
	retaken := beside("post taken up again", "TurnOpen", func() error { return w.take(d.DB, "C1", "1800000000.000300", 2) })
	require.NoError(t, release())
	retaken()
	gone := map[string]int{"turns": 0, "session_messages": 0, "thread_leases": 0, "thread_waiters": 0, "channel_settings": 0, "user_settings": 0}
	require.Equal(t, gone, w.rows(), "nothing written while the erasure ran outlives it")
	for what, err := range during {
		require.ErrorIs(t, err, db.ErrErasing, "the %s was refused", what)
	}

	// Now the workspace's data is gone, and nothing holds its writes.
	require.NoError(t, w.take(d.DB, "C1", "1800000000.000200", 1))
	require.NoError(t, w.take(d.DB, "C1", "1800000000.000300", 2))
	require.NoError(t, w.settings("C1", "U1"))
	require.Equal(t, before, w.rows(), "the turns, their lines, the lease and the waiter, the settings")
}

// A turn under way when the erasure starts holds it off until it commits,
// and the erasure deletes it: committed after the erasure deleted the
// turns, it would outlive it. The turns are taken and recorded in one
// transaction (the settings are written on the pool, in one statement),
// and the erasure waits for its first lock.
func TestEraseTeamWaitsForATurnAndDeletesIt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	w := turnWrites{newLiveTeam(t, ctx, d, "T0GONE")}

	waited := w.eraseWhileWriting(func(tx *db.Tx) error {
		return errors.Join(w.take(tx, "C1", "1800000000.000200", 1), w.open(tx, "1800000000.000300"))
	})
	require.Equal(t, map[string]int{"turns": 0, "session_messages": 0, "thread_leases": 0, "thread_waiters": 0, "channel_settings": 0, "user_settings": 0}, w.rows(), "what was written as the erasure started is erased")
	require.True(t, waited, "the erasure waited for the writes to commit")

	// The control: the counts find the same writes when no erasure runs.
	require.NoError(t, w.take(d.DB, "C1", "1800000000.000200", 1))
	require.NoError(t, w.open(d.DB, "1800000000.000300"))
	require.Equal(t, map[string]int{"turns": 2, "session_messages": 1, "thread_leases": 1, "thread_waiters": 0, "channel_settings": 0, "user_settings": 0}, w.rows())
}
