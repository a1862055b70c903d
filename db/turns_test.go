package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
)

func turnStart(ts string) db.TurnStart {
	return db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public}, MessageTS: ts, ActorID: "UA"}
}

// Every delivery and retry of a post shares one turn, and a turn records
// its outcome once.
func TestTurnIsOpenedOnceAndFinishedOnce(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	turns := d.DB.Turns()
	start := turnStart("1800000000.000100")
	// A Slack Connect channel of an organisation's workspace: learning
	// reads the place back from the turn after it.
	start.Place.Shared, start.Place.Org = true, "E1"

	first, created, err := turns.Open(ctx, start)
	require.NoError(t, err)
	require.True(t, created)
	again, created, err := turns.Open(ctx, start)
	require.NoError(t, err)
	require.False(t, created, "a second delivery gets the same turn")
	require.Equal(t, first.ID, again.ID)
	require.Equal(t, start.Place, again.Place)
	require.Equal(t, db.TurnRunning, again.Status)
	require.Nil(t, again.Pending)

	found, err := turns.Find(ctx, "T1", "C1", start.MessageTS)
	require.NoError(t, err)
	require.Equal(t, first.ID, found.ID)
	require.Equal(t, start.Place, found.Place)
	require.Empty(t, found.StreamTS)
	require.NoError(t, turns.Streamed(ctx, first.ID, "1800000000.000200"))
	found, err = turns.Get(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, "1800000000.000200", found.StreamTS, "the message its answer started in")
	_, err = turns.Find(ctx, "T1", "C1", "1800000009.000100")
	require.ErrorIs(t, err, db.ErrNotFound)

	for want := 1; want <= 2; want++ {
		got, err := turns.Attempt(ctx, first.ID)
		require.NoError(t, err)
		require.Equal(t, want, got.Attempts)
	}

	_, err = turns.Decide(ctx, first.ID, db.Pending{Kind: db.PendingAnswer, Text: "the answer"}, true)
	require.NoError(t, err)
	got, err := turns.Get(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, &db.Pending{Kind: db.PendingAnswer, Text: "the answer"}, got.Pending)
	require.True(t, got.UsedMemoryWrite)

	require.NoError(t, turns.Finish(ctx, first.ID, db.TurnDone, false, "1800000001.000100"))
	got, err = turns.Get(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, db.TurnDone, got.Status)
	require.Equal(t, "1800000001.000100", got.ReplyTS)
	require.True(t, got.UsedMemoryWrite, "a memory write is never forgotten by a later finish")
	require.NotNil(t, got.FinishedAt)

	require.ErrorIs(t, turns.Finish(ctx, first.ID, db.TurnFailed, false, ""), db.ErrTurnFinished)
	_, err = turns.Decide(ctx, first.ID, db.Pending{Kind: db.PendingNotice, Text: "late"}, false)
	require.ErrorIs(t, err, db.ErrTurnFinished)
	got, err = turns.Get(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, db.TurnDone, got.Status, "the first outcome stands")
}

// A running turn that nothing touched for long is handed to one caller.
func TestAbandonedTurnsAreClaimedOnce(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	turns := d.DB.Turns()
	stale, _, err := turns.Open(ctx, turnStart("1800000000.000100"))
	require.NoError(t, err)
	done, _, err := turns.Open(ctx, turnStart("1800000001.000100"))
	require.NoError(t, err)
	require.NoError(t, turns.Finish(ctx, done.ID, db.TurnDone, false, ""))

	got, err := turns.ClaimAbandoned(ctx, time.Now().Add(-time.Minute), 10)
	require.NoError(t, err)
	require.Empty(t, got, "a fresh running turn is left alone")

	claimed := time.Now()
	got, err = turns.ClaimAbandoned(ctx, time.Now().Add(time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, got, 1, "only the running one, not the finished one")
	require.Equal(t, stale.ID, got[0].ID)

	// Untouched since the claim: however long this machine took to get
	// here (a second's margin made this a timing test on a loaded one).
	got, err = turns.ClaimAbandoned(ctx, claimed, 10)
	require.NoError(t, err)
	require.Empty(t, got, "claiming touched it")
}

func TestStoresMapNoRowsToErrNotFound(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	_, err := d.DB.Turns().Get(context.Background(), 424242)
	require.ErrorIs(t, err, db.ErrNotFound)
}

func TestInvalidTextIsNamed(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	err := d.DB.Audit().Record(ctx, db.AuditEntry{Team: "T1", ActorID: "UA", Action: "test", Detail: "nul \x00 byte"})
	require.ErrorIs(t, err, db.ErrInvalidText)
	// Control: the same row without the NUL byte is stored.
	require.NoError(t, d.DB.Audit().Record(ctx, db.AuditEntry{Team: "T1", ActorID: "UA", Action: "test", Detail: "nul byte"}))
}
