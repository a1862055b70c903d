package install

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// workspaces is a database with two workspaces' own installations,
// T0GONE's and T0KEPT's, and Clients over it whose cache never expires
// (its clock stands still); logs is for Watch's (watch).
type workspaces struct {
	t       *testing.T
	d       *testdb.DB
	clients *Clients
	logs    *harness.Buffer
}

func newWorkspaces(t *testing.T) *workspaces {
	t.Helper()
	keys, err := ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(t, err)
	w := &workspaces{t: t, d: testdb.New(t), logs: &harness.Buffer{}}
	for _, team := range []string{"T0GONE", "T0KEPT"} {
		sealed, err := keys.Seal(team, "xoxb-"+team)
		require.NoError(t, err)
		require.NoError(t, w.d.DB.Installations().Save(context.Background(), db.Installation{Team: team, Token: sealed, BotUserID: "U0BOT", InstallerID: "U0ADMIN"}))
	}
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	w.clients = &Clients{Store: w.d.DB, Keyring: keys, Now: func() time.Time { return now }, NewClient: func(token string) *slack.Client { return slack.New(token) }}
	return w
}

func (w *workspaces) served(team string) error {
	_, err := w.clients.Bot(context.Background(), team)
	return err
}

// forgetRow deletes team's installation behind the cache's back, as
// nothing serve hears of does: a bot served after it is the cache's.
func (w *workspaces) forgetRow(team string) {
	w.t.Helper()
	_, err := w.d.Pool.Exec(context.Background(), `DELETE FROM installations WHERE team_id = $1`, team)
	require.NoError(w.t, err)
}

// A bot read while the team is forgotten is not cached: its
// installation may be the one the Forget was for. Forget comes here as
// the bot's client is made, after its installation was read.
func TestABotReadAsItsTeamIsForgottenIsNotCached(t *testing.T) {
	t.Parallel()
	w := newWorkspaces(t)
	forget := true
	w.clients.NewClient = func(token string) *slack.Client {
		if forget {
			forget = false
			w.clients.Forget("T0GONE")
		}
		return slack.New(token)
	}
	require.NoError(t, w.served("T0GONE"))
	w.forgetRow("T0GONE")
	require.ErrorIs(t, w.served("T0GONE"), ErrNotInstalled, "the installation is read again, not served from the cache")
	require.NoError(t, w.served("T0KEPT"))
	w.forgetRow("T0KEPT")
	require.NoError(t, w.served("T0KEPT"), "the control: a bot read with no Forget is cached")
}
