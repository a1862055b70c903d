package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Slack's event_time has whole seconds, and Slack does not promise to
// deliver events in order: of a removal (team_access_revoked) and an
// addition (team_access_granted) of workspace B sent in the same second,
// either may arrive last. Which came last is what Slack says now
// (auth.teams.list with the organisation's token), not the arrival order:
// an addition that came last is served although the removal arrived
// last, and a removal that came last is not served although the addition
// arrived last. When Slack can't say, B stays removed (the safe side).
func TestSameSecondTeamAccessEventsAreSettledBySlackNotByArrival(t *testing.T) {
	t.Parallel()
	b, A, B := gridWithTwoWorkspaces(t)
	ws, ok := b.slack.Installed(org)
	require.True(t, ok)
	now := time.Now()

	// The addition came last at Slack; the removal arrives last here.
	b.slack.SetOrgTeams(org, orgTeamA, orgTeamB)
	sent := now.Add(-3 * time.Minute)
	teamAccess(b, "team_access_granted", orgTeamB, "Ev0TIEGRANTED1", sent, 0)
	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0TIEREVOKED1", sent, 0)
	require.True(t, b.logs.WaitFor("Slack lists the workspace, so the addition came last", 10*time.Second), "the tie is settled by Slack's answer (auth.teams.list), not by arrival")
	require.Contains(t, B.ask(alice, "C0ORGBGEN", `call memory__list {}`), wordB, "B is served: its addition came last")
	calls := b.slack.Calls("auth.teams.list")
	require.Len(t, calls, 1)
	require.Equal(t, ws.Token, calls[0].Token, "asked with the organisation's token")

	// The removal came last at Slack; the addition arrives last here.
	b.slack.SetOrgTeams(org, orgTeamA)
	sent = now.Add(-2 * time.Minute)
	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0TIEREVOKED2", sent, 0)
	teamAccess(b, "team_access_granted", orgTeamB, "Ev0TIEGRANTED2", sent, 0)
	require.True(t, b.logs.WaitFor("Slack does not list the workspace, so the removal came last", 10*time.Second), "the tie is settled by Slack's answer (auth.teams.list), not by arrival")
	notAnswered(t, b, B, A)

	// A tie Slack can't settle: B stays removed, though Slack would have
	// said the addition came last, and the log says so.
	b.slack.SetOrgTeams(org, orgTeamA, orgTeamB)
	b.slack.Fail("auth.teams.list", "internal_error")
	sent = now.Add(-time.Minute)
	teamAccess(b, "team_access_revoked", orgTeamB, "Ev0TIEREVOKED3", sent, 0)
	teamAccess(b, "team_access_granted", orgTeamB, "Ev0TIEGRANTED3", sent, 0)
	require.True(t, b.logs.WaitFor("Slack could not say whether the organisation's installation is on these workspaces", 10*time.Second))
	notAnswered(t, b, B, A)
	require.Len(t, b.slack.Calls("auth.teams.list"), 3, "Slack was asked for each tie")
}
