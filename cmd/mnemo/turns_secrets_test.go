package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// quotedToken is a GitHub token as an MCP tool's result might hold it and
// the model quote it back: ghp_ and 36 alphanumerics.
const quotedToken = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

// A reply that quotes a secret is kept in turns.pending_text for the
// conversation's retention (TurnFinish leaves it), and is posted to Slack
// from there. Both hold it redacted, as the session log does, and agree:
// the reply's other words are in each, so each was read.
func TestRepliedSecretIsRedactedInTheTurnAndThePost(t *testing.T) {
	t.Parallel()
	reply := "Your deploy config says GITHUB_TOKEN=" + quotedToken + " and the region is canaryregion-west."
	mem := scripted.Memory()
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You are mnemo") {
			return fakellm.Reply{Text: reply}
		}
		return mem(n, req)
	})
	const dm = "D0ALICE"
	ts, _ := b.dm(alice, dm, "what does the deploy config say?", "")
	b.waitDone(dm, ts)

	var pending string
	require.NoError(t, b.db.Pool.QueryRow(context.Background(),
		`SELECT coalesce(pending_text, '') FROM turns WHERE channel_id = $1 AND message_ts = $2`, dm, ts).Scan(&pending))
	require.Contains(t, pending, "canaryregion-west", "the turn's row was read")
	require.NotContains(t, pending, quotedToken, "turns.pending_text holds the secret")
	require.NotContains(t, pending, "ghp_")
	require.Contains(t, pending, detect.RedactedMarker)

	// Everything Slack was sent: posts, updates and streams.
	var sent []string
	for _, c := range b.slack.Calls("") {
		if !strings.HasPrefix(c.Method, "chat.") {
			continue
		}
		j, _ := json.Marshal(c.JSON)
		sent = append(sent, fmt.Sprintf("%s %v %s", c.Method, c.Form, j))
	}
	for _, m := range b.slack.Posted() {
		sent = append(sent, m.Text+" "+string(m.Blocks))
	}
	all := strings.Join(sent, "\n")
	require.Contains(t, all, "canaryregion-west", "the reply was posted")
	require.NotContains(t, all, quotedToken, "the post holds the secret")
	require.NotContains(t, all, "ghp_")

	// The post is the stored text.
	var posted bool
	for _, m := range b.slack.Posted() {
		if m.Channel == dm && strings.Contains(m.Text, "canaryregion-west") {
			posted = true
			require.Contains(t, m.Text, strings.TrimSuffix(pending, "."), "what was posted is what the turn keeps")
		}
	}
	require.True(t, posted, "the reply was posted in the DM:\n%s", all)
}
