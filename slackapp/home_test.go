package slackapp_test

import (
	"context"
	"encoding/json"
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
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	store := memory.New(d.DB, memory.Options{})
	app := slackapp.New(slackapp.Config{
		API: api, Socket: socketmode.New(api), DB: d.DB, Memory: store,
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(),
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
