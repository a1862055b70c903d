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

// liveTeam is a workspace whose erasure runs while serve still writes to
// it: the session log's context lines (no turn), thread backfills and
// inbox arrivals.
type liveTeam struct {
	t    *testing.T
	ctx  context.Context
	d    *testdb.DB
	team string
	key  threads.Key
}

func newLiveTeam(t *testing.T, ctx context.Context, d *testdb.DB, team string) liveTeam {
	t.Helper()
	key, _, err := threads.KeyFor(team, "C1", "1800000000.000100", "")
	require.NoError(t, err)
	return liveTeam{t: t, ctx: ctx, d: d, team: team, key: key}
}

// chatter logs a line of chatter, as serve logs a thread message not
// addressed to it.
func (l liveTeam) chatter(x interface{ Sessions() db.Sessions }, ts string) error {
	_, err := x.Sessions().Append(l.ctx, l.key, threads.Message{TS: threads.TS(ts), Role: threads.RoleUser,
		Actor: provenance.Actor{Kind: provenance.KindUser, ID: "U1"}, Text: "zqx chatter " + ts})
	return err
}

// backfill logs the thread's earlier messages, as a turn does for a
// thread it joins; channel names the thread, one backfill each.
func (l liveTeam) backfill(channel string) error {
	key, _, err := threads.KeyFor(l.team, channel, "1800000000.000100", "")
	require.NoError(l.t, err)
	_, err = l.d.DB.Sessions().Backfill(l.ctx, key, []threads.Message{{TS: "1800000000.000100", Role: threads.RoleUser,
		Actor: provenance.Actor{Kind: provenance.KindUser, ID: "U1"}, Text: "zqx the thread's root"}})
	return err
}

// arrive writes a post to the inbox, as serve's ack path does.
func (l liveTeam) arrive(x interface{ Inbox() db.Inbox }, ts string) error {
	_, err := x.Inbox().Arrive(l.ctx, db.Arrival{Team: l.team, Channel: "C1", TS: ts, Args: []byte(`{"team":"` + l.team + `"}`)})
	return err
}

// rows counts the team's rows in each table serve writes these to.
func (l liveTeam) rows() map[string]int {
	return l.count(map[string]string{
		"session_messages": `SELECT count(*) FROM session_messages WHERE team_id = $1`,
		"thread_backfills": `SELECT count(*) FROM thread_backfills WHERE source_key LIKE 'slack:' || $1 || ':%'`,
		"inbox_arrivals":   `SELECT count(*) FROM inbox_arrivals WHERE team = $1`,
	})
}

// count runs each query with the team, by the name of its table.
func (l liveTeam) count(queries map[string]string) map[string]int {
	l.t.Helper()
	got := map[string]int{}
	for table, q := range queries {
		var n int
		require.NoError(l.t, l.d.Pool.QueryRow(l.ctx, q, l.team).Scan(&n))
		got[table] = n
	}
	return got
}

// eraseWhileWriting runs write in a transaction that stays open while
// the team's erasure starts, then commits it, and lets the erasure end;
// it reports whether the erasure waited for the transaction at its first
// lock.
func (l liveTeam) eraseWhileWriting(write func(tx *db.Tx) error) (waited bool) {
	l.t.Helper()
	written, commit, committed := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		committed <- l.d.DB.InTx(l.ctx, func(tx *db.Tx) error {
			err := write(tx)
			close(written)
			if err != nil {
				return err
			}
			<-commit
			return nil
		})
	}()
	<-written
	erased := make(chan error, 1)
	go func() { _, err := l.d.DB.EraseTeam(l.ctx, l.team); erased <- err }()
	err, waited := testdb.AwaitLockWait(l.ctx, l.t, l.d, "EraseHoldTeam", erased)
	close(commit)
	require.NoError(l.t, <-committed)
	if waited {
		err = <-erased
	}
	require.NoError(l.t, err)
	return waited
}

// holdErasure starts the team's erasure and stops it at its admin record
// (a row lock the test takes), past every table serve writes to; release
// lets it go and returns what it returned.
func (l liveTeam) holdErasure() (release func() error) {
	l.t.Helper()
	_, err := l.d.Pool.Exec(l.ctx, `INSERT INTO admin_audit (team_id, actor_id, action, target) VALUES ($1, 'U0ADMIN', 'forget', 'x')`, l.team)
	require.NoError(l.t, err)
	hold, err := l.d.Pool.Begin(l.ctx)
	require.NoError(l.t, err)
	l.t.Cleanup(func() { _ = hold.Rollback(context.Background()) })
	_, err = hold.Exec(l.ctx, `SELECT 1 FROM admin_audit WHERE team_id = $1 FOR UPDATE`, l.team)
	require.NoError(l.t, err)
	erased := make(chan error, 1)
	go func() { _, err := l.d.DB.EraseTeam(l.ctx, l.team); erased <- err }()
	if err, waited := testdb.AwaitLockWait(l.ctx, l.t, l.d, "EraseTeamAudit", erased); !waited {
		l.t.Fatalf("the erasure finished (err %v) while the team's admin record was locked", err)
	}
	return func() error {
		require.NoError(l.t, hold.Rollback(l.ctx))
		return <-erased
	}
}

// A workspace's context line, backfill and inbox arrival written while its
// erasure runs, after the erasure deleted those tables, are refused: they
// would outlive it. The erasure is held on its admin record (a row lock,
// taken by the test), past every table they go to. Once it has committed
// the same writes are taken again, and the counts find them.
func TestEraseTeamRefusesWritesOfNoTurnWhileItRuns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	l := newLiveTeam(t, ctx, d, "T0GONE")
	require.NoError(t, l.chatter(d.DB, "1800000000.000200"))
	require.NoError(t, l.backfill("C0EARLIER"))
	require.NoError(t, l.arrive(d.DB, "1800000000.000200"))
	require.Equal(t, map[string]int{"session_messages": 2, "thread_backfills": 1, "inbox_arrivals": 1}, l.rows(), "the counts find what was written before")
	release := l.holdErasure()

	during := map[string]error{
		"context line": l.chatter(d.DB, "1800000000.000300"),
		"backfill":     l.backfill("C0DURING"),
		"arrival":      l.arrive(d.DB, "1800000000.000300"),
	}
	require.NoError(t, release())
	require.Equal(t, map[string]int{"session_messages": 0, "thread_backfills": 0, "inbox_arrivals": 0}, l.rows(), "nothing written while the erasure ran outlives it")
	for what, err := range during {
		require.ErrorIs(t, err, db.ErrErasing, "the %s was refused", what)
	}

	// Now the workspace's data is gone, and nothing holds its writes.
	require.NoError(t, l.chatter(d.DB, "1800000000.000400"))
	require.NoError(t, l.backfill("C0AFTER"))
	require.NoError(t, l.arrive(d.DB, "1800000000.000400"))
	require.Equal(t, map[string]int{"session_messages": 2, "thread_backfills": 1, "inbox_arrivals": 1}, l.rows(), "the line, the backfill with its line, the arrival")
}

// The same writes under way when the erasure starts hold it off until they
// commit, and it deletes them: committed after the erasure deleted the
// log and the inbox, they would outlive it. They are written in one
// transaction (as a context line is, on the pool, in one statement), and
// the erasure waits for its first lock.
func TestEraseTeamWaitsForAWriteOfNoTurnAndDeletesIt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	l := newLiveTeam(t, ctx, d, "T0GONE")

	waited := l.eraseWhileWriting(func(tx *db.Tx) error {
		return errors.Join(l.chatter(tx, "1800000000.000200"), l.arrive(tx, "1800000000.000200"))
	})
	require.Equal(t, map[string]int{"session_messages": 0, "thread_backfills": 0, "inbox_arrivals": 0}, l.rows(), "what was written as the erasure started is erased")
	require.True(t, waited, "the erasure waited for the writes to commit")

	// The control: the counts find the same writes when no erasure runs.
	require.NoError(t, l.chatter(d.DB, "1800000000.000200"))
	require.NoError(t, l.arrive(d.DB, "1800000000.000200"))
	require.Equal(t, map[string]int{"session_messages": 1, "thread_backfills": 0, "inbox_arrivals": 1}, l.rows())
}

// An arrival waiting in the inbox when the erasure starts is not moved
// into the job queue past it. The mover takes an arrival and inserts its
// job in one transaction (Inbox.TakeArrival, then River's insert); one
// that ran after the erasure deleted the team's jobs left a job, the
// post's words in its args. The erasure is held on a turn of the team (a
// row lock, taken by the test), past the jobs, and the mover runs then.
func TestEraseTeamLeavesNoJobMovedWhileItRuns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	l := newLiveTeam(t, ctx, d, "T0GONE")
	require.NoError(t, l.arrive(d.DB, "1800000000.000200"))
	var turn int64
	require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id)
		VALUES ($1, 'C1', '1800000000.000100', $2, 'U1') RETURNING id`, l.team, l.key.SourceKey()).Scan(&turn))
	// move is the mover: the oldest arrival into a job. It reports
	// whether it found one.
	move := func() bool {
		t.Helper()
		var moved bool
		require.NoError(t, d.DB.InTx(ctx, func(tx *db.Tx) error {
			a, _, err := tx.Inbox().TakeArrival(ctx)
			if errors.Is(err, db.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			moved = true
			_, err = tx.Pgx().Exec(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state) VALUES ($1, 'mnemo_turn', 5, 'turns', 'available')`, a.Args)
			return err
		}))
		return moved
	}
	jobs := func() int {
		t.Helper()
		var n int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE args @> jsonb_build_object('team', $1::text)`, l.team).Scan(&n))
		return n
	}

	hold, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = hold.Rollback(ctx) }()
	_, err = hold.Exec(ctx, `SELECT 1 FROM turns WHERE id = $1 FOR UPDATE`, turn)
	require.NoError(t, err)
	erased := make(chan error, 1)
	go func() { _, err := d.DB.EraseTeam(ctx, l.team); erased <- err }()
	if err, waited := testdb.AwaitLockWait(ctx, t, d, "EraseTeamTurns", erased); !waited {
		t.Fatalf("the erasure finished (err %v) while a turn of the team was locked", err)
	}
	movedDuring := move()
	require.NoError(t, hold.Rollback(ctx))
	require.NoError(t, <-erased)
	require.Zero(t, jobs(), "no job of the team outlives its erasure")
	require.False(t, movedDuring, "the arrival the erasure deleted was not moved")

	// The control: the count finds a job the mover moves.
	require.NoError(t, l.arrive(d.DB, "1800000000.000300"))
	require.True(t, move())
	require.Equal(t, 1, jobs())
}

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
