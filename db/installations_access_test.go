package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
)

// A workspace an organisation's org-wide installation no longer serves
// (team_access_revoked) is found by no lookup, and comes due for erasure
// once revoked before the cutoff, like an uninstalled one; added again
// (team_access_granted), it is served and not due. Its neighbour, a
// workspace with an installation of its own, and another organisation's
// workspace are the controls. Each event is taken in once, and never
// undoes a newer one.
func TestTeamAccessRevokedComesDueForErasure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	inst := d.DB.Installations()
	for team, org := range map[string]string{"T0ORGA": "E0ORG", "T0ORGB": "E0ORG", "T0OWN": "E0ORG", "T0OTHER": "E0OTHER"} {
		require.NoError(t, inst.ServeTeam(ctx, team, org))
	}
	require.NoError(t, inst.Save(ctx, db.Installation{Team: "T0OWN", Token: db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}, BotUserID: "U0BOTOWN", InstallerID: "U0ADMIN"}))
	due := func(before time.Time) []string {
		t.Helper()
		teams, err := inst.DisabledBefore(ctx, before, 100)
		require.NoError(t, err)
		return teams
	}
	served := func(team string) bool {
		t.Helper()
		_, err := inst.Find(ctx, team, "")
		if err != nil {
			require.ErrorIs(t, err, db.ErrNotFound)
		}
		return err == nil
	}
	later := time.Now().Add(time.Minute)
	require.Empty(t, due(later), "the control: nothing is due")

	sent := time.Now().Add(-time.Minute)
	did, err := inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGB", "T0OWN", "T0OTHER", "T0NEVER"}, Revoked: true, EventID: "Ev1", Sent: sent})
	require.NoError(t, err)
	require.Equal(t, db.AccessChanged{Changed: 2}, did, "B and T0OWN, the organisation's; not another organisation's, nor one never served")
	require.False(t, served("T0ORGB"))
	_, err = inst.Find(ctx, "T0ORGB", "E0ORG")
	require.ErrorIs(t, err, db.ErrNotFound, "nor when the delivery names the organisation")
	require.True(t, served("T0ORGA"), "the control: its neighbour")
	require.True(t, served("T0OTHER"), "another organisation's")
	own, err := inst.Find(ctx, "T0OWN", "")
	require.NoError(t, err)
	require.Equal(t, "T0OWN", own.Team, "a workspace with its own installation is served by it")

	require.Equal(t, []string{"T0ORGB"}, due(later), "revoked before the cutoff")
	require.Empty(t, due(time.Now().Add(-time.Minute)), "revoked after the cutoff")

	// Slack's retry does nothing; nor does an older grant delivered late.
	did, err = inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGB"}, Revoked: true, EventID: "Ev1", Sent: sent})
	require.NoError(t, err)
	require.True(t, did.Duplicate)
	did, err = inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGB"}, EventID: "Ev0", Sent: sent.Add(-time.Minute)})
	require.NoError(t, err)
	require.Equal(t, db.AccessChanged{Newer: 1}, did)
	require.False(t, served("T0ORGB"))

	// A second removal keeps the first one's time: retention counts from it.
	_, err = d.Pool.Exec(ctx, `UPDATE installation_teams SET revoked_at = now() - interval '31 days' WHERE team_id = 'T0ORGB'`)
	require.NoError(t, err)
	did, err = inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGB"}, Revoked: true, EventID: "Ev2", Sent: time.Now()})
	require.NoError(t, err)
	require.Equal(t, 1, did.Changed)
	require.Equal(t, []string{"T0ORGB"}, due(time.Now().Add(-30*24*time.Hour)))

	// A second later: an addition in the removal's own second is a tie,
	// which Slack settles (TestSameSecondTeamAccessEventsAreTiedNotOrderedByArrival).
	did, err = inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGB"}, EventID: "Ev3", Sent: time.Now().Add(time.Second)})
	require.NoError(t, err)
	require.Equal(t, 1, did.Changed)
	require.True(t, served("T0ORGB"), "added again")
	require.Empty(t, due(later))

	// The organisation uninstalled: every workspace it served is due, as
	// before (the union keeps one row each).
	disableOrg(t, d, "E0ORG")
	require.ElementsMatch(t, []string{"T0ORGA", "T0ORGB"}, due(later))
}

// A workspace whose own installation was uninstalled, but which its
// organisation's org-wide installation still serves, keeps being served:
// its data is not due for erasure. One with no organisation to serve it
// is the control, and so is the same workspace once the organisation's
// installation stops serving it.
func TestAnUninstalledWorkspaceItsOrganisationStillServesIsNotErased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	inst := d.DB.Installations()
	require.NoError(t, inst.ServeTeam(ctx, "T0ORGA", "E0ORG"))
	sealed := db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}
	for _, team := range []string{"T0ORGA", "T0LONE"} {
		require.NoError(t, inst.Save(ctx, db.Installation{Team: team, Token: sealed, BotUserID: "U0BOT" + team, InstallerID: "U0ADMIN"}))
		did, err := inst.Disable(ctx, db.Uninstall{Team: team, Why: "app_uninstalled", EventID: "Ev" + team, Sent: time.Now()})
		require.NoError(t, err)
		require.True(t, did.Disabled)
	}
	org, err := inst.Find(ctx, "T0ORGA", "E0ORG")
	require.NoError(t, err)
	require.Equal(t, "E0ORG", org.Enterprise, "the organisation's installation serves it still")
	later := time.Now().Add(time.Hour)
	due, err := inst.DisabledBefore(ctx, later, 100)
	require.NoError(t, err)
	require.Equal(t, []string{"T0LONE"}, due, "only the workspace nobody serves any more")

	_, err = inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORGA"}, Revoked: true, EventID: "EvRevoke", Sent: time.Now()})
	require.NoError(t, err)
	due, err = inst.DisabledBefore(ctx, later, 100)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"T0LONE", "T0ORGA"}, due, "once the organisation stops serving it too")
}
