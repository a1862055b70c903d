package slackapp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// A slash command or a button press is sent once; a copy of its signed
// request, sent again while its timestamp is still accepted, is refused
// (401) and runs nothing. The same body signed at another time is a
// request of its own, the control, and runs.
func TestHTTPRefusesAReplayedCommandOrInteraction(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	fs, app := httpApp(t, d, in)
	responseURL := func(envelope string) string {
		return strings.TrimSuffix(fs.URL, "/api/") + "/response?envelope=" + envelope
	}
	command := url.Values{"command": {"/mnemo"}, "text": {"help"}, "team_id": {fakeslack.TeamID}, "user_id": {"U0ALICE"},
		"channel_id": {"C0HTTP"}, "trigger_id": {"1.2.replay"}, "response_url": {responseURL("cmd")}}
	payload, err := json.Marshal(map[string]any{"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": "U0ALICE"},
		"trigger_id": "1.3.replay", "response_url": responseURL("press"),
		"actions": []any{map[string]any{"type": "button", "block_id": "b1", "action_id": slackapp.ActionPurgeCancel, "value": "x"}}})
	require.NoError(t, err)
	press := url.Values{"payload": {string(payload)}}
	const form = "application/x-www-form-urlencoded"
	at := time.Now()

	for _, r := range []struct{ path, body string }{{"/slack/commands", command.Encode()}, {"/slack/interactivity", press.Encode()}} {
		first := fs.PostToApp(r.path, form, []byte(r.body), fakeslack.PostOptions{At: at})
		require.NoError(t, first.Err)
		require.Equal(t, http.StatusOK, first.Status, r.path)
		again := fs.PostToApp(r.path, form, []byte(r.body), fakeslack.PostOptions{At: at})
		require.NoError(t, again.Err)
		require.Equal(t, http.StatusUnauthorized, again.Status, "%s: the replay is refused", r.path)
		later := fs.PostToApp(r.path, form, []byte(r.body), fakeslack.PostOptions{At: at.Add(time.Second)})
		require.Equal(t, http.StatusOK, later.Status, "%s: the control, signed at another time", r.path)
	}

	// Close joins the answers' background work: after it, every answer is
	// posted. Each request that ran answered once; the replays, nothing.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, app.Close(ctx))
	answers := map[string]int{}
	for _, m := range fs.Posted() {
		if m.Response {
			answers[m.Envelope]++
		}
	}
	require.Equal(t, map[string]int{"cmd": 2, "press": 2}, answers, "the first and the control ran; the replays did not")
}
