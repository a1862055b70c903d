package slackapp_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/slackapp"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/usage"
)

// maxTripsToModel is the most database round trips a turn may make from
// its job's pickup to its model request (issue 21, item 9). Raise it only
// with a reason: each one is paid by every turn, before the model starts.
const maxTripsToModel = 10

// turnJob marks the contexts of the inbox's turn jobs, for the counter.
type turnJob struct{}

// A mention's way in, from the inbox job's pickup to the model request,
// makes at most maxTripsToModel database round trips, for a new thread and
// for a follow-up in a thread the bot answered. The pieces are serve's:
// the inbox's River client, the Slack app as its handler, the runner, the
// agent with recall and the memory tools; the count is taken with a pgx
// tracer on the pool they share, of the statements run for the turn's job
// alone (not River's polling, not the mover), in steady state (after a
// warm-up, so no statement is prepared for the first time).
func TestTurnRoundTripsBeforeTheModel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := testdb.New(t)
	trips := &testdb.RoundTrips{Keep: func(ctx context.Context) bool { return ctx.Value(turnJob{}) != nil }}
	pool := d.Traced(t, trips)
	traced := db.New(pool)

	var mu sync.Mutex
	atModel := map[string][]string{} // the post's text: the trips made when its model request came
	model := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1].Text
		mu.Lock()
		if _, seen := atModel[last]; !seen {
			atModel[last] = trips.Trips()
		}
		mu.Unlock()
		return fakellm.Reply{Text: "Noted."}
	})
	fs := fakeslack.New(t)
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	store := memory.New(traced, memory.Options{})
	reg := tools.NewRegistry()
	require.NoError(t, store.Register(reg))
	a := agent.New(agent.Options{Model: llm.NewAnthropic("k", model.URL, "m"), Registry: reg, Recall: store, Logger: zerolog.Nop()})
	// The meter records each turn's recall and steps, as serve's does: a
	// record that cost a round trip per memory recalled would count here.
	meter := usage.NewMeter(traced, usage.Limits{}, zerolog.Nop(), nil)
	runner := agent.NewRunner(traced, a, agent.RunnerOptions{Logger: zerolog.Nop(), Meter: meter})
	app := slackapp.New(slackapp.Config{API: api, Socket: socketmode.New(api), DB: traced, Runner: runner, Memory: store,
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), SlackAPIURL: fs.URL})
	mark := river.WorkerMiddlewareFunc(func(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
		if job.Kind == (inbox.Post{}).Kind() {
			ctx = context.WithValue(ctx, turnJob{}, true)
		}
		return doInner(ctx)
	})
	in, err := inbox.New(traced, inbox.Options{Logger: zerolog.Nop(), Handler: app, Middleware: []rivertype.Middleware{mark}})
	require.NoError(t, err)
	app.UseInbox(in)
	require.NoError(t, app.Authenticate(ctx))
	require.NoError(t, in.Start(ctx))
	t.Cleanup(func() { _ = in.Stop(5 * time.Second) })
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	fs.WaitConnected(10 * time.Second)

	n := 0
	// mention sends a mention (in thread root, or at the top level when
	// root is "") and waits until its turn and job are finished.
	mention := func(root string) (ts, text string) {
		n++
		ts = fmt.Sprintf("%d.%06d", 1800000000+n, 100)
		text = fmt.Sprintf("question number %03d", n)
		ev := map[string]any{"type": "app_mention", "user": "U0ALICE", "text": "<@" + fakeslack.BotUserID + "> " + text, "ts": ts, "channel": "C0TRIPS"}
		if root != "" {
			ev["thread_ts"] = root
		}
		fs.SendEvent(ev)
		require.Eventually(t, func() bool {
			var state string
			err := d.Pool.QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'mnemo_turn' AND args->>'ts' = $1`, ts).Scan(&state)
			return err == nil && state == "completed"
		}, 20*time.Second, 5*time.Millisecond, "the turn of %s finished", ts)
		return ts, text
	}
	// Memories of the channel that every question matches, more than
	// auto-recall takes, so that each turn recalls and records a full
	// prompt's worth.
	for i := range memory.PromptMemories + 4 {
		_, err := d.DB.Memories().Insert(ctx, db.MemoryInsert{
			Team: fakeslack.TeamID, Scope: "channel", SubjectType: "channel", SubjectID: "C0TRIPS", Kind: "knowledge",
			Content: fmt.Sprintf("The answer to question number %03d is in the runbook", i+1), SourceKey: "slack:" + fakeslack.TeamID + ":C0TRIPS:1700000000.000100",
			ChannelID: "C0TRIPS", Visibility: provenance.Public, ActorID: "U0BOB", WrittenBy: provenance.ByExplicit, ObservedAt: time.Now(),
			IdempotencyKey: fmt.Sprint("trips-", i),
		})
		require.NoError(t, err)
	}
	// Warm up: every statement prepared on the pool's connections, the
	// channel's type and the user known.
	for range 3 {
		root, _ := mention("")
		mention(root)
	}

	measure := func(name, root string) {
		trips.Reset()
		_, text := mention(root)
		mu.Lock()
		var got []string
		ok := false
		for last, at := range atModel {
			if strings.Contains(last, text) {
				got, ok = at, true
			}
		}
		mu.Unlock()
		require.True(t, ok, "%s: the model was asked", name)
		t.Logf("%s: %d round trips before the model request:\n  %s", name, len(got), strings.Join(got, "\n  "))
		require.NotEmpty(t, got, "%s: the counter sees the turn's statements", name)
		require.Contains(t, got, "TurnRecallRecord", "%s: the turn's recall was recorded before its model request", name)
		require.LessOrEqual(t, len(got), maxTripsToModel, "%s: round trips before the model request:\n  %s", name, strings.Join(got, "\n  "))
	}
	root, _ := mention("")
	measure("a follow-up in a thread the bot answered", root)
	measure("a mention that starts a thread", "")
}
