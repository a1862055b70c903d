package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// mnemo installs lists a workspace the organisation's installation no
// longer serves (team_access_revoked) as removed, with when and when its
// data is erased (MNEMO_RETENTION_UNINSTALLED after the removal), not
// among those it serves. Its neighbour, still served, is the control; a
// removed workspace served by an installation of its own is not erased.
func TestInstallsListsAWorkspaceRemovedFromAnOrgWideInstallAsNoLongerServed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	inst := d.DB.Installations()
	sealed := db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}
	require.NoError(t, inst.Save(ctx, db.Installation{Enterprise: org, Token: sealed, BotUserID: "U0BOTORG", InstallerID: admin}))
	for _, team := range []string{orgTeamA, orgTeamB, "T0OWN"} {
		require.NoError(t, inst.ServeTeam(ctx, team, org))
	}
	require.NoError(t, inst.Save(ctx, db.Installation{Team: "T0OWN", Token: sealed, BotUserID: "U0BOTOWN", InstallerID: admin}))
	_, err := inst.ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: org, Teams: []string{orgTeamB, "T0OWN"}, Revoked: true, EventID: "Ev0REMOVED", Sent: time.Now()})
	require.NoError(t, err)
	var removed time.Time
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT revoked_at FROM installation_teams WHERE team_id = $1`, orgTeamB).Scan(&removed))
	at := removed.UTC().Format(time.DateTime)

	installs := func(retention string) string {
		t.Helper()
		var out, errOut strings.Builder
		getenv := env(map[string]string{"DATABASE_URL": d.URL, "MNEMO_RETENTION_UNINSTALLED": retention})
		require.Equal(t, 0, run(ctx, []string{"installs"}, getenv, strings.NewReader(""), &out, &errOut), errOut.String())
		return out.String()
	}
	out := installs("30d")
	require.Contains(t, out, "every workspace of the organisation; so far T0ORGA; no longer T0ORGB (removed "+at+", data erased after "+
		removed.UTC().Add(30*24*time.Hour).Format(time.DateTime)+"), T0OWN (removed "+at+", served by its own installation)", out)
	require.Regexp(t, `workspace\s+T0OWN\s+-\s+\S+ \S+\s+active\s+T0OWN`, out, "the workspace's own installation")
	require.Contains(t, installs("0"), "T0ORGB (removed "+at+", data kept (MNEMO_RETENTION_UNINSTALLED is 0))")
}
