package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/lifecycle"
)

// gridWithTwoWorkspaces installs mnemo org-wide for org and has alice
// store a memory in each of two of its workspaces, A and B.
func gridWithTwoWorkspaces(t *testing.T) (b *bot, A, B gridIn) {
	t.Helper()
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	A, B = gridIn{b, orgTeamA, org, true}, gridIn{b, orgTeamB, org, true}
	require.Contains(t, A.ask(alice, "C0ORGAGEN", factA), "Prefers terse PR summaries")
	require.Contains(t, B.ask(alice, "C0ORGBGEN", factB), "Prefers tabs over spaces")
	return b, A, B
}

// teamAccess sends team_access_revoked (or _granted) for team, as Slack
// sends it to the organisation's installation, through the envelope of
// the workspace itself, and waits for its ack.
func teamAccess(b *bot, kind, team, eventID string, sent time.Time, retry int) {
	b.t.Helper()
	o := fakeslack.EventOptions{Team: team, Enterprise: org, OrgWide: true, EventID: eventID, EventTime: sent, RetryAttempt: retry}
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": kind, "team_ids": []string{team}, "event_ts": "1800000000.000100"}, o), 5*time.Second)
}

// notAnswered sends a DM from w's workspace and checks, once control has
// answered after it was acked, that the post was never taken in, and that
// nothing was called for it (no reply, reaction or status in its channel)
// with the organisation's token.
func notAnswered(t *testing.T, b *bot, w, control gridIn) {
	t.Helper()
	ts, dm := b.nextTS(), "D"+w.team[1:]
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "im", "user": alice, "text": "what do you remember?",
		"ts": ts, "channel": dm, "event_ts": ts, "team": w.team}, w.opts()), 5*time.Second)
	require.Contains(t, control.ask(alice, "C"+control.team[1:]+"GEN", `call memory__list {}`), wordA, "the control: A is answered, after the post was acked")
	require.Equal(t, 0, b.arrivals(ts), "%s's post never reached the inbox", w.team)
	for _, c := range b.slack.Calls("") {
		channel := c.Form.Get("channel")
		if v, ok := c.JSON["channel"].(string); ok {
			channel = v
		}
		require.NotEqual(t, dm, channel, "%s was called for %s's post", c.Method, w.team)
	}
}

func memoriesOf(t *testing.T, b *bot, team string) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE team_id = $1`, team).Scan(&n))
	return n
}

// An org admin removes the org-wide installation from workspace B
// (team_access_revoked; the organisation's installation stays): B is no
// longer answered, A still is, and retention erases B's data once
// MNEMO_RETENTION_UNINSTALLED has passed, as it does an uninstalled
// workspace's; A's is kept.
func TestAWorkspaceRemovedFromAnOrgWideInstallStopsAndIsErased(t *testing.T) {
	t.Parallel()
	b, A, B := gridWithTwoWorkspaces(t)
	ctx := context.Background()

	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0ACCESSREVOKED", time.Now(), 0)
	var active int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM installations WHERE team_id = '' AND enterprise_id = $1 AND disabled_at IS NULL`, org).Scan(&active))
	require.Equal(t, 1, active, "the organisation's installation stays active")
	notAnswered(t, b, B, A)
	require.Contains(t, b.logs.String(), "the organisation's installation no longer serves these workspaces")

	// Retention, the way serve's sweep runs it: not before the grace
	// period (the control), and then B alone.
	sweep := lifecycle.Sweeper{DB: b.db.DB, Uninstalled: 30 * lifecycle.Day}
	got, err := sweep.Sweep(ctx, time.Now())
	require.NoError(t, err)
	require.Empty(t, got, "nothing is due before the grace period ends")
	require.NotZero(t, memoriesOf(t, b, orgTeamB), "the control: B's memories before the erasure")
	got, err = sweep.Sweep(ctx, time.Now().Add(31*lifecycle.Day))
	require.NoError(t, err)
	require.Equal(t, map[string]int64{lifecycle.TableTeams: 1}, got)
	require.Zero(t, memoriesOf(t, b, orgTeamB), "B's memories are erased")
	require.NotZero(t, memoriesOf(t, b, orgTeamA), "A's are kept")
	var served int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM installation_teams WHERE team_id = $1`, orgTeamB).Scan(&served))
	require.Zero(t, served, "B's record goes with its erasure")
	require.Contains(t, A.ask(alice, "C0ORGAGEN", `call memory__list {}`), wordA, "A is still answered")
}

// Removed, then added again (team_access_granted): B is answered again
// and is not erased. Slack's retry of the removal (its event_id taken in
// already), and an older removal delivered late, leave it served.
func TestAWorkspaceAddedAgainToAnOrgWideInstallIsServedAgain(t *testing.T) {
	t.Parallel()
	b, A, B := gridWithTwoWorkspaces(t)
	ctx := context.Background()
	removed := time.Now().Add(-time.Minute)

	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0ACCESSREVOKED", removed, 0)
	notAnswered(t, b, B, A)

	teamAccess(b, "team_access_granted", orgTeamB, "Ev0ACCESSGRANTED", time.Now(), 0)
	require.Contains(t, B.ask(alice, "C0ORGBGEN", `call memory__list {}`), wordB, "B is answered again")

	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0ACCESSREVOKED", removed, 1)
	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0ACCESSOLDER", removed.Add(-time.Minute), 0)
	require.Contains(t, b.logs.String(), "team access event already taken in")
	require.Contains(t, B.ask(alice, "C0ORGBGEN", `call memory__list {}`), wordB, "B stays served")

	got, err := lifecycle.Sweeper{DB: b.db.DB, Uninstalled: 30 * lifecycle.Day}.Sweep(ctx, time.Now().Add(31*lifecycle.Day))
	require.NoError(t, err)
	require.Empty(t, got, "nothing is due")
	require.NotZero(t, memoriesOf(t, b, orgTeamB), "B's memories are kept")
}
