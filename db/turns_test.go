package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
)

func TestTurnClaimedOnceAndStaleOnesFailed(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	turns := d.DB.Turns()
	start := db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public}, MessageTS: "1800000000.000100", ActorID: "UA"}
	id, err := turns.Claim(ctx, start)
	require.NoError(t, err)
	_, err = turns.Claim(ctx, start)
	require.ErrorIs(t, err, db.ErrTurnClaimed)

	done := start
	done.MessageTS = "1800000001.000100"
	doneID, err := turns.Claim(ctx, done)
	require.NoError(t, err)
	require.NoError(t, turns.Finish(ctx, doneID, db.TurnDone, false))

	n, err := turns.FailStale(ctx, time.Now().Add(-time.Minute))
	require.NoError(t, err)
	require.Zero(t, n, "a fresh running turn is left alone")
	n, err = turns.FailStale(ctx, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "only the running one, not the finished one")

	got, err := turns.Get(ctx, id)
	require.NoError(t, err)
	require.Equal(t, db.TurnFailed, got.Status)
	require.Equal(t, start.Place, got.Place)
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
