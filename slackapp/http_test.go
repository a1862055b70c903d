package slackapp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
// fs delivers to it.
func httpApp(t *testing.T, d *testdb.DB, in slackapp.Inbox) *fakeslack.Server {
	t.Helper()
	fs := fakeslack.New(t)
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL))
	app := slackapp.New(slackapp.Config{
		API: api, DB: d.DB, Memory: memory.New(d.DB, memory.Options{}),
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), Inbox: in,
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
	return fs
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

	fs := httpApp(t, d, broken)
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
	fs = httpApp(t, d, working)
	env = fs.SendEvent(mention(ts), fakeslack.EventOptions{EventID: "Ev0UP"})
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status)
	require.True(t, fs.Acked(env))
	require.Equal(t, 1, arrivals(t, d, ts))
}

// A slash command and a button press over HTTP are acked with an empty 200;
// a command for another app's slash command too, and nothing is run.
func TestHTTPCommandAndInteractionAreAcked(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	fs := httpApp(t, d, in)
	env := fs.SendSlashCommand("/mnemo", "help", "U0ALICE", "C0HTTP")
	a := fs.WaitHTTPAnswer(env, 10*time.Second)
	require.Equal(t, http.StatusOK, a.Status)
	require.Empty(t, a.Body)
	help := fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == env })
	require.Contains(t, help[0].Text, "forget")

	env = fs.SendInteractive(map[string]any{"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": "U0ALICE"},
		"actions": []any{map[string]any{"type": "button", "action_id": "unknown_action", "value": "x"}}})
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status)

	// Malformed but signed: a 400, not a crash.
	bad := fs.PostToApp("/slack/interactivity", "application/x-www-form-urlencoded", []byte("payload=%7Bnot-json"), fakeslack.PostOptions{})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	var ok json.RawMessage
	require.Error(t, json.Unmarshal(bad.Body, &ok))
}
