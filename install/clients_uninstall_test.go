package install

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
)

// told waits until Watch was told of team ("" for an organisation's).
func (w *workspaces) told(team string) {
	w.t.Helper()
	require.True(w.t, w.logs.WaitFor(`"team":"`+team+`","message":"workspace erased or its installation changed: read again"`, 10*time.Second), w.logs.String())
}

// withOrg adds E0ORG's org-wide installation, serving T0ORG.
func (w *workspaces) withOrg() {
	w.t.Helper()
	ctx := context.Background()
	keys, err := ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(w.t, err)
	sealed, err := keys.Seal("E0ORG", "xoxb-E0ORG")
	require.NoError(w.t, err)
	require.NoError(w.t, w.d.DB.Installations().Save(ctx, db.Installation{Enterprise: "E0ORG", Token: sealed, BotUserID: "U0ORGBOT", InstallerID: "U0ADMIN"}))
	require.NoError(w.t, w.d.DB.Installations().ServeTeam(ctx, "T0ORG", "E0ORG"))
}

// A workspace uninstalled through another replica (app_uninstalled or
// tokens_revoked taken in there: this replica's Forget is not called) is
// no longer served from this one's cache once the uninstall commits, and
// only it: T0KEPT, whose installation is deleted behind the cache's back,
// is still served from it.
func TestWatchDropsAWorkspaceUninstalledOnAnotherReplica(t *testing.T) {
	t.Parallel()
	w := newWorkspaces(t)
	w.watch()
	require.NoError(t, w.served("T0GONE"))
	require.NoError(t, w.served("T0KEPT"))
	w.forgetRow("T0KEPT")

	did, err := w.d.DB.Installations().Disable(context.Background(), db.Uninstall{Team: "T0GONE", Why: "app_uninstalled", EventID: "Ev0GONE", Sent: time.Now()})
	require.NoError(t, err)
	require.True(t, did.Disabled)
	w.told("T0GONE")
	require.ErrorIs(t, w.served("T0GONE"), ErrNotInstalled, "the uninstalled workspace is not served")
	require.NoError(t, w.served("T0KEPT"), "the control: a cached bot is served without its row")
}

// An organisation's org-wide installation uninstalled through another
// replica drops every team's bot: any of them may have been served by it.
func TestWatchDropsEveryTeamWhenAnOrganisationIsUninstalled(t *testing.T) {
	t.Parallel()
	w := newWorkspaces(t)
	w.withOrg()
	w.watch()
	require.NoError(t, w.served("T0ORG"))
	require.NoError(t, w.served("T0KEPT"))
	w.forgetRow("T0KEPT")
	require.NoError(t, w.served("T0KEPT"), "the control: a cached bot is served without its row")

	did, err := w.d.DB.Installations().Disable(context.Background(), db.Uninstall{Enterprise: "E0ORG", Why: "app_uninstalled", EventID: "Ev0ORG", Sent: time.Now()})
	require.NoError(t, err)
	require.True(t, did.Disabled)
	w.told("")
	require.ErrorIs(t, w.served("T0ORG"), ErrNotInstalled, "the organisation's workspace is not served")
	require.ErrorIs(t, w.served("T0KEPT"), ErrNotInstalled, "every team's installation is read again")
}

// A workspace whose organisation's installation stops serving it
// (team_access_revoked, taken in on another replica) is no longer served
// from the cache; T0KEPT still is.
func TestWatchDropsAWorkspaceItsOrganisationStopsServing(t *testing.T) {
	t.Parallel()
	w := newWorkspaces(t)
	w.withOrg()
	w.watch()
	require.NoError(t, w.served("T0ORG"))
	require.NoError(t, w.served("T0KEPT"))
	w.forgetRow("T0KEPT")

	did, err := w.d.DB.Installations().ChangeTeamAccess(context.Background(), db.TeamAccess{Enterprise: "E0ORG", Teams: []string{"T0ORG"}, Revoked: true, EventID: "Ev0REVOKE", Sent: time.Now()})
	require.NoError(t, err)
	require.Equal(t, 1, did.Changed)
	w.told("T0ORG")
	require.ErrorIs(t, w.served("T0ORG"), ErrNotInstalled, "the workspace its organisation no longer serves is not served")
	require.NoError(t, w.served("T0KEPT"), "the control: a cached bot is served without its row")
}
