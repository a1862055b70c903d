package slackapp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// The Inspect shortcut used on the asker's own post, under an org-wide
// installation: the payload names no workspace, and the post has no
// buttons that say one, so the presser's own workspace was taken. Ada,
// an admin of B whose own workspace is A, inspecting Alice's post in B's
// channel, was judged by A's rules and refused. The post's workspace now
// comes from its channel: the one its turn was recorded in. Its admins
// are the ones who may inspect it (Anna, an admin of A by Slack's say, is
// not one of B's), and a turn in the channel recorded for a workspace
// outside the organisation (Slack Connect) is not shown through it.
func TestGridInspectOnTheAskersPostReadsTheWorkspaceOfItsChannel(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	const anna = "U0ANNA"
	g.fs.AddUser(fakeslack.User{ID: anna, Name: "Anna", Team: gridA, Enterprise: gridOrg, IsAdmin: true})
	ctx := context.Background()
	id, _ := g.reply(gridB, gridChanB)
	turn, err := g.d.DB.Turns().Get(ctx, id)
	require.NoError(t, err)
	// A post in a channel shared with another organisation, whose own
	// installation recorded its turn.
	const sharedChan, otherTeam = "C0SHARED", "T0OTHERORG"
	otherKey := threads.Key{Team: otherTeam, Channel: sharedChan, Root: threads.TS(g.fs.NextTS())}
	_, _, err = g.d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: otherTeam, Channel: sharedChan, SourceKey: otherKey.SourceKey(), Visibility: provenance.Public}, MessageTS: string(otherKey.Root), ActorID: "U0OTHER"})
	require.NoError(t, err)
	g.run()

	inspect := func(user, channel, ts, tag string) string {
		g.fs.WaitAck(g.fs.SendInteractive(map[string]any{
			"type": "message_action", "callback_id": ShortcutInspect, "trigger_id": "trig", "team": nil,
			"enterprise": map[string]any{"id": gridOrg}, "is_enterprise_install": true, "api_app_id": fakeslack.AppID,
			"user": map[string]any{"id": user, "team_id": gridA}, "channel": map[string]any{"id": channel},
			"message":      map[string]any{"type": "message", "ts": ts, "user": gridAlice, "text": "what did we decide about the launch?"},
			"response_url": strings.TrimSuffix(g.fs.URL, "/api/") + "/response?envelope=" + tag,
		}), 5*time.Second)
		return g.fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == tag })[0].Text
	}

	require.Contains(t, inspect(gridAda, gridChanB, turn.MessageTS, "ada"), fmt.Sprintf("Turn %d in <#%s>", id, gridChanB), "B's admin inspects B's turn")
	require.Contains(t, inspect(anna, gridChanB, turn.MessageTS, "anna"), "Only an admin can inspect turns", "A's admin is none of B's")
	require.Contains(t, inspect(gridAda, sharedChan, string(otherKey.Root), "shared"), "not one mnemo answered", "another organisation's turn is not shown")
}

// Inspect on a post in a channel shared with another organisation, under
// an org-wide installation: both organisations' installations recorded a
// turn of it. The turn was looked for across every workspace and, with
// two, Inspect answered "more than one workspace has one; give the turn's
// id": a CLI instruction, which also told the presser that another
// organisation has a turn there. Only the interaction's organisation's
// turns are looked at now, and its own is shown.
func TestGridInspectOnAPostInAChannelSharedWithAnotherOrganisation(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	ctx := context.Background()
	const sharedChan, otherTeam = "C0SHAREDBOTH", "T0OTHERORG"
	id, _ := g.reply(gridB, sharedChan)
	turn, err := g.d.DB.Turns().Get(ctx, id)
	require.NoError(t, err)
	// The other organisation's installation recorded the same post.
	otherKey := threads.Key{Team: otherTeam, Channel: sharedChan, Root: threads.TS(turn.MessageTS)}
	other, _, err := g.d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: otherTeam, Channel: sharedChan, SourceKey: otherKey.SourceKey(), Visibility: provenance.Public}, MessageTS: turn.MessageTS, ActorID: "U0OTHER"})
	require.NoError(t, err)
	require.NotEqual(t, id, other.ID)
	// Without a filter both are there: the query finds the other's.
	_, err = g.d.DB.Turns().ByMessage(ctx, sharedChan, turn.MessageTS)
	require.ErrorContains(t, err, "more than one workspace has one")
	g.run()

	g.fs.WaitAck(g.fs.SendInteractive(map[string]any{
		"type": "message_action", "callback_id": ShortcutInspect, "trigger_id": "trig", "team": nil,
		"enterprise": map[string]any{"id": gridOrg}, "is_enterprise_install": true, "api_app_id": fakeslack.AppID,
		"user": map[string]any{"id": gridAda, "team_id": gridA}, "channel": map[string]any{"id": sharedChan},
		"message":      map[string]any{"type": "message", "ts": turn.MessageTS, "user": gridAlice, "text": "what did we decide about the launch?"},
		"response_url": strings.TrimSuffix(g.fs.URL, "/api/") + "/response?envelope=shared",
	}), 5*time.Second)
	text := g.fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == "shared" })[0].Text
	require.Contains(t, text, fmt.Sprintf("Turn %d in <#%s>", id, sharedChan))
	require.NotContains(t, text, "more than one workspace")
	require.NotContains(t, text, otherTeam)
}
