package slackapp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// httpApp is the app over HTTP, on its own server, with posts going to in;
// fs delivers to it. The app is returned too, for a test that joins its
// background work.
func httpApp(t *testing.T, d *testdb.DB, in slackapp.Inbox) (*fakeslack.Server, *slackapp.App) {
	t.Helper()
	return httpAppLogging(t, d, in, zerolog.Nop())
}

// httpAppLogging is httpApp with the app's log going to log.
func httpAppLogging(t *testing.T, d *testdb.DB, in slackapp.Inbox, log zerolog.Logger) (*fakeslack.Server, *slackapp.App) {
	t.Helper()
	fs := fakeslack.New(t)
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL))
	app := slackapp.New(slackapp.Config{
		API: api, DB: d.DB, Memory: memory.New(d.DB, memory.Options{}),
		Directory: slackapp.NewDirectory(api, nil), Logger: log, Inbox: in, SlackAPIURL: fs.URL,
	})
	require.NoError(t, app.Authenticate(context.Background()))
	mux := http.NewServeMux()
	app.Mount(mux, slackapp.HTTPOptions{SigningSecret: "s3cret"})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = app.Close(ctx) // the answers sent after the acks
	})
	fs.DeliverHTTP(srv.URL, "s3cret")
	return fs, app
}

func mention(ts string) map[string]any {
	return map[string]any{"type": "app_mention", "user": "U0ALICE", "text": "<@" + fakeslack.BotUserID + "> hi", "ts": ts, "channel": "C0HTTP"}
}

func arrivals(t *testing.T, d *testdb.DB, ts string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM inbox_arrivals WHERE ts = $1", ts).Scan(&n))
	return n
}

// When the inbox can't take a post in (its database is gone), the request
// is answered 503, not 200, and the fake Slack, like Slack, sends it again
// with X-Slack-Retry-Num; a working inbox takes the same post in and
// answers 200.
func TestHTTPAnswersAnErrorWhenTheInboxWriteFails(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	gone, err := db.Open(ctx, d.URL, 0)
	require.NoError(t, err)
	broken, err := inbox.New(gone, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	gone.Close()

	fs, _ := httpApp(t, d, broken)
	fs.Redeliver(10 * time.Millisecond)
	const ts = "1800000001.000100"
	env := fs.SendEvent(mention(ts), fakeslack.EventOptions{EventID: "Ev0DOWN"})
	first := fs.WaitHTTPAnswer(env, 10*time.Second)
	require.Equal(t, http.StatusServiceUnavailable, first.Status)
	retry := fs.WaitHTTPAnswer(env+"-r1", 10*time.Second)
	require.Equal(t, http.StatusServiceUnavailable, retry.Status)
	require.Equal(t, 2, fs.Deliveries("Ev0DOWN"), "sent again once, as Redeliver asked")
	require.False(t, fs.Acked(env) || fs.Acked(env+"-r1"))
	require.Zero(t, arrivals(t, d, ts))

	// Control: the same post, with an inbox on a live database.
	working, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	fs, _ = httpApp(t, d, working)
	env = fs.SendEvent(mention(ts), fakeslack.EventOptions{EventID: "Ev0UP"})
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status)
	require.True(t, fs.Acked(env))
	require.Equal(t, 1, arrivals(t, d, ts))
}

// A slash command and a button press over HTTP are acked with an empty 200;
// a press of a button the app does not know is acked too, and runs nothing.
func TestHTTPCommandAndInteractionAreAcked(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	fs, app := httpApp(t, d, in)
	env := fs.SendSlashCommand("/mnemo", "help", "U0ALICE", "C0HTTP")
	a := fs.WaitHTTPAnswer(env, 10*time.Second)
	require.Equal(t, http.StatusOK, a.Status)
	require.Empty(t, a.Body)
	help := fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == env })
	require.Contains(t, help[0].Text, "forget")

	// Each press names its own response_url, so an answer says which
	// press it is for. The block_id makes it a block action, as Slack sends
	// it: without one slack-go reads an attachment action, which the app
	// drops before it looks at the action id at all.
	press := func(actionID, envelope string) string {
		return fs.SendInteractive(map[string]any{"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": "U0ALICE"},
			"response_url": strings.TrimSuffix(fs.URL, "/api/") + "/response?envelope=" + envelope,
			"actions":      []any{map[string]any{"type": "button", "block_id": "b1", "action_id": actionID, "value": "x"}}})
	}
	answered := func(envelope string) bool {
		for _, m := range fs.Posted() {
			if m.Response && m.Envelope == envelope {
				return true
			}
		}
		return false
	}
	env = press("unknown_action", "press-unknown")
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status)
	// The control: a button it knows, pressed the same way, is answered
	// through its response_url, where the unknown one's answer would be.
	cancel := press(slackapp.ActionPurgeCancel, "press-cancel")
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(cancel, 10*time.Second).Status)
	got := fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == "press-cancel" })
	require.Contains(t, got[0].Text, "Erasure cancelled")
	// Close joins the app's background work, the unknown press's included:
	// after it, no answer can still be on its way.
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	require.NoError(t, app.Close(ctx))
	require.False(t, answered("press-unknown"), "the unknown button press ran nothing")
	require.True(t, answered("press-cancel"), "while the same check finds the known one's answer")
	for _, c := range fs.Calls("") {
		require.NotContains(t, []string{"chat.postEphemeral", "chat.postMessage"}, c.Method, "nothing was posted for it either")
	}

	// Malformed but signed: a 400, not a crash.
	bad := fs.PostToApp("/slack/interactivity", "application/x-www-form-urlencoded", []byte("payload=%7Bnot-json"), fakeslack.PostOptions{})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	var ok json.RawMessage
	require.Error(t, json.Unmarshal(bad.Body, &ok))
}
