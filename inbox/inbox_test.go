package inbox_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// handler is a front end for tests: it records what the inbox asks of it,
// and a test can hold a post's turn, or make it fail.
type handler struct {
	mu       sync.Mutex
	cond     *sync.Cond
	accepted map[string]int
	started  []string // turns started, in order
	finished []string
	running  int
	maxRun   int
	gaveUp   map[string]error
	hold     map[string]chan struct{} // ts → released when closed
	fail     map[string]int           // ts → fail this many more turns
	ignore   map[string]bool          // ts → Accept says no turn is needed
}

func newHandler() *handler {
	h := &handler{accepted: map[string]int{}, gaveUp: map[string]error{}, hold: map[string]chan struct{}{}, fail: map[string]int{}, ignore: map[string]bool{}}
	h.cond = sync.NewCond(&h.mu)
	return h
}

func (h *handler) Accept(ctx context.Context, p inbox.Post, c inbox.Claim) (inbox.Accepted, error) {
	h.mu.Lock()
	h.accepted[p.TS]++
	ignore := h.ignore[p.TS]
	h.mu.Unlock()
	// A test may be waiting for this acceptance: wake it, rather than
	// leave it to waitFor's fallback timer.
	h.cond.Broadcast()
	if ignore {
		return inbox.Accepted{}, nil
	}
	leased, err := c.Acquire(ctx)
	return inbox.Accepted{Needed: true, Leased: leased}, err
}

func (h *handler) Turn(ctx context.Context, p inbox.Post, _ inbox.Accepted) error {
	h.mu.Lock()
	h.started = append(h.started, p.TS)
	h.running++
	h.maxRun = max(h.maxRun, h.running)
	hold := h.hold[p.TS]
	fail := h.fail[p.TS] > 0
	if fail {
		h.fail[p.TS]--
	}
	h.mu.Unlock()
	h.cond.Broadcast()
	defer func() {
		h.mu.Lock()
		h.running--
		h.mu.Unlock()
		h.cond.Broadcast()
	}()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if fail {
		return errors.New("slack unavailable")
	}
	h.mu.Lock()
	h.finished = append(h.finished, p.TS)
	h.mu.Unlock()
	h.cond.Broadcast()
	return nil
}

func (h *handler) GiveUp(_ context.Context, p inbox.Post, cause error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaveUp[p.TS] = cause
	h.cond.Broadcast()
	return nil
}

func (h *handler) holdTurn(ts string) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := make(chan struct{})
	h.hold[ts] = c
	return func() { close(c) }
}

func (h *handler) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timer := time.AfterFunc(30*time.Second, h.cond.Broadcast)
	defer timer.Stop()
	deadline := time.Now().Add(30 * time.Second)
	h.mu.Lock()
	defer h.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		h.cond.Wait()
	}
}

func (h *handler) count(list []string, ts string) int {
	n := 0
	for _, x := range list {
		if x == ts {
			n++
		}
	}
	return n
}

type bundle struct {
	db      *testdb.DB
	h       *handler
	inbox   *inbox.Inbox
	logs    *harness.Buffer
	options inbox.Options
}

func setup(t *testing.T, o inbox.Options) *bundle {
	t.Helper()
	b := &bundle{db: testdb.New(t), h: newHandler(), logs: &harness.Buffer{}}
	o.Handler = b.h
	o.Logger = zerolog.New(b.logs)
	if o.FetchPollInterval == 0 {
		o.FetchPollInterval = 50 * time.Millisecond
	}
	b.options = o
	b.inbox = b.start(t)
	return b
}

func (b *bundle) start(t *testing.T) *inbox.Inbox {
	t.Helper()
	in, err := inbox.New(b.db.DB, b.options)
	require.NoError(t, err)
	require.NoError(t, in.Start(context.Background()))
	t.Cleanup(func() { _ = in.Stop(time.Second) })
	return in
}

func mention(ts, threadTS string) inbox.Post {
	return inbox.Post{Team: "T1", Channel: "C1", TS: ts, ThreadTS: threadTS, User: "UA", Text: "hello", Mention: true}
}

func TestAPostIsTakenInOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	ctx := context.Background()
	p := mention("1800000000.000100", "")
	dup, err := b.inbox.Enqueue(ctx, p)
	require.NoError(t, err)
	require.False(t, dup)
	retry := p
	retry.EnvelopeID, retry.EventID = "env-2", "Ev2"
	dup, err = b.inbox.Enqueue(ctx, retry)
	require.NoError(t, err)
	require.True(t, dup, "Slack's retry is the same post")
	asMessage := p
	asMessage.Mention, asMessage.ChannelType = false, "channel"
	dup, err = b.inbox.Enqueue(ctx, asMessage)
	require.NoError(t, err)
	require.True(t, dup, "the message copy of a mention is the same post")

	b.h.waitFor(t, "the turn", func() bool { return len(b.h.finished) == 1 })
	// Control: another post of the same thread is a new job, and runs.
	next := mention("1800000001.000100", p.TS)
	dup, err = b.inbox.Enqueue(ctx, next)
	require.NoError(t, err)
	require.False(t, dup)
	b.h.waitFor(t, "the second turn", func() bool { return len(b.h.finished) == 2 })
	dup, err = b.inbox.Enqueue(ctx, p)
	require.NoError(t, err)
	require.True(t, dup, "an answered post is not taken in again")
	require.Equal(t, []string{p.TS, next.TS}, b.h.started, "each post's turn ran once")
}

// Turns of one thread run one at a time, in the order of their posts;
// another thread runs meanwhile.
func TestTurnsOfAThreadRunOneAtATime(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	ctx := context.Background()
	const root = "1800000000.000100"
	release := b.h.holdTurn(root)
	_, err := b.inbox.Enqueue(ctx, mention(root, ""))
	require.NoError(t, err)
	b.h.waitFor(t, "the first turn to start", func() bool { return len(b.h.started) == 1 })
	for _, ts := range []string{"1800000001.000100", "1800000002.000100"} {
		_, err := b.inbox.Enqueue(ctx, mention(ts, root))
		require.NoError(t, err)
	}
	other := mention("1800000003.000100", "")
	_, err = b.inbox.Enqueue(ctx, other)
	require.NoError(t, err)
	b.h.waitFor(t, "the other thread's turn", func() bool { return b.h.count(b.h.finished, other.TS) == 1 })
	b.h.waitFor(t, "the waiting posts to be accepted", func() bool {
		return b.h.accepted["1800000001.000100"] > 0 && b.h.accepted["1800000002.000100"] > 0
	})
	b.h.mu.Lock()
	require.Equal(t, []string{root, other.TS}, b.h.started, "the thread's later posts wait while its first turn runs")
	b.h.mu.Unlock()

	release()
	b.h.waitFor(t, "every turn", func() bool { return len(b.h.finished) == 4 })
	// Order among the waiting posts is guaranteed once each has queued for
	// the thread; one that has not asked yet when the lease frees may be
	// overtaken, so only the first two are fixed here.
	require.Equal(t, []string{root, other.TS}, b.h.started[:2])
	require.ElementsMatch(t, []string{"1800000001.000100", "1800000002.000100"}, b.h.started[2:])
}

func TestParallelTurnsAreBounded(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{MaxTurns: 2})
	ctx := context.Background()
	var releases []func()
	for i, ts := range []string{"1800000000.000100", "1800000001.000100", "1800000002.000100"} {
		releases = append(releases, b.h.holdTurn(ts))
		_, err := b.inbox.Enqueue(ctx, mention(ts, ""))
		require.NoError(t, err, i)
	}
	b.h.waitFor(t, "two turns", func() bool { return len(b.h.started) == 2 })
	// Release them one by one: the third starts only when a slot frees.
	releases[0]()
	releases[1]()
	releases[2]()
	b.h.waitFor(t, "every turn", func() bool { return len(b.h.finished) == 3 })
	require.Equal(t, 2, b.h.maxRun, "never more than MaxTurns at once, though three were held")
}

// A turn that keeps failing is tried Attempts times, then its author is
// told; a turn that fails once is just tried again.
func TestFailingTurnIsRetriedThenGivenUp(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{RetryAfter: []time.Duration{50 * time.Millisecond}})
	ctx := context.Background()
	flaky, broken := mention("1800000000.000100", ""), mention("1800000001.000100", "")
	b.h.mu.Lock()
	b.h.fail[flaky.TS], b.h.fail[broken.TS] = 1, 100
	b.h.mu.Unlock()
	for _, p := range []inbox.Post{flaky, broken} {
		_, err := b.inbox.Enqueue(ctx, p)
		require.NoError(t, err)
	}
	b.h.waitFor(t, "the broken post to be given up", func() bool { return b.h.gaveUp[broken.TS] != nil })
	b.h.waitFor(t, "the flaky post to be answered", func() bool { return b.h.count(b.h.finished, flaky.TS) == 1 })
	require.ErrorContains(t, b.h.gaveUp[broken.TS], "slack unavailable")
	require.Equal(t, inbox.Attempts, b.h.count(b.h.started, broken.TS))
	require.Equal(t, 2, b.h.count(b.h.started, flaky.TS))
	require.NotContains(t, b.h.gaveUp, flaky.TS)
}

// A post the front end does not need a turn for takes no lease and ends.
func TestPostNeedingNoTurnEnds(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	chatter := mention("1800000000.000100", "")
	b.h.mu.Lock()
	b.h.ignore[chatter.TS] = true
	b.h.mu.Unlock()
	_, err := b.inbox.Enqueue(context.Background(), chatter)
	require.NoError(t, err)
	control := mention("1800000001.000100", "")
	_, err = b.inbox.Enqueue(context.Background(), control)
	require.NoError(t, err)
	b.h.waitFor(t, "the control's turn", func() bool { return len(b.h.finished) == 1 })
	b.h.waitFor(t, "the chatter to be accepted", func() bool { return b.h.accepted[chatter.TS] == 1 })
	// Accept returning is not the job's end: a Turn could still follow it.
	// River marks the job completed only after its work returned, so once
	// it is, any turn of the chatter's would already be in started.
	require.Eventually(t, func() bool {
		var state string
		err := b.db.Pool.QueryRow(context.Background(), "SELECT state FROM river_job WHERE kind = 'mnemo_turn' AND args->>'ts' = $1", chatter.TS).Scan(&state)
		return err == nil && state == "completed"
	}, 30*time.Second, 20*time.Millisecond, "the chatter's job to complete")
	b.h.mu.Lock()
	defer b.h.mu.Unlock()
	require.Equal(t, []string{control.TS}, b.h.started)
}

// On shutdown a turn in flight is given the drain time, then cancelled; it
// goes back to the inbox without counting an attempt, and the next start
// finishes it.
func TestShutdownPutsTurnsInFlightBack(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{})
	p := mention("1800000000.000100", "")
	b.h.holdTurn(p.TS)
	_, err := b.inbox.Enqueue(context.Background(), p)
	require.NoError(t, err)
	b.h.waitFor(t, "the turn to start", func() bool { return len(b.h.started) == 1 })
	start := time.Now()
	require.NoError(t, b.inbox.Stop(200*time.Millisecond), "a drain that had to cancel is still clean")
	require.Less(t, time.Since(start), 10*time.Second)
	require.Empty(t, b.h.finished)
	require.Contains(t, b.logs.String(), "back in the inbox")

	b.h.mu.Lock()
	delete(b.h.hold, p.TS)
	b.h.mu.Unlock()
	b.start(t)
	b.h.waitFor(t, "the turn to finish after the restart", func() bool { return len(b.h.finished) == 1 })
	var attempt int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), "SELECT attempt FROM river_job WHERE kind = 'mnemo_turn'").Scan(&attempt))
	require.Equal(t, 1, attempt, "the interrupted attempt was not counted")
}

// A job left running by a process that died, with its thread's lease, is
// handed back once the lease expires, and finished.
func TestDeadProcessTurnIsHandedBack(t *testing.T) {
	t.Parallel()
	b := setup(t, inbox.Options{LeaseTTL: 400 * time.Millisecond})
	ctx := context.Background()
	require.NoError(t, b.inbox.Stop(time.Second))
	p := mention("1800000000.000100", "")
	// What kill -9 leaves: the post moved into River, its job running under
	// a client that is gone, and its thread's lease, no longer renewed.
	_, err := b.inbox.Client().Insert(ctx, p, nil)
	require.NoError(t, err)
	_, err = b.db.Pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = ARRAY['dead-process']`)
	require.NoError(t, err)
	var job int64
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT id FROM river_job").Scan(&job))
	_, err = b.db.Pool.Exec(ctx, `INSERT INTO thread_leases (source_key, post_ts, job_id, holder, expires_at) VALUES ($1, $2, $3, 'dead-process', now() + interval '300 milliseconds')`,
		"slack:T1:C1:"+p.TS, p.TS, job)
	require.NoError(t, err)

	// The hand-back is logged after its commit, so the turn can be done
	// first: the line is held until it is, as a slow machine may.
	const handedBack = "a stopped process's turn was handed back to the inbox"
	release := make(chan struct{})
	var once sync.Once
	b.options.Logger = zerolog.New(heldLine{w: b.logs, text: handedBack, release: release})
	b.start(t)
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the stop
	b.h.waitFor(t, "the turn to be finished", func() bool { return len(b.h.finished) == 1 })
	once.Do(func() { close(release) })
	require.True(t, b.logs.WaitFor(handedBack, 30*time.Second), "the hand-back is logged:\n%s", b.logs)
	// Handed back with River's public API: the dead job is marked for
	// cancellation (River's rescuer finalizes it), and a job that takes it
	// over ran the turn, the dead attempt counted.
	var cancelAttempted bool
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT metadata ? 'cancel_attempted_at' FROM river_job WHERE id = $1", job).Scan(&cancelAttempted))
	require.True(t, cancelAttempted, "the dead job is marked for cancellation")
	var attempt, prior int
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT attempt, (args->>'prior')::int FROM river_job WHERE (args->>'takeover')::bigint = $1", job).Scan(&attempt, &prior))
	require.Equal(t, 2, prior+attempt, "the dead attempt counts")
	var jobs int
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM river_job").Scan(&jobs))
	require.Equal(t, 2, jobs, "control: the query sees both jobs")
}

// heldLine writes a log to w, holding each line that holds text until
// release is closed.
type heldLine struct {
	w       io.Writer
	text    string
	release <-chan struct{}
}

func (h heldLine) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(h.text)) {
		<-h.release
	}
	return h.w.Write(p)
}

func TestHealthFollowsTheQueue(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	in, err := inbox.New(d.DB, inbox.Options{Handler: newHandler(), Logger: zerolog.Nop()})
	require.NoError(t, err)
	require.Error(t, in.Healthy(), "not started")
	require.NoError(t, in.Start(context.Background()))
	require.Eventually(t, func() bool { return in.Healthy() == nil }, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, in.Stop(time.Second))
	require.Error(t, in.Healthy(), "stopped")
}
