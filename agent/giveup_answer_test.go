package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
)

// An attempt that decided its answer and posted it, but could not record
// it (here the after-turn hook, which enqueues learning in the same
// transaction, fails), leaves the answer in the thread and the turn
// running with the answer kept. The inbox then gives up on the post (its
// attempts are spent): the answer already in the thread is found and
// recorded, and the turn is done. No notice saying there is no answer is
// posted under the answer.
func TestGiveUpAfterAPostedAnswerDeliversIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	fs.AddUser(fakeslack.User{ID: "U0ALICE", Name: "Alice"})
	model := fakellm.New(t, scripted.Memory())

	var hooks atomic.Int32
	failOnce := func(context.Context, *db.Tx, int64) error {
		if hooks.Add(1) == 1 {
			return errors.New("learning queue unavailable")
		}
		return nil
	}
	m := llm.NewAnthropic("k", model.URL, "m")
	store := memory.New(d.DB, memory.Options{})
	reg := tools.NewRegistry()
	require.NoError(t, store.Register(reg))
	runner := agent.NewRunner(d.DB, agent.New(agent.Options{Model: m, Registry: reg, Recall: store}), agent.RunnerOptions{Logger: zerolog.Nop(), AfterTurn: failOnce})
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	a := slackapp.New(slackapp.Config{API: api, Socket: socketmode.New(api), DB: d.DB, Runner: runner, Memory: store, Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop()})
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(cctx)
	})
	require.NoError(t, a.Authenticate(ctx))

	ts := fs.NextTS()
	fs.Seed(fakeslack.Message{Channel: "D0ALICE", TS: ts, User: "U0ALICE", Text: "hello there", Team: fakeslack.TeamID})
	ip := inbox.Post{Team: fakeslack.TeamID, Channel: "D0ALICE", ChannelType: "im", TS: ts, User: "U0ALICE", Text: "hello there"}
	lease := db.Lease{SourceKey: "slack:" + fakeslack.TeamID + ":D0ALICE:" + ts, PostTS: ts, JobID: 1, Holder: "test"}

	// The attempt: the answer is decided and posted, then not recorded.
	acc, err := a.Accept(ctx, ip, inbox.Claim{Lease: lease, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, acc.Leased)
	require.Error(t, a.Turn(ctx, ip, acc), "the attempt did not finish")
	turn, err := d.DB.Turns().Find(ctx, fakeslack.TeamID, "D0ALICE", ts)
	require.NoError(t, err)
	require.Equal(t, db.TurnRunning, turn.Status)
	require.NotNil(t, turn.Pending)
	require.Equal(t, db.PendingAnswer, turn.Pending.Kind, "the answer is kept")
	answers := visible(fs, ts)
	require.Len(t, answers, 1, "and in the thread")
	require.NoError(t, d.DB.Leases().Release(ctx, lease.SourceKey, lease.JobID))

	// Its attempts spent, the inbox gives up on the post.
	require.NoError(t, a.GiveUp(ctx, ip, errors.New("posted, but not recorded")))
	require.NoError(t, a.GiveUp(ctx, ip, errors.New("again")), "giving up again changes nothing")

	require.Equal(t, texts(answers), texts(visible(fs, ts)), "the thread holds the answer, once, and no notice of failure")
	turn, err = d.DB.Turns().Find(ctx, fakeslack.TeamID, "D0ALICE", ts)
	require.NoError(t, err)
	require.Equal(t, db.TurnDone, turn.Status, "the turn is recorded answered")
	require.Equal(t, answers[0].TS, turn.ReplyTS, "by the answer in the thread")
	hist, err := d.DB.Sessions().History(ctx, mustKey(t, ts), 10)
	require.NoError(t, err)
	var logged []string
	for _, h := range hist {
		logged = append(logged, string(h.Role)+": "+h.Text)
	}
	require.Len(t, logged, 2, "the post and the answer are logged: %v", logged)
	require.True(t, strings.HasPrefix(logged[1], "assistant: "), "%v", logged)
	require.Equal(t, int32(2), hooks.Load(), "the after-turn hook ran with the record that finished the turn")
}

// visible is what the bot posted in the thread of the post at ts: its
// messages as people see them (not updates, not ephemeral ones).
func visible(fs *fakeslack.Server, ts string) []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range fs.Posted() {
		if m.Channel == "D0ALICE" && m.ThreadTS == ts && !m.Updated && !m.Ephemeral {
			out = append(out, m)
		}
	}
	return out
}

func mustKey(t *testing.T, ts string) threads.Key {
	t.Helper()
	key, _, err := threads.KeyFor(fakeslack.TeamID, "D0ALICE", ts, "")
	require.NoError(t, err)
	return key
}

// texts are messages as "ts: text".
func texts(msgs []fakeslack.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.TS + ": " + m.Text
	}
	return out
}

// An answer decided but never posted (Slack refused every attempt's post)
// is what giving up posts, once: the person gets the answer, not a notice.
func TestGiveUpPostsADecidedAnswer(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, scripted.Memory())
	s := newSurface()
	s.failNext = 1
	p := post("1800000000.000100", "hello there")
	_, err := b.runner.Run(context.Background(), p, s)
	require.Error(t, err, "the answer was not posted")
	kept := b.turn(t, p)
	require.Equal(t, db.PendingAnswer, kept.Pending.Kind)

	require.NoError(t, b.runner.GiveUp(context.Background(), p, s, "Sorry, I couldn't answer this; please ask again."))
	require.Equal(t, []string{kept.Pending.Text}, s.replies[p.TS], "the decided answer, once")
	require.Empty(t, s.notices[p.TS], "no notice")
	require.Equal(t, db.TurnDone, b.turn(t, p).Status)
	require.Len(t, b.llm.Requests(), 1, "the model answered once")
}
