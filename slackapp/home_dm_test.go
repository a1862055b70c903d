package slackapp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/memory"
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
	d, fs, store, app := homeAppWith(t, fakeslack.User{ID: "U0ALICE", Name: "Alice"}, fakeslack.User{ID: "U0BOB", Name: "Bob"})
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

// A Home whose DM can't be found (conversations.open refuses the person
// for good: a deactivated one) showed only a notice, every time: none of
// their memories. It now lists them, says the DM's setting could not be
// read, and shows it neither on nor off.
func TestHomeListsMemoriesWhenTheDMSettingCantBeRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, fs, store, app := homeAppWith(t, fakeslack.User{ID: "U0CAROL", Name: "Carol"})
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
