package slackapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// A personal memory written before the app runs (a learning job that starts
// first) used to reach the Home publisher with no context yet, and panic.
// Now the publisher starts with the app and publishes it then.
func TestHomeChangeBeforeRunIsPublishedWhenTheAppStarts(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	fs.AddUser(fakeslack.User{ID: "U0ALICE", Name: "Alice"})
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	store := memory.New(d.DB, memory.Options{})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: socketmode.New(api), DB: d.DB, Memory: store,
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), SlackAPIURL: fs.URL,
	})
	alice := provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: "U0ALICE"}
	place := provenance.Place{Team: fakeslack.TeamID, Channel: "D0ALICE", SourceKey: "slack:" + fakeslack.TeamID + ":D0ALICE:1800000000.000100", Visibility: provenance.DM}
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: alice, Place: place, Content: "Prefers release notes as bullet lists", WrittenBy: provenance.ByPassive})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	view := fs.WaitView("U0ALICE", 10*time.Second, func(v json.RawMessage) bool {
		return strings.Contains(string(v), "Prefers release notes as bullet lists")
	})
	require.NotEmpty(t, view)
}

// homeApp is an app on the fake Slack, not yet running, and its store,
// with Alice and Bob in the workspace.
func homeApp(t *testing.T) (*fakeslack.Server, *memory.Store, *slackapp.App) {
	t.Helper()
	_, fs, store, app := homeAppWith(t, fakeslack.User{ID: "U0ALICE", Name: "Alice"}, fakeslack.User{ID: "U0BOB", Name: "Bob"})
	return fs, store, app
}

// homeAppWith is homeApp with these people, and its database.
func homeAppWith(t *testing.T, people ...fakeslack.User) (*testdb.DB, *fakeslack.Server, *memory.Store, *slackapp.App) {
	t.Helper()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	for _, u := range people {
		fs.AddUser(u)
	}
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	store := memory.New(d.DB, memory.Options{})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: socketmode.New(api), DB: d.DB, Memory: store,
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), SlackAPIURL: fs.URL,
	})
	return d, fs, store, app
}

func runApp(t *testing.T, app *slackapp.App) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func remember(t *testing.T, store *memory.Store, user string, scope memory.Scope, channel, content string) memory.Memory {
	t.Helper()
	vis := provenance.Public
	if strings.HasPrefix(channel, "D") {
		vis = provenance.DM
	}
	out, err := store.Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: user},
		Place: provenance.Place{Team: fakeslack.TeamID, Channel: channel, SourceKey: "slack:" + fakeslack.TeamID + ":" + channel + ":1800000000.000100", Visibility: vis},
		Scope: scope, Content: content, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	return *out.Memory
}

func publishesFor(fs *fakeslack.Server, user string) int {
	n := 0
	for _, c := range fs.Calls("views.publish") {
		if c.Form.Get("user_id") == user {
			n++
		}
	}
	return n
}

// Slack rate limits views.publish: the Home is published once Slack's
// Retry-After has passed, as chat.postMessage is, not left stale.
func TestHomePublishWaitsOutARateLimit(t *testing.T) {
	t.Parallel()
	fs, store, app := homeApp(t)
	remember(t, store, "U0ALICE", memory.ScopePersonal, "D0ALICE", "Prefers release notes as bullet lists")
	fs.RateLimitFor("views.publish", 1, 0) // Retry-After: 0, so the test waits on nothing
	runApp(t, app)
	fs.WaitView("U0ALICE", 10*time.Second, func(v json.RawMessage) bool {
		return strings.Contains(string(v), "Prefers release notes as bullet lists")
	})
	require.Equal(t, 2, publishesFor(fs, "U0ALICE"), "one 429, then the Home")
}

// A burst of passive learning about one person (five memories in a row)
// republishes their Home once, not five times.
func TestHomeBurstForOnePersonPublishesOnce(t *testing.T) {
	t.Parallel()
	fs, store, app := homeApp(t)
	for i := range 5 {
		remember(t, store, "U0ALICE", memory.ScopePersonal, "D0ALICE", fmt.Sprintf("Prefers release notes with %d bullets", i+1))
	}
	remember(t, store, "U0BOB", memory.ScopePersonal, "D0BOB", "Works from Lisbon")
	runApp(t, app)
	// The publisher takes its queue in order: once Bob's Home, queued
	// last, is published, every Home queued for Alice was published.
	fs.WaitView("U0BOB", 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "Works from Lisbon") })
	view := string(fs.WaitView("U0ALICE", 10*time.Second, nil))
	for i := range 5 {
		require.Contains(t, view, fmt.Sprintf("with %d bullets", i+1))
	}
	require.Equal(t, 1, publishesFor(fs, "U0ALICE"))
}

// A Forget that forgets nothing (here Bob's press with the id of Alice's
// memory, which he can't see, as from a stale or forged Home) says so on
// the Home, where it was pressed, instead of only in the log.
func TestHomeForgetThatForgetsNothingSaysSoOnTheHome(t *testing.T) {
	t.Parallel()
	fs, store, app := homeApp(t)
	other := remember(t, store, "U0ALICE", memory.ScopeWorkspace, "C0TEAM", "Staging is refreshed nightly")
	runApp(t, app)
	env := fs.SendInteractive(map[string]any{
		"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": "U0BOB", "team_id": fakeslack.TeamID},
		"api_app_id": fakeslack.AppID, "trigger_id": "trig",
		"actions": []any{map[string]any{"type": "button", "action_id": slackapp.ActionForget, "block_id": "b1", "value": other.ID.String(), "action_ts": "1800000000.000100"}},
		"view":    map[string]any{"id": "V1", "type": "home"}, "container": map[string]any{"type": "view", "view_id": "V1"},
	})
	fs.WaitAck(env, 5*time.Second)
	view := string(fs.WaitView("U0BOB", 10*time.Second, nil))
	require.Contains(t, view, "mnemo didn't forget that memory: it is no longer there, or no longer yours to see.")
	got, err := store.Mine(context.Background(), memory.Viewer{Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: "U0ALICE"}, Place: provenance.Place{Team: fakeslack.TeamID}, Private: true},
		memory.MineQuery{Authored: true})
	require.NoError(t, err)
	require.Len(t, got, 1, "Alice's memory is still there")

	// The notice is for that press: the next republish no longer shows it.
	remember(t, store, "U0BOB", memory.ScopePersonal, "D0BOB", "Works from Lisbon")
	view = string(fs.WaitView("U0BOB", 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "Works from Lisbon") }))
	require.NotContains(t, view, "didn't forget")
}
