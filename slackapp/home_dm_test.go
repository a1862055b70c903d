package slackapp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// The App Home says whether mnemo learns in the person's DM with it. It
// knew the DM only from their last app_home_opened, kept in memory: a
// Home published without one (after a restart, or for a memory change)
// said "on" even for Alice, who had turned it off there. The DM is now
// found with conversations.open; when it can't be (Bob's, here), the
// Home says the settings could not be read rather than a wrong "on".
func TestHomeShowsLearningInTheDMWithoutItsOpenEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	for _, u := range []fakeslack.User{{ID: "U0ALICE", Name: "Alice"}, {ID: "U0BOB", Name: "Bob"}} {
		fs.AddUser(u)
	}
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	store := memory.New(d.DB, memory.Options{})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: socketmode.New(api), DB: d.DB, Memory: store,
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), SlackAPIURL: fs.URL,
	})
	// conversations.open names Alice's DM D0ALICE, where she turned
	// learning off.
	require.NoError(t, d.DB.Settings().SetLearning(ctx, fakeslack.TeamID, "D0ALICE", false, "U0ALICE"))
	remember(t, store, "U0ALICE", memory.ScopePersonal, "D0ALICE", "Prefers release notes as bullet lists")
	runApp(t, app)

	view := fs.WaitView("U0ALICE", 10*time.Second, func(json.RawMessage) bool { return true })
	require.Contains(t, string(view), "Prefers release notes as bullet lists")
	require.Contains(t, string(view), "passive learning in our DM is off")
	opened := fs.Calls("conversations.open")
	require.Len(t, opened, 1)
	require.Equal(t, "U0ALICE", opened[0].Form.Get("users"))

	fs.Fail("conversations.open", "missing_scope")
	remember(t, store, "U0BOB", memory.ScopePersonal, "D0BOB", "Works from Lisbon")
	view = fs.WaitView("U0BOB", 10*time.Second, func(json.RawMessage) bool { return true })
	require.Contains(t, string(view), "couldn't read your learning settings")
	require.NotContains(t, string(view), "passive learning in our DM is on")
}
