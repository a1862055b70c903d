package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/usage"
)

// recordingSurface is a thread that remembers what was posted in it, like
// Slack does: a Delivery with Resume finds what an earlier attempt posted.
type recordingSurface struct {
	mu       sync.Mutex
	replies  map[threads.TS][]string // post → answers posted
	notices  map[threads.TS][]string
	phases   []agent.Phase
	resumed  int
	failNext int // Reply and Notify fail this many more times
	next     int
}

func newSurface() *recordingSurface {
	return &recordingSurface{replies: map[threads.TS][]string{}, notices: map[threads.TS][]string{}}
}

func (s *recordingSurface) Backfill(context.Context, threads.Key, threads.TS, int) ([]threads.Message, error) {
	return nil, nil
}

func (s *recordingSurface) Progress(_ context.Context, _ agent.Post, ph agent.Phase) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phases = append(s.phases, ph)
}

func (s *recordingSurface) Reply(_ context.Context, d agent.Delivery) ([]threads.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Resume {
		s.resumed++
	}
	if s.failNext > 0 {
		s.failNext--
		return nil, errors.New("slack unavailable")
	}
	if !d.Resume || len(s.replies[d.Post.TS]) == 0 {
		s.replies[d.Post.TS] = append(s.replies[d.Post.TS], d.Text)
	}
	s.next++
	ts := threads.TSFromTime(time.Unix(1900000000+int64(s.next), 0))
	return []threads.Message{{TS: ts, Role: threads.RoleAssistant, Actor: provenance.Actor{Kind: provenance.KindBot, ID: "UBOT"}, Text: d.Text}}, nil
}

func (s *recordingSurface) Notify(_ context.Context, d agent.Delivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext > 0 {
		s.failNext--
		return errors.New("slack unavailable")
	}
	if !d.Resume || len(s.notices[d.Post.TS]) == 0 {
		s.notices[d.Post.TS] = append(s.notices[d.Post.TS], d.Text)
	}
	return nil
}

// outcomes is an agent.Observer that keeps the turn outcomes and memory
// writes.
type outcomes struct {
	mu      sync.Mutex
	turns   []string
	writes  []string
	budgets []string
}

func (o *outcomes) TurnFinished(outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.turns = append(o.turns, outcome)
}
func (o *outcomes) ToolCalled(string, string, time.Duration) {}
func (o *outcomes) MemoryWritten(path, outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writes = append(o.writes, path+" "+outcome)
}
func (o *outcomes) Recalled(time.Duration, error) {}
func (o *outcomes) BudgetExceeded(limit string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.budgets = append(o.budgets, limit)
}

type runnerBundle struct {
	db     *testdb.DB
	llm    *fakellm.Server
	runner *agent.Runner
	obs    *outcomes
}

func setupRunner(t *testing.T, script fakellm.Script) *runnerBundle {
	t.Helper()
	return setupMetered(t, script, usage.Limits{})
}

// setupMetered is setupRunner with every model call, the memory judge's
// too, going through a usage meter with limits, as serve wires it.
func setupMetered(t *testing.T, script fakellm.Script, limits usage.Limits) *runnerBundle {
	t.Helper()
	b := &runnerBundle{db: testdb.New(t), llm: fakellm.New(t, script), obs: &outcomes{}}
	meter := usage.NewMeter(b.db.DB, limits, zerolog.Nop(), nil)
	model := meter.Model(llm.NewAnthropic("k", b.llm.URL, "m"))
	judge := memory.ModelJudge{Model: model}
	store := memory.New(b.db.DB, memory.Options{Reviewer: judge, Decider: judge})
	reg := tools.NewRegistry()
	require.NoError(t, store.Register(reg))
	a := agent.New(agent.Options{Model: model, Registry: reg, Recall: store, Observer: b.obs, ToolSteps: int(limits.TurnToolSteps)})
	b.runner = agent.NewRunner(b.db.DB, a, agent.RunnerOptions{Logger: zerolog.Nop(), Observer: b.obs, Meter: meter})
	return b
}

func post(ts, text string) agent.Post {
	key := threads.Key{Team: "T1", Channel: "D1", Root: threads.TS(ts)}
	return agent.Post{
		Key: key, TS: threads.TS(ts), Text: text,
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UA", Name: "Alice"},
		Place: provenance.Place{Team: "T1", Channel: "D1", SourceKey: key.SourceKey(), ThreadTS: ts, Visibility: provenance.DM},
	}
}

func (b *runnerBundle) turn(t *testing.T, p agent.Post) db.Turn {
	t.Helper()
	got, err := b.db.DB.Turns().Find(context.Background(), p.Place.Team, p.Place.Channel, string(p.TS))
	require.NoError(t, err)
	return got
}

func TestRunAnswersOncePerPost(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, scripted.Memory())
	s := newSurface()
	p := post("1800000000.000100", "hello there")
	res, err := b.runner.Run(context.Background(), p, s)
	require.NoError(t, err)
	require.Empty(t, res.Failure)
	require.Len(t, s.replies[p.TS], 1)

	_, err = b.runner.Run(context.Background(), p, s)
	require.ErrorIs(t, err, agent.ErrTurnFinished, "a second run of an answered post does nothing")
	require.Len(t, s.replies[p.TS], 1)
	require.Len(t, b.llm.Requests(), 1, "and asks no model")
	got := b.turn(t, p)
	require.Equal(t, db.TurnDone, got.Status)
	require.NotEmpty(t, got.ReplyTS)
	require.Equal(t, []agent.Phase{agent.Working, agent.Done}, s.phases)
	require.Equal(t, []string{agent.OutcomeAnswered, agent.OutcomeDuplicate}, b.obs.turns)
}

// An answer Slack would not take is kept; the next run posts the same
// words without asking the model again.
func TestUnpostedReplyIsPostedByTheNextRunWithoutTheModel(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, scripted.Memory())
	s := newSurface()
	s.failNext = 1
	p := post("1800000000.000100", "hello there")
	_, err := b.runner.Run(context.Background(), p, s)
	require.Error(t, err)
	require.NotErrorIs(t, err, agent.ErrInterrupted)
	require.Empty(t, s.replies[p.TS])
	kept := b.turn(t, p)
	require.Equal(t, db.TurnRunning, kept.Status)
	require.NotNil(t, kept.Pending)
	require.Equal(t, db.PendingAnswer, kept.Pending.Kind)

	res, err := b.runner.Run(context.Background(), p, s)
	require.NoError(t, err)
	require.Empty(t, res.Failure)
	require.Equal(t, []string{kept.Pending.Text}, s.replies[p.TS], "the decided answer, once")
	require.Equal(t, 1, s.resumed, "the retry looked before posting; the first attempt had nothing to look for")
	require.Len(t, b.llm.Requests(), 1, "the model answered once")
	require.Equal(t, 2, b.turn(t, p).Attempts)
	require.Equal(t, []string{agent.OutcomeRetry, agent.OutcomeAnswered}, b.obs.turns)
}

func TestModelErrorsAreToldAtOnceInOneSentence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		reply fakellm.Reply
		want  string
	}{
		{"long Retry-After", fakellm.Reply{Status: 429, RetryAfter: "300"}, "asked me to wait 5 minutes"},
		{"bad request", fakellm.Reply{Status: 400}, "a problem on my side"},
		{"malformed", fakellm.Reply{Body: `{"nonsense": true`}, "a problem on my side"},
		{"key refused", fakellm.Reply{Status: 401}, "refused my API key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setupRunner(t, func(int, *fakellm.Request) fakellm.Reply { return c.reply })
			s := newSurface()
			p := post("1800000000.000100", "hello there")
			res, err := b.runner.Run(context.Background(), p, s)
			require.NoError(t, err, "a model error ends the turn; it is not retried by the inbox")
			require.Contains(t, res.Failure, c.want)
			require.NotContains(t, res.Failure, "couldn't reach")
			require.Equal(t, []string{res.Failure}, s.notices[p.TS])
			require.Equal(t, 1, strings.Count(res.Failure, "."), "one sentence: %s", res.Failure)
			require.Equal(t, db.TurnFailed, b.turn(t, p).Status)
			require.Equal(t, []agent.Phase{agent.Working, agent.Failed}, s.phases)
		})
	}
}

// A turn that stored a memory and then failed says what it stored.
func TestFailureAfterAMemoryWriteSaysWhatWasStored(t *testing.T) {
	t.Parallel()
	script := scripted.Memory()
	b := setupRunner(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if len(req.LastToolResults()) > 0 && strings.Contains(req.LastToolResults()[0].Content, `"stored":true`) {
			return fakellm.Reply{Status: 429, RetryAfter: "600"}
		}
		return script(n, req)
	})
	s := newSurface()
	p := post("1800000000.000100", "remember that I prefer tabs over spaces")
	res, err := b.runner.Run(context.Background(), p, s)
	require.NoError(t, err)
	require.Contains(t, res.Failure, "asked me to wait 10 minutes")
	require.Contains(t, res.Failure, "I did remember “Prefers tabs over spaces”")
	require.True(t, b.turn(t, p).UsedMemoryWrite)
	require.Equal(t, []string{"explicit stored"}, b.obs.writes)
}

// A run whose context ends (a shutdown) tells nobody anything; the next run
// answers.
func TestInterruptedTurnIsFinishedByTheNextRun(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	b := setupRunner(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if n == 0 {
			started <- struct{}{}
			<-release
		}
		return scripted.Memory()(n, req)
	})
	defer close(release)
	s := newSurface()
	p := post("1800000000.000100", "hello there")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := b.runner.Run(ctx, p, s); done <- err }()
	<-started
	cancel()
	err := <-done
	require.ErrorIs(t, err, agent.ErrInterrupted)
	require.Empty(t, s.notices[p.TS], "nobody is told anything")
	require.Equal(t, db.TurnRunning, b.turn(t, p).Status)

	res, err := b.runner.Run(context.Background(), p, s)
	require.NoError(t, err)
	require.Empty(t, res.Failure)
	require.Len(t, s.replies[p.TS], 1)
}

func TestStoredTextIsSanitisedAndCut(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, scripted.Memory())
	s := newSurface()
	nul := post("1800000000.000100", "hello\x00 wor\xffld")
	_, err := b.runner.Run(context.Background(), nul, s)
	require.NoError(t, err)
	require.Len(t, s.replies[nul.TS], 1, "a NUL byte gets a reply")
	hist, err := b.db.DB.Sessions().History(context.Background(), nul.Key, 10)
	require.NoError(t, err)
	require.Equal(t, "hello world", hist[0].Text)

	long := post("1800000001.000100", strings.Repeat("é", agent.MaxMessageChars+500))
	res, err := b.runner.Run(context.Background(), long, s)
	require.NoError(t, err)
	require.Contains(t, res.Failure, "12500 characters")
	hist, err = b.db.DB.Sessions().History(context.Background(), long.Key, 10)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(hist[0].Text, strings.Repeat("é", agent.MaxMessageChars)+"… [truncated: the message was 12500 characters"), "kept cut, with a marker")
	require.Len(t, b.llm.Requests(), 1, "the long message never reached the model")

	// A post cut when it was taken in (agent.MaxPostChars) is said to be at
	// least that long: its real length is not known here, and the count of
	// what was kept would understate it.
	cut := post("1800000002.000100", strings.Repeat("a ", agent.MaxPostChars/2))
	res, err = b.runner.Run(context.Background(), cut, s)
	require.NoError(t, err)
	require.Contains(t, res.Failure, "at least 40000 characters long")
	hist, err = b.db.DB.Sessions().History(context.Background(), cut.Key, 10)
	require.NoError(t, err)
	require.Contains(t, hist[0].Text, "… [truncated: the message was at least 40000 characters")
}

func TestGiveUpTellsOnceAndOnlyUnfinishedTurns(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, scripted.Memory())
	s := newSurface()
	p := post("1800000000.000100", "hello there")
	require.NoError(t, b.runner.GiveUp(context.Background(), p, s, "Sorry, I couldn't answer this; please ask again."))
	require.NoError(t, b.runner.GiveUp(context.Background(), p, s, "Sorry, I couldn't answer this; please ask again."))
	require.Equal(t, []string{"Sorry, I couldn't answer this; please ask again."}, s.notices[p.TS])
	require.Equal(t, db.TurnFailed, b.turn(t, p).Status)

	answered := post("1800000001.000100", "hello again")
	_, err := b.runner.Run(context.Background(), answered, s)
	require.NoError(t, err)
	require.NoError(t, b.runner.GiveUp(context.Background(), answered, s, "too late"))
	require.Empty(t, s.notices[answered.TS], "an answered post is never told it failed")
}

// A post that waited behind an earlier turn of its thread is older than
// that turn's reply, yet it is what the model answers.
func TestAWaitingPostIsAnsweredLast(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, scripted.Memory())
	s := newSurface()
	first := post("1800000000.000100", "first question")
	second := post("1800000001.000100", "second question")
	second.Key, second.Place = first.Key, first.Place
	ctx := context.Background()
	_, err := b.runner.Accept(ctx, second, s)
	require.NoError(t, err)
	_, err = b.runner.Run(ctx, first, s)
	require.NoError(t, err)
	_, err = b.runner.Run(ctx, second, s)
	require.NoError(t, err)
	reqs := b.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	require.Contains(t, last[len(last)-1].Text, "second question")
	require.Equal(t, llm.RoleUser, last[len(last)-1].Role)
}

// recallSignal is a Recaller that says when a recall has started.
type recallSignal struct {
	once    sync.Once
	started chan struct{}
}

func (r *recallSignal) ForPrompt(context.Context, memory.Viewer, string) ([]memory.Memory, error) {
	r.once.Do(func() { close(r.started) })
	return nil, nil
}

// slowThread is a Slack thread whose first read waits until a recall has
// started, or gives up after a while, as a slow conversations.replies does.
type slowThread struct {
	*recordingSurface
	recall     <-chan struct{}
	overlapped bool
}

func (s *slowThread) Backfill(context.Context, threads.Key, threads.TS, int) ([]threads.Message, error) {
	select {
	case <-s.recall:
		s.overlapped = true
	case <-time.After(5 * time.Second):
	}
	return nil, nil
}

// Recall needs only the post: a reply in a thread the bot has not seen
// yet is recalled for while the thread is read from Slack, not after.
func TestRecallRunsWhileTheThreadIsRead(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	rec := &recallSignal{started: make(chan struct{})}
	a := agent.New(agent.Options{Model: llm.NewAnthropic("k", fakellm.New(t, scripted.Memory()).URL, "m"), Registry: tools.NewRegistry(), Recall: rec})
	r := agent.NewRunner(d.DB, a, agent.RunnerOptions{Logger: zerolog.Nop()})
	s := &slowThread{recordingSurface: newSurface(), recall: rec.started}

	p := post("1800000000.000100", "what did we decide about the deploy freeze?")
	p.TS = "1800000000.000200" // a reply: the thread is read first
	lease := db.Lease{SourceKey: p.Key.SourceKey(), PostTS: string(p.TS), JobID: 1, Holder: "test", ExpiresAt: time.Now().Add(time.Minute)}
	tk, err := r.Take(context.Background(), p, s, lease, time.Minute)
	require.NoError(t, err)
	require.True(t, tk.Leased)
	require.True(t, s.overlapped, "the recall started only after the thread was read")
}
