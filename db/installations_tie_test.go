package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
)

// event_time has whole seconds and Slack does not promise delivery order:
// a removal (team_access_revoked) and an addition (team_access_granted)
// of one workspace sent in the same second are never settled by which
// arrived last. Whichever arrives second finds the tie: the workspace is
// left removed, the safe side, and reported tied, until Slack's answer is
// recorded (SettleTeamAccess). Two removals in one second, and events of
// different seconds, are the controls: no tie.
func TestSameSecondTeamAccessEventsAreTiedNotOrderedByArrival(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	inst := d.DB.Installations()
	teams := []string{"T0GRANTLAST", "T0REVOKELAST", "T0LATER", "T0TWICE", "T0APART"}
	for _, team := range teams {
		require.NoError(t, inst.ServeTeam(ctx, team, "E0ORG"))
	}
	served := func(team string) bool {
		t.Helper()
		_, err := inst.Find(ctx, team, "")
		if err != nil {
			require.ErrorIs(t, err, db.ErrNotFound)
		}
		return err == nil
	}
	access := func(team, event string, revoked bool, sent time.Time) db.AccessChanged {
		t.Helper()
		did, err := inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{team}, Revoked: revoked, EventID: event, Sent: sent})
		require.NoError(t, err)
		return did
	}
	second := time.Now().Add(-time.Hour).Truncate(time.Second)

	// Removed, then added in the same second (the addition arrives last):
	// not served on the addition's word alone. Slack lists it: served.
	require.Empty(t, access("T0GRANTLAST", "Ev1", true, second).Tied)
	did := access("T0GRANTLAST", "Ev2", false, second.Add(900*time.Millisecond))
	require.Equal(t, []string{"T0GRANTLAST"}, did.Tied)
	require.False(t, served("T0GRANTLAST"), "a tie is left removed")
	settled, err := inst.SettleTeamAccess(ctx, "E0ORG", did.Tied, []string{"T0GRANTLAST"}, second)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"T0GRANTLAST": true}, settled)
	require.True(t, served("T0GRANTLAST"), "Slack says the addition came last")
	due, err := inst.DisabledBefore(ctx, time.Now().Add(time.Hour), 100)
	require.NoError(t, err)
	require.NotContains(t, due, "T0GRANTLAST", "and its data is not due for erasure")

	// Added, then removed in the same second (the removal arrives last):
	// removed at once; Slack does not list it, so it stays removed.
	require.Empty(t, access("T0REVOKELAST", "Ev3", false, second).Tied)
	require.True(t, served("T0REVOKELAST"), "the control: an addition alone leaves it served")
	did = access("T0REVOKELAST", "Ev4", true, second)
	require.Equal(t, []string{"T0REVOKELAST"}, did.Tied)
	require.False(t, served("T0REVOKELAST"))
	settled, err = inst.SettleTeamAccess(ctx, "E0ORG", did.Tied, nil, second)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"T0REVOKELAST": false}, settled)
	require.False(t, served("T0REVOKELAST"), "Slack says the removal came last")

	// A tie that an event of a later second changed before Slack answered:
	// that one has the last word.
	access("T0LATER", "Ev5", true, second)
	did = access("T0LATER", "Ev6", false, second)
	require.Equal(t, []string{"T0LATER"}, did.Tied)
	access("T0LATER", "Ev7", true, second.Add(time.Second))
	settled, err = inst.SettleTeamAccess(ctx, "E0ORG", did.Tied, []string{"T0LATER"}, second)
	require.NoError(t, err)
	require.Empty(t, settled)
	require.False(t, served("T0LATER"))

	// The controls: two removals in one second, and a removal and an
	// addition a second apart, the later one winning as before.
	access("T0TWICE", "Ev8", true, second)
	require.Empty(t, access("T0TWICE", "Ev9", true, second).Tied)
	access("T0APART", "Ev10", true, second)
	require.Empty(t, access("T0APART", "Ev11", false, second.Add(time.Second)).Tied)
	require.True(t, served("T0APART"))
}

// Two events of one second taken in at once (two replicas) find their
// tie too: the second to lock the workspace's row reads it as the first
// left it. A transaction holding the row keeps both waiting until both
// are queued behind it.
func TestSameSecondTeamAccessEventsTakenInAtOnceAreTied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	inst := d.DB.Installations()
	require.NoError(t, inst.ServeTeam(ctx, "T0ORGB", "E0ORG"))
	second := time.Now().Add(-time.Hour).Truncate(time.Second)

	hold, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = hold.Rollback(ctx) }()
	_, err = hold.Exec(ctx, `SELECT 1 FROM installation_teams WHERE team_id = 'T0ORGB' FOR UPDATE`)
	require.NoError(t, err)

	results, errs := make([]db.AccessChanged, 2), make([]error, 2)
	var wg sync.WaitGroup
	for i, revoked := range []bool{true, false} {
		wg.Go(func() {
			results[i], errs[i] = inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGB"}, Revoked: revoked, EventID: []string{"EvR", "EvG"}[i], Sent: second})
		})
	}
	require.Eventually(t, func() bool {
		var waiting int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%InstallationTeamAccess%'`).Scan(&waiting))
		return waiting == 2
	}, 10*time.Second, 10*time.Millisecond, "both events wait on the row")
	require.NoError(t, hold.Commit(ctx))
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, 2, results[0].Changed+results[1].Changed, "both were taken in")
	require.ElementsMatch(t, []string{"T0ORGB"}, append(results[0].Tied, results[1].Tied...), "exactly one found the tie")
	_, err = inst.Find(ctx, "T0ORGB", "")
	require.ErrorIs(t, err, db.ErrNotFound, "left removed until Slack says")
}
