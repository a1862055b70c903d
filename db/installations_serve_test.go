package db_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// twoOrgs is a database with the org-wide installations of E0ORG and
// E0OTHER.
func twoOrgs(t *testing.T) *testdb.DB {
	t.Helper()
	d := testdb.New(t)
	sealed := db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}
	for _, e := range []string{"E0ORG", "E0OTHER"} {
		require.NoError(t, d.DB.Installations().Save(context.Background(), db.Installation{Enterprise: e, Token: sealed, BotUserID: "U0BOT" + e, InstallerID: "U0ADMIN"}))
	}
	return d
}

func servedBy(t *testing.T, d *testdb.DB, team string) string {
	t.Helper()
	var e string
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT enterprise_id FROM installation_teams WHERE team_id = $1`, team).Scan(&e))
	return e
}

func disableOrg(t *testing.T, d *testdb.DB, enterprise string) {
	t.Helper()
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `UPDATE installations SET installed_at = now() - interval '1 hour' WHERE enterprise_id = $1`, enterprise)
	require.NoError(t, err)
	u, err := d.DB.Installations().Disable(ctx, db.Uninstall{Enterprise: enterprise, Why: "app_uninstalled", EventID: "Ev0" + enterprise, Sent: time.Now()})
	require.NoError(t, err)
	require.True(t, u.Disabled)
}

// A workspace recorded as served by an organisation whose org-wide
// installation is active is not moved to another by a delivery that
// names it (an external member's home workspace under the host
// organisation): the host's uninstall would erase it, its own
// organisation's would no longer reach it. A first record, and a move
// away from a disabled or gone organisation, are made.
func TestServeTeamKeepsAWorkspaceWithItsActiveOrganisation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	inst := d.DB.Installations()

	require.NoError(t, inst.ServeTeam(ctx, "T0OTHER", "E0OTHER"))
	require.Equal(t, "E0OTHER", servedBy(t, d, "T0OTHER"), "the control: a first record")
	require.NoError(t, inst.ServeTeam(ctx, "T0OTHER", "E0OTHER"), "the same organisation again")

	err := inst.ServeTeam(ctx, "T0OTHER", "E0ORG")
	require.ErrorIs(t, err, db.ErrServedByAnother)
	require.Equal(t, "E0OTHER", servedBy(t, d, "T0OTHER"), "moved to another active organisation")
	teams, err := inst.TeamsOf(ctx, "E0ORG")
	require.NoError(t, err)
	require.Empty(t, teams)

	// Away from an organisation that is gone (erased, or never installed).
	require.NoError(t, inst.ServeTeam(ctx, "T0GONE", "E0GONE"))
	require.NoError(t, inst.ServeTeam(ctx, "T0GONE", "E0ORG"))
	require.Equal(t, "E0ORG", servedBy(t, d, "T0GONE"))

	// Away from one whose installation is disabled.
	disableOrg(t, d, "E0OTHER")
	require.NoError(t, inst.ServeTeam(ctx, "T0OTHER", "E0ORG"))
	require.Equal(t, "E0ORG", servedBy(t, d, "T0OTHER"), "the control: a move away from a disabled organisation")
}

// Two organisations' deliveries for a new workspace at once: one records
// it, the other is refused, never both told it serves it.
func TestServeTeamConcurrentFirstRecordsHaveOneWinner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	for i := range 20 {
		team := fmt.Sprintf("T0RACE%02d", i)
		var wg sync.WaitGroup
		errs := map[string]error{}
		var mu sync.Mutex
		for _, e := range []string{"E0ORG", "E0OTHER"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := d.DB.Installations().ServeTeam(ctx, team, e)
				mu.Lock()
				errs[e] = err
				mu.Unlock()
			}()
		}
		wg.Wait()
		winner := servedBy(t, d, team)
		for e, err := range errs {
			if e == winner {
				require.NoError(t, err, "%s %s", team, e)
			} else {
				require.ErrorIs(t, err, db.ErrServedByAnother, "%s %s (recorded %s)", team, e, winner)
			}
		}
	}
}

// Find serves a workspace recorded as an active organisation's with that
// organisation's installation only: a delivery naming another finds none
// (ErrNotFound) rather than the other's token. The workspace's own
// installation serves it whatever is named.
func TestFindRefusesAnotherOrganisationForARecordedWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := twoOrgs(t)
	inst := d.DB.Installations()
	require.NoError(t, inst.ServeTeam(ctx, "T0OTHER", "E0OTHER"))

	for _, enterprise := range []string{"", "E0OTHER"} {
		got, err := inst.Find(ctx, "T0OTHER", enterprise)
		require.NoError(t, err, "the control: %q", enterprise)
		require.Equal(t, "E0OTHER", got.Enterprise)
	}
	got, err := inst.Find(ctx, "T0OTHER", "E0ORG")
	require.ErrorIs(t, err, db.ErrNotFound, "found %+v", got)
	got, err = inst.Find(ctx, "T0NEW", "E0ORG")
	require.NoError(t, err, "the control: a workspace not recorded yet")
	require.Equal(t, "E0ORG", got.Enterprise)

	require.NoError(t, inst.Save(ctx, db.Installation{Team: "T0OTHER", Enterprise: "E0OTHER", Token: db.Sealed{Ciphertext: []byte{3}, Nonce: []byte{4}, KeyID: "k1"}, BotUserID: "U0WSBOT", InstallerID: "U0ADMIN"}))
	got, err = inst.Find(ctx, "T0OTHER", "E0ORG")
	require.NoError(t, err)
	require.Equal(t, "T0OTHER", got.Team, "its own installation")

	disableOrg(t, d, "E0OTHER")
	require.NoError(t, inst.ServeTeam(ctx, "T0MOVED", "E0OTHER"))
	got, err = inst.Find(ctx, "T0MOVED", "E0ORG")
	require.NoError(t, err, "the control: recorded as a disabled organisation's")
	require.Equal(t, "E0ORG", got.Enterprise)
}
