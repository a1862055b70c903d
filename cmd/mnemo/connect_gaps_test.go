package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// A group DM with a person of another organisation in it (Slack Connect)
// is read by them, as a Slack Connect channel is: a host member's turn
// there keeps the host's workspace memory said elsewhere out, whether it
// is a mention (no channel_type: conversations.info is asked) or a
// follow-up in its thread (channel_type "mpim"), and whether or not
// conversations.info says is_ext_shared for it (Slack's reference does not
// say it does for a group DM: its members are asked). A group DM of the
// host's members alone is the control, and one whose members Slack can't
// list counts as shared until it can.
func TestAHostMembersTurnsInAGroupDMWithAnotherOrganisationKeepTheHostsMemoryOut(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		Users: map[string]fakeslack.User{xena: {ID: xena, Name: "Xena", Team: xenaTeam}}})
	A := in{b, teamA}
	out, err := b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: admin, IsAdmin: true},
		Place: provenance.Place{Team: teamA, Channel: "C0GENERAL", SourceKey: "slack:" + teamA + ":C0GENERAL:1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopeWorkspace, Content: "The launch codename is " + launchCodename, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)

	// recalled says whether the codename was in the model requests of
	// alice's mention in channel and of her follow-up in its thread.
	recalled := func(channel, marker string) (mention, followUp bool) {
		t.Helper()
		ts := b.nextTS()
		b.slack.SendEvent(map[string]any{"type": "app_mention", "user": alice, "text": "<@" + A.botUser() + "> what is the launch codename, " + marker + "root?", "ts": ts, "channel": channel, "event_ts": ts},
			fakeslack.EventOptions{Team: teamA})
		b.replies(channel, ts, 1)
		b.waitDone(channel, ts)
		fts := b.nextTS()
		b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "mpim", "user": alice, "text": "mnemo, the launch codename again, " + marker + "follow?", "ts": fts, "thread_ts": ts, "channel": channel, "event_ts": fts},
			fakeslack.EventOptions{Team: teamA})
		b.replies(channel, ts, 2)
		b.waitDone(channel, fts)
		in := func(m string) bool {
			reqs := turnRequests(b, m)
			require.NotEmpty(t, reqs, "the turn of %s", m)
			return strings.Contains(strings.Join(reqs, "\n"), launchCodename)
		}
		return in(marker + "root"), in(marker + "follow")
	}

	b.slack.AddGroupDM(fakeslack.GroupDM{Channel: "G0HOSTONLY", Members: []string{alice, bob, A.botUser()}})
	mention, followUp := recalled("G0HOSTONLY", "zqxhostonly")
	require.True(t, mention, "the control: a group DM of the host's members recalls it")
	require.True(t, followUp, "the control: and so does its follow-up")

	b.slack.AddGroupDM(fakeslack.GroupDM{Channel: "G0SAYSSHARED", Members: []string{alice, xena, A.botUser()}, ExtShared: true})
	mention, followUp = recalled("G0SAYSSHARED", "zqxsaysshared")
	require.False(t, mention, "the host's workspace memory in a mention in a group DM Slack says is shared")
	require.False(t, followUp, "the host's workspace memory in a follow-up in a group DM Slack says is shared")

	b.slack.AddGroupDM(fakeslack.GroupDM{Channel: "G0HASGUEST", Members: []string{alice, xena, A.botUser()}})
	mention, followUp = recalled("G0HASGUEST", "zqxhasguest")
	require.False(t, mention, "the host's workspace memory in a mention in a group DM with a person of another organisation")
	require.False(t, followUp, "the host's workspace memory in a follow-up in a group DM with a person of another organisation")

	// Fails closed: members Slack can't list count as another
	// organisation's, and that is not remembered.
	b.slack.AddGroupDM(fakeslack.GroupDM{Channel: "G0UNLISTED", Members: []string{alice, bob, A.botUser()}})
	b.slack.Fail("conversations.members", "internal_error")
	mention, followUp = recalled("G0UNLISTED", "zqxunlisted")
	require.False(t, mention, "the host's workspace memory where the group DM's members could not be listed")
	require.False(t, followUp, "the host's workspace memory where the group DM's members could not be listed, in a follow-up")
	b.slack.Fail("conversations.members", "")
	mention, _ = recalled("G0UNLISTED", "zqxlisted")
	require.True(t, mention, "once Slack lists its members, the host's group DM is the host's")
}

// The App Home of a person users.info can't place shows no memories and
// says why: taken for the host's member, a person of another organisation
// would see what the host keeps about them, under the host's team. Opened
// again once users.info answers, it is theirs.
func TestAnAppHomeWhoseViewerCannotBePlacedShowsNoMemories(t *testing.T) {
	t.Parallel()
	x := startExternalDM(t)
	const hostKept = "zqxhostkept"
	out, err := x.b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: xena},
		Place: provenance.Place{Team: teamA, Channel: "C0GENERAL", SourceKey: "slack:" + teamA + ":C0GENERAL:1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopePersonal, Content: "Xena's desk is " + hostKept, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	open := func() {
		t.Helper()
		x.b.slack.WaitAck(x.b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": xena, "channel": xenaDM, "tab": "home", "event_ts": "1800000000.000100"},
			fakeslack.EventOptions{Team: xenaTeam, Authorizations: x.hostAuth}), 5*time.Second)
	}

	x.b.slack.Fail("users.info", "ratelimited")
	open()
	view := string(x.b.slack.WaitTeamView(teamA, xena, 10*time.Second, nil))
	require.NotContains(t, view, hostKept, "the host's memory of a person users.info could not place")
	require.NotContains(t, view, xenasOwn)
	require.Contains(t, view, "couldn't load your memories just now")

	x.b.slack.Fail("users.info", "")
	open()
	view = string(x.b.slack.WaitTeamView(teamA, xena, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), xenasOwn) }))
	require.NotContains(t, view, hostKept, "placed, she is of her own team")
	require.NotContains(t, view, "couldn't load")
}

// A change to the memories of a person of another organisation
// republishes their App Home through the installation they opened it in,
// the host's: their memories are kept under their own team, where mnemo
// is not installed.
func TestAnExternalMembersAppHomeIsRepublishedThroughTheHost(t *testing.T) {
	t.Parallel()
	x := startExternalDM(t)
	x.b.slack.WaitAck(x.b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": xena, "channel": xenaDM, "tab": "home", "event_ts": "1800000000.000100"},
		fakeslack.EventOptions{Team: xenaTeam, Authorizations: x.hostAuth}), 5*time.Second)
	x.b.slack.WaitTeamView(teamA, xena, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), xenasOwn) })

	x.ask("remember that I prefer zqxnumbered lists")
	view := string(x.b.slack.WaitTeamView(teamA, xena, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "zqxnumbered") }))
	require.Contains(t, view, xenasOwn)
	require.NotContains(t, view, launchCodename)
}
