package slackapp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// A turn left running with no job to finish it is not left with :eyes:
// forever: the sweep tells its thread, once, and records it failed.
func TestAbandonedTurnIsToldAndFailed(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	runner := agent.NewRunner(d.DB, nil, agent.RunnerOptions{Logger: zerolog.Nop()})
	a := New(Config{API: api, Socket: socketmode.New(api), DB: d.DB, Runner: runner, Memory: memory.New(d.DB, memory.Options{}), Directory: NewDirectory(api, nil), Logger: zerolog.Nop()})
	require.NoError(t, a.Authenticate(context.Background()))
	ctx := context.Background()
	open := func(ts string) db.Turn {
		key := "slack:" + fakeslack.TeamID + ":C0SWEEP:" + ts
		turn, _, err := d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: fakeslack.TeamID, Channel: "C0SWEEP", SourceKey: key, Visibility: provenance.Public}, MessageTS: ts, ActorID: "U0ALICE"})
		require.NoError(t, err)
		return turn
	}
	stale, fresh := open("1800000000.000100"), open("1800000001.000100")
	_, err := d.Pool.Exec(ctx, "UPDATE turns SET updated_at = now() - interval '2 hours' WHERE id = $1", stale.ID)
	require.NoError(t, err)

	a.sweepOnce(ctx)
	a.sweepOnce(ctx)
	var told []fakeslack.Message
	for _, m := range fs.Posted() {
		if strings.Contains(m.Text, "please ask again") {
			told = append(told, m)
		}
	}
	require.Len(t, told, 1, "one sentence, however often the sweep runs")
	require.Equal(t, "1800000000.000100", told[0].ThreadTS)
	fs.WaitReaction("add", "warning", "1800000000.000100", 5*time.Second)
	got, err := d.DB.Turns().Get(ctx, stale.ID)
	require.NoError(t, err)
	require.Equal(t, db.TurnFailed, got.Status)
	got, err = d.DB.Turns().Get(ctx, fresh.ID)
	require.NoError(t, err)
	require.Equal(t, db.TurnRunning, got.Status, "a turn still being worked is left alone")
}
