package inbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
)

// dmPost is a DM of the person the tests below erase.
func dmPost(ts string, prior int) inbox.Post {
	return inbox.Post{Team: "T1", Channel: "D0U1DM", ChannelType: "im", TS: ts, User: "U0ERASED", Text: "my zqxsecret plans", Prior: prior}
}

// erasedDuringTurn enqueues p, holds its turn, erases its person while the
// turn runs, runs then (after the erasure, with the turn's release), and
// returns the first event that ends or fails its job's attempt.
func erasedDuringTurn(t *testing.T, b *bundle, p inbox.Post, then func(release func())) *river.Event {
	t.Helper()
	ctx := context.Background()
	events, stop := b.inbox.Client().Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed, river.EventKindJobSnoozed)
	t.Cleanup(stop)
	var once sync.Once
	hold := b.h.holdTurn(p.TS)
	release := func() { once.Do(hold) }
	t.Cleanup(release)
	_, err := b.inbox.Enqueue(ctx, p)
	require.NoError(t, err)
	b.h.waitFor(t, "the turn to start", func() bool { return len(b.h.started) == 1 })

	r, err := b.db.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ERASED", By: "U9"})
	require.NoError(t, err)
	require.Contains(t, r, db.ReceiptLine{Table: "river_job", Action: "tombstoned", Rows: 1}, "the job was running")
	then(release)

	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Job.Kind == (inbox.Post{}).Kind() && ev.Kind != river.EventKindJobSnoozed {
				return ev
			}
		case <-timeout:
			t.Fatalf("the erased post's job did not end; logs:\n%s", b.logs)
		}
	}
}

// A DM's lease goes with its person's erasure (db.DB.Erase). The job whose
// turn held it finds it gone at its next renewal: the turn stops, and the
// job ends there, cancelled, rather than fail, wait and try a post that is
// a tombstone now. Nobody is told, nothing is retried, nothing of the DM
// is written back, and no warning is logged.
func TestErasureStopsTheTurnOfTheirDM(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{LeaseTTL: 400 * time.Millisecond, RetryAfter: []time.Duration{50 * time.Millisecond}})
	p := dmPost("1800000000.000100", 0)

	ev := erasedDuringTurn(t, b, p, func(func()) {})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind, "the job ends at once, its first attempt stopped (attempt %d, errors %v)", ev.Job.Attempt, ev.Job.Errors)
	require.Equal(t, 1, ev.Job.Attempt, "no attempt follows")
	require.Len(t, ev.Job.Errors, 1)
	require.Equal(t, "JobCancelError: the post was erased", ev.Job.Errors[0].Error, "the job's error names nothing")

	b.h.mu.Lock()
	require.Equal(t, []string{p.TS}, b.h.started, "the turn ran once")
	require.Empty(t, b.h.finished, "and was stopped")
	require.Empty(t, b.h.gaveUp, "nobody is told")
	b.h.mu.Unlock()
	require.Empty(t, b.db.FindAll(t, "D0U1DM", "U0ERASED", "zqxsecret"), "nothing names them, their DM or their words")
	require.Contains(t, b.logs.String(), "the post was erased while its turn ran")
	require.NotContains(t, b.logs.String(), `"level":"warn"`, "an erasure is no warning:\n%s", b.logs)
	require.NotContains(t, b.logs.String(), `"level":"error"`)
}

// A post erased while its last attempt ran, which then failed, is not
// given up on: GiveUp would tell the thread, and record the turn, of a
// post that is gone. The job ends, cancelled.
func TestErasedPostIsNotGivenUpOn(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	p := dmPost("1800000000.000200", inbox.Attempts-1) // its next attempt is its last
	b.h.mu.Lock()
	b.h.fail[p.TS] = 1
	b.h.mu.Unlock()

	// The turn fails as soon as the erasure is done (before the lease's
	// renewal would find it gone).
	ev := erasedDuringTurn(t, b, p, func(release func()) { release() })
	b.h.mu.Lock()
	gaveUp := b.h.gaveUp
	b.h.mu.Unlock()
	require.Empty(t, gaveUp, "nobody is told of an erased post")
	require.Equal(t, river.EventKindJobCancelled, ev.Kind, "the job ends (errors %v)", ev.Job.Errors)
	require.Equal(t, "JobCancelError: the post was erased", ev.Job.Errors[len(ev.Job.Errors)-1].Error)
	require.Empty(t, b.db.FindAll(t, "D0U1DM", "U0ERASED", "zqxsecret"), "nothing names them, their DM or their words")
}
