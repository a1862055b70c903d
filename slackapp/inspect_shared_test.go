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
