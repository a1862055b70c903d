package slackapp_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// A post's admission, the installation's lookup and the inbox's write,
// has one budget from the delivery's arrival, inside Slack's 3 seconds:
// the write has what the lookup left, not 2.5 seconds of its own after
// it. The app's clock is moved on while the installation is opened, as
// a lookup that took that long would: one that spent the whole budget
// leaves the post refused (HTTP 503, so Slack delivers it again), where
// it used to be written and acked past the budget; one that left time
// (the control) is taken in and acked.
func TestAdmissionIsOneBudgetFromArrival(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		lookup  time.Duration
		refused bool
	}{
		{"the lookup spent the budget", 2500 * time.Millisecond, true},
		{"the lookup left time for the write", time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			d := testdb.New(t)
			fs := fakeslack.New(t)
			keys, err := install.ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
			require.NoError(t, err)
			const team = "T0BUDGET"
			sealed, err := keys.Seal(team, "xoxb-budget")
			require.NoError(t, err)
			require.NoError(t, d.DB.Installations().Save(ctx, db.Installation{Team: team, Token: sealed, BotUserID: "U0BUDGETBOT", InstallerID: "U0ADMIN"}))

			var skew atomic.Int64 // how far the app's clock is ahead
			clients := &install.Clients{Store: d.DB, Keyring: keys, NewClient: func(token string) *slack.Client {
				skew.Add(int64(c.lookup)) // the lookup took this long
				return slack.New(token, slack.OptionAPIURL(fs.URL))
			}}
			in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
			require.NoError(t, err)
			logs := &syncbuf.Buffer{}
			app := slackapp.New(slackapp.Config{Clients: clients, DB: d.DB, Memory: memory.New(d.DB, memory.Options{}),
				Logger: zerolog.New(logs), Inbox: in, Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
			require.NoError(t, app.Authenticate(ctx))
			mux := http.NewServeMux()
			app.Mount(mux, slackapp.HTTPOptions{SigningSecret: "s3cret"})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			fs.DeliverHTTP(srv.URL, "s3cret")
			// Slack sends a refused event again at once; that copy finds
			// the installation open and is taken in. Held off here, so that
			// what is counted is the first delivery's.
			fs.Redeliver(time.Hour)

			const ts = "1800000002.000100"
			env := fs.SendEvent(mention(ts), fakeslack.EventOptions{Team: team})
			answer := fs.WaitHTTPAnswer(env, 10*time.Second)
			require.Equal(t, 1, int(skew.Load()/int64(c.lookup)), "control: the installation was opened once, by the lookup")
			if c.refused {
				require.Equal(t, http.StatusServiceUnavailable, answer.Status, "refused once the budget is spent:\n%s", logs)
				require.False(t, fs.Acked(env))
				require.Zero(t, arrivals(t, d, ts))
				require.Contains(t, logs.String(), "inbox write failed; envelope not acked")
				return
			}
			require.Equal(t, http.StatusOK, answer.Status, "acked:\n%s", logs)
			require.True(t, fs.Acked(env))
			require.Equal(t, 1, arrivals(t, d, ts))
		})
	}
}
