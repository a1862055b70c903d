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

// A Home whose DM can't be found (conversations.open refuses the person
// for good: a deactivated one) showed only a notice, every time: none of
// their memories. It now lists them, says the DM's setting could not be
// read, and shows it neither on nor off.
func TestHomeListsMemoriesWhenTheDMSettingCantBeRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	fs.AddUser(fakeslack.User{ID: "U0CAROL", Name: "Carol"})
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	store := memory.New(d.DB, memory.Options{})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: socketmode.New(api), DB: d.DB, Memory: store,
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), SlackAPIURL: fs.URL,
	})
	require.NoError(t, d.DB.Settings().SetUserLearning(ctx, fakeslack.TeamID, "U0CAROL", false))
	fs.Fail("conversations.open", "user_disabled")
	runApp(t, app)

	remember(t, store, "U0CAROL", memory.ScopePersonal, "D0CAROL", "Reviews on Thursdays")
	view := string(fs.WaitView("U0CAROL", 10*time.Second, func(json.RawMessage) bool { return true }))
	require.NotEmpty(t, fs.Calls("conversations.open"), "the DM was looked for")
	require.Contains(t, view, "Reviews on Thursdays")
	require.Contains(t, view, "couldn't read your learning settings")
	require.Contains(t, view, "passive learning in our DM could not be read")
	require.NotContains(t, view, "in our DM is on")
	require.NotContains(t, view, "in our DM is off")
	// The setting that could be read is shown as it is.
	require.Contains(t, view, "learning about you is off")
}
