package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
)

// A post in a channel shared between organisations may have a turn in
// each one's workspace. ByMessageIn picks among the workspaces its caller
// accepts before the one-turn rule, and says nothing of the others;
// ByMessage (the operator's command) still sees them all.
func TestTurnByMessageInPicksAmongAcceptedWorkspaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const channel, ts = "C0SHARED", "1800000000.000100"
	open := func(team string) db.Turn {
		tr, _, err := d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: team, Channel: channel, SourceKey: "slack:" + team + ":" + channel + ":" + ts, Visibility: provenance.Public}, MessageTS: ts, ActorID: "U0ALICE"})
		require.NoError(t, err)
		return tr
	}
	mine, theirs := open("T0MINE"), open("T0THEIRS")
	only := func(team string) func(db.Turn) (bool, error) {
		return func(tr db.Turn) (bool, error) { return tr.Place.Team == team, nil }
	}

	got, err := d.DB.Turns().ByMessageIn(ctx, channel, ts, only("T0MINE"))
	require.NoError(t, err)
	require.Equal(t, mine.ID, got.ID)
	got, err = d.DB.Turns().ByMessageIn(ctx, channel, ts, only("T0THEIRS"))
	require.NoError(t, err)
	require.Equal(t, theirs.ID, got.ID)
	_, err = d.DB.Turns().ByMessageIn(ctx, channel, ts, only("T0NONE"))
	require.ErrorIs(t, err, db.ErrNotFound)

	_, err = d.DB.Turns().ByMessage(ctx, channel, ts)
	require.ErrorContains(t, err, "more than one workspace has one; give the turn's id")
	_, err = d.DB.Turns().ByMessageIn(ctx, channel, ts, nil)
	require.ErrorContains(t, err, "more than one workspace has one")
	require.NotContains(t, err.Error(), "turn's id")

	boom := errors.New("boom")
	_, err = d.DB.Turns().ByMessageIn(ctx, channel, ts, func(db.Turn) (bool, error) { return false, boom })
	require.ErrorIs(t, err, boom)
}
