package slackapp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// clock is a time tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// sweepBench is an app whose abandoned-turn sweep runs on a clock the test
// moves, with a running turn that decided its answer and never posted it
// (every attempt's chat.postMessage was refused).
type sweepBench struct {
	fs     *fakeslack.Server
	d      *testdb.DB
	app    *App
	clock  *clock
	start  time.Time
	turn   db.Turn
	log    *harness.Buffer // the runner's
	answer string
}

const windowPost = "1800000000.000100"

func newSweepBench(t *testing.T) *sweepBench {
	t.Helper()
	ctx := context.Background()
	b := &sweepBench{d: testdb.New(t), fs: fakeslack.New(t), log: &harness.Buffer{}, answer: "The staging database is db-stage-2."}
	b.start = time.Now()
	b.clock = &clock{t: b.start}
	api := slack.New("xoxb-test", slack.OptionAPIURL(b.fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	runner := agent.NewRunner(b.d.DB, nil, agent.RunnerOptions{Logger: zerolog.New(b.log), Now: b.clock.now})
	b.app = New(Config{API: api, Socket: socketmode.New(api), DB: b.d.DB, Runner: runner, Memory: memory.New(b.d.DB, memory.Options{}),
		Directory: NewDirectory(api, nil), Logger: zerolog.Nop(), Now: b.clock.now, RetryBudget: time.Second})
	require.NoError(t, b.app.Authenticate(ctx))
	key := "slack:" + fakeslack.TeamID + ":C0SWEEP:" + windowPost
	turn, _, err := b.d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: fakeslack.TeamID, Channel: "C0SWEEP", SourceKey: key, Visibility: provenance.Public}, MessageTS: windowPost, ActorID: "U0ALICE"})
	require.NoError(t, err)
	_, err = b.d.DB.Turns().Decide(ctx, turn.ID, db.Pending{Kind: db.PendingAnswer, Text: b.answer}, false)
	require.NoError(t, err)
	// Its inbox job is gone: nothing touched it for longer than the sweep waits.
	_, err = b.d.Pool.Exec(ctx, "UPDATE turns SET updated_at = now() - interval '2 hours' WHERE id = $1", turn.ID)
	require.NoError(t, err)
	b.turn = turn
	require.Less(t, b.app.stale+time.Minute, agent.GiveUpWindow, "the sweep has a try inside the window")
	return b
}

// sweepAt runs the sweep at the clock's start plus after: each sweep
// touches the turn, so the next finds it once the clock is AbandonedAfter
// later.
func (b *sweepBench) sweepAt(after time.Duration) {
	b.clock.set(b.start.Add(after))
	b.app.sweepOnce(context.Background())
}

// thread is what the bot posted in the turn's thread.
func (b *sweepBench) thread() []string {
	var out []string
	for _, m := range b.fs.Posted() {
		if m.Channel == "C0SWEEP" && m.ThreadTS == windowPost && !m.Ephemeral {
			out = append(out, m.Text)
		}
	}
	return out
}

func (b *sweepBench) status(t *testing.T) db.TurnStatus {
	t.Helper()
	got, err := b.d.DB.Turns().Get(context.Background(), b.turn.ID)
	require.NoError(t, err)
	return got.Status
}

// errorLines are the runner's error-level log lines.
func (b *sweepBench) errorLines(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(b.log.String()), "\n") {
		var l struct{ Level string }
		require.NoError(t, json.Unmarshal([]byte(line), &l), line)
		if l.Level == "error" {
			out = append(out, line)
		}
	}
	return out
}

// A turn that decided its answer, which Slack then refused for good (not
// with an error it says is final, like not_in_channel), was given up by
// the sweep every hour for ever: GiveUp delivers a decided answer, and
// failed every time. Past agent.GiveUpWindow the answer is tried once
// more, and then the turn ends failed, the person told so in its thread;
// or, when Slack refuses that too, ends failed with nobody told, logged
// once at error level without what it would have said.
func TestGiveUpEndsARefusedAnswerPastItsWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		noticeRefused bool
	}{
		{name: "the person is told it failed"},
		{name: "nothing can be posted", noticeRefused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newSweepBench(t)
			b.fs.Fail("chat.postMessage", "msg_blocks_too_long")

			// Inside the window: the answer is tried, refused, and left for
			// the next sweep.
			within := b.app.stale + time.Minute
			b.sweepAt(0)
			b.sweepAt(within)
			require.Empty(t, b.thread())
			require.Equal(t, db.TurnRunning, b.status(t))
			require.GreaterOrEqual(t, len(b.fs.Calls("chat.postMessage")), 2, "each sweep tried the answer")

			// Past it: the answer is tried once more, still refused.
			if !tc.noticeRefused {
				b.fs.Fail("chat.postMessage", "")
				b.fs.FailNext("chat.postMessage", "msg_blocks_too_long")
			}
			b.sweepAt(agent.GiveUpWindow + within)
			require.Equal(t, db.TurnFailed, b.status(t), "the turn ended")
			b.fs.WaitReaction("add", "warning", windowPost, 5*time.Second)
			if tc.noticeRefused {
				require.Empty(t, b.thread(), "nothing could be posted")
				errs := b.errorLines(t)
				require.Len(t, errs, 1, "logged once: %s", b.log.String())
				require.Contains(t, errs[0], "nobody was told")
				require.NotContains(t, errs[0], "db-stage-2", "the answer's text is not logged")
				require.NotContains(t, errs[0], "ask again", "nor the notice's")
			} else {
				require.Equal(t, []string{ToMrkdwn(giveUpSentence)}, b.thread(), "the notice, and no answer")
				require.Empty(t, b.errorLines(t))
			}

			// Finished: a later sweep has nothing to give up, and posts
			// nothing more.
			calls := len(b.fs.Calls("chat.postMessage"))
			b.sweepAt(agent.GiveUpWindow + 2*within)
			require.Len(t, b.fs.Calls("chat.postMessage"), calls)
			if tc.noticeRefused {
				require.Len(t, b.errorLines(t), 1, "still logged once")
			}
		})
	}
}

// Slack briefly down when the sweep gives up a turn with a decided answer:
// nothing is posted then, and the next sweep, inside the window, posts the
// answer, once, with no notice beside it.
func TestGiveUpPostsTheAnswerOnceAfterABriefOutage(t *testing.T) {
	t.Parallel()
	b := newSweepBench(t)
	b.fs.Fail("chat.postMessage", "service_unavailable")
	b.sweepAt(0)
	require.Empty(t, b.thread())
	require.Equal(t, db.TurnRunning, b.status(t))

	b.fs.Fail("chat.postMessage", "")
	within := b.app.stale + time.Minute
	b.sweepAt(within)
	require.Equal(t, []string{ToMrkdwn(b.answer)}, b.thread(), "the answer, once, and no notice")
	require.Equal(t, db.TurnDone, b.status(t))

	b.sweepAt(2 * within)
	require.Equal(t, []string{ToMrkdwn(b.answer)}, b.thread())
}
