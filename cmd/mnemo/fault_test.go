package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// The fault tests run the real mnemo binary, built once, as processes that
// can be killed, stopped and restarted, against the fake Slack and model
// servers of this test process.

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// mnemoBinary builds cmd/mnemo once per test run.
func mnemoBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "mnemo-fault-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mnemo")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// removeFaultBinary is called by TestMain once the tests are done.
func removeFaultBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// faultBed is the world a fault test's bots live in: a database, a fake
// Slack and a fake model, shared by every process the test starts.
type faultBed struct {
	t     *testing.T
	dbURL string
	pool  *pgxpool.Pool
	slack *fakeslack.Server
	llm   *fakellm.Server
	env   map[string]string
}

func newFaultBed(t *testing.T, script fakellm.Script, dbURL ...string) *faultBed {
	t.Helper()
	f := &faultBed{t: t, slack: fakeslack.New(t), llm: fakellm.New(t, script)}
	if len(dbURL) > 0 {
		f.dbURL = dbURL[0]
		pool, err := pgxpool.New(context.Background(), f.dbURL)
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		f.pool = pool
	} else {
		d := testdb.New(t)
		f.dbURL, f.pool = d.URL, d.Pool
	}
	for _, u := range []fakeslack.User{{ID: alice, Name: "Alice"}, {ID: bob, Name: "Bob"}} {
		f.slack.AddUser(u)
	}
	f.env = map[string]string{
		"DATABASE_URL":       f.dbURL,
		"SLACK_BOT_TOKEN":    "xoxb-test-bot-token",
		"SLACK_APP_TOKEN":    "xapp-1-test-app-token",
		"SLACK_API_URL":      f.slack.URL,
		"MNEMO_LLM_PROVIDER": "anthropic",
		"MNEMO_LLM_BASE_URL": f.llm.URL,
		"MNEMO_LLM_API_KEY":  "sk-ant-test-key-0123456789abcdef",
		"MNEMO_MODEL":        "claude-test",
		"MNEMO_LOG_LEVEL":    "info",
		"MNEMO_HTTP_ADDR":    "127.0.0.1:0",
	}
	return f
}

// replica is one running `mnemo serve` process.
type replica struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	// logs is its stderr, copied through a pipe: a line can arrive after
	// what the process did next is seen, so a test waits for it (WaitFor).
	logs     *harness.Buffer
	done     chan struct{}
	exitCode int
	httpAddr string
}

// start runs a replica and waits until it serves and holds a Socket Mode
// connection.
func (f *faultBed) start(name string, extraEnv ...string) *replica {
	f.t.Helper()
	cmd := exec.Command(mnemoBinary(f.t), "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	env := map[string]string{}
	for k, v := range f.env {
		env[k] = v
	}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		env[extraEnv[i]] = extraEnv[i+1]
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	r := &replica{t: f.t, name: name, cmd: cmd, logs: &harness.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = io.Discard, r.logs
	require.NoError(f.t, cmd.Start())
	go func() {
		_ = cmd.Wait()
		r.exitCode = cmd.ProcessState.ExitCode()
		close(r.done)
	}()
	f.t.Cleanup(func() {
		r.kill()
		if f.t.Failed() {
			f.t.Logf("%s logs:\n%s", r.name, r.logs.String())
		}
	})
	require.Eventually(f.t, func() bool { return r.serving() != "" || r.exited() }, 60*time.Second, 20*time.Millisecond, "%s never said it was serving", name)
	require.False(f.t, r.exited(), "%s exited at start:\n%s", name, r.logs.String())
	var line struct {
		HTTP string `json:"http"`
	}
	require.NoError(f.t, json.Unmarshal([]byte(r.serving()), &line))
	r.httpAddr = line.HTTP
	// Its own word, not a count of the fake's connections: a killed
	// replica's connection may not have been dropped yet.
	require.Eventually(f.t, func() bool { return logLine(r.logs.String(), `"socket mode connected"`) != "" }, 30*time.Second, 20*time.Millisecond, "%s never connected", name)
	f.slack.WaitConnected(30 * time.Second)
	return r
}

func (r *replica) serving() string { return logLine(r.logs.String(), `"mnemo serving"`) }

func (r *replica) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// kill is kill -9.
func (r *replica) kill() {
	if r.exited() {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.done
}

// term sends SIGTERM and waits for the exit, up to limit; it returns the
// exit code and how long the process took.
func (r *replica) term(limit time.Duration) (int, time.Duration) {
	r.t.Helper()
	start := time.Now()
	require.NoError(r.t, r.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-r.done:
	case <-time.After(limit):
		r.t.Fatalf("%s did not exit within %s of SIGTERM", r.name, limit)
	}
	return r.exitCode, time.Since(start)
}

// get fetches an operator endpoint.
func (r *replica) get(path string) (int, string) {
	r.t.Helper()
	resp, err := http.Get("http://" + r.httpAddr + path)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return resp.StatusCode, string(b)
}

func (f *faultBed) event(typ, user, channel, text, threadTS string, o ...fakeslack.EventOptions) (ts, envelope, eventID string) {
	ts = f.slack.NextTS()
	ev := map[string]any{"type": typ, "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
	if typ == "app_mention" {
		ev["text"] = "<@" + fakeslack.BotUserID + "> " + text
	} else {
		ev["channel_type"] = "im"
	}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	var opt fakeslack.EventOptions
	if len(o) > 0 {
		opt = o[0]
	}
	opt.EventID = "Ev" + strings.ReplaceAll(ts, ".", "")
	return ts, f.slack.SendEvent(ev, opt), opt.EventID
}

func (f *faultBed) mention(channel, text, threadTS string, o ...fakeslack.EventOptions) (ts, envelope, eventID string) {
	return f.event("app_mention", alice, channel, text, threadTS, o...)
}

func (f *faultBed) dm(channel, text, threadTS string, o ...fakeslack.EventOptions) (ts, envelope, eventID string) {
	return f.event("message", alice, channel, text, threadTS, o...)
}

// replies returns the bot's messages in the thread rooted at root.
func (f *faultBed) replies(channel, root string) []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range f.slack.Posted() {
		if m.Channel == channel && m.ThreadTS == root && !m.Ephemeral && !m.Updated {
			out = append(out, m)
		}
	}
	return out
}

// answersTo returns the bot's messages that answer the post at ts, by the
// metadata each carries.
func (f *faultBed) answersTo(channel, ts string) []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range f.slack.Posted() {
		var md struct {
			Payload struct {
				PostTS string `json:"post_ts"`
			} `json:"event_payload"`
		}
		if m.Channel == channel && m.Metadata != nil && json.Unmarshal(m.Metadata, &md) == nil && md.Payload.PostTS == ts {
			out = append(out, m)
		}
	}
	return out
}

// waitFinished waits for the reaction that ends a post's turn, which is
// shown only once the turn is recorded.
func (f *faultBed) waitFinished(ts, reaction string, timeout time.Duration) {
	f.t.Helper()
	f.slack.WaitReaction("add", reaction, ts, timeout)
}

func (f *faultBed) turnRequests() []*fakellm.Request {
	var out []*fakellm.Request
	for _, r := range f.llm.Requests() {
		if strings.HasPrefix(r.System, "You are mnemo") {
			out = append(out, r)
		}
	}
	return out
}

// gate is a model script that holds the first turn's request until
// released, and answers with scripted.Memory otherwise.
type gate struct {
	once     sync.Once
	started  chan struct{}
	release  chan struct{}
	released sync.Once
}

// newGate returns a closed gate; hold arms it.
func newGate() *gate {
	return &gate{started: make(chan struct{}), release: make(chan struct{})}
}

// hold makes the gate hold the first turn's request until open, and opens
// it when the test ends, before the model server closes (cleanups run last
// registered first, so call it after starting the server).
func (g *gate) hold(t *testing.T) { t.Cleanup(g.open) }

func (g *gate) open() { g.released.Do(func() { close(g.release) }) }

func (g *gate) script(n int, req *fakellm.Request) fakellm.Reply {
	first := false
	if strings.HasPrefix(req.System, "You are mnemo") {
		g.once.Do(func() { first = true })
	}
	if first {
		close(g.started)
		<-g.release
	}
	return scripted.Memory()(n, req)
}

func (g *gate) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never asked")
	}
}

// A process killed (kill -9) while the model is thinking leaves its turn
// running; after a restart the turn is handed back and answered, once.
func TestFaultKillDuringSlowModelCallThenRestartRepliesOnce(t *testing.T) {
	t.Parallel()
	g := newGate()
	f := newFaultBed(t, g.script)
	g.hold(t)
	a := f.start("first")
	const ch = "C0KILL"
	ts, env, _ := f.mention(ch, "what is the deploy day?", "")
	f.slack.WaitAck(env, 10*time.Second)
	g.waitStarted(t)
	a.kill()

	b := f.start("restarted")
	f.waitFinished(ts, "white_check_mark", 90*time.Second)
	// Logged after the hand-back's commit: it can come after the answer.
	require.True(t, b.logs.WaitFor("a stopped process's turn was handed back to the inbox", 30*time.Second), "the hand-back is logged")
	// The thread is serialized: a second post's answer comes after the
	// first turn is entirely finished, so no second answer can follow.
	next, _, _ := f.mention(ch, "thanks", ts)
	f.waitFinished(next, "white_check_mark", 30*time.Second)
	require.Len(t, f.answersTo(ch, next), 1, "control: the query finds a post's answer")
	require.Len(t, f.answersTo(ch, ts), 1, "exactly one reply to the post whose process was killed")
	require.Len(t, f.replies(ch, ts), 2)
	var attempts int
	require.NoError(t, f.pool.QueryRow(context.Background(), "SELECT attempts FROM turns WHERE message_ts = $1", ts).Scan(&attempts))
	require.Equal(t, 2, attempts, "the killed attempt and the one that answered")
}

// A process killed after Slack took its reply but before it recorded it:
// the restart finds the reply by its metadata and does not post it again,
// nor ask the model again.
func TestFaultKillBetweenPostAndRecordDoesNotReplyTwice(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	a := f.start("first")
	const dm = "D0ALICE"
	f.slack.HoldPosts()
	ts, _, _ := f.dm(dm, "hello", "")
	require.Eventually(t, func() bool { return len(f.slack.Calls("chat.postMessage")) == 1 }, 30*time.Second, 10*time.Millisecond, "the reply reaches Slack")
	a.kill()
	f.slack.ReleasePosts() // Slack completes the post the dead process sent
	f.slack.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Channel == dm && m.ThreadTS == ts })
	require.Len(t, f.answersTo(dm, ts), 1)

	b := f.start("restarted")
	f.waitFinished(ts, "white_check_mark", 90*time.Second)
	require.True(t, b.logs.WaitFor("reply parts posted by an earlier attempt were found, not posted again", 30*time.Second), "the found reply is logged")
	require.Len(t, f.answersTo(dm, ts), 1, "no second reply")
	require.Len(t, f.slack.Calls("chat.postMessage"), 1, "nothing was posted again")
	require.Len(t, f.turnRequests(), 1, "the model was asked once: the decided answer was kept")
	var logged int
	require.NoError(t, f.pool.QueryRow(context.Background(), "SELECT count(*) FROM session_messages WHERE role = 'assistant' AND source_key = $1", sourceKey(dm, ts)).Scan(&logged))
	require.Equal(t, 1, logged, "the found reply is in the thread's log")
}

// PostgreSQL stops while posts arrive: their envelopes are not acked, Slack
// delivers them again, and once PostgreSQL is back every one is answered.
func TestFaultPostgresStoppedThenStartedLosesNoPost(t *testing.T) {
	t.Parallel()
	pg := newCluster(t)
	f := newFaultBed(t, scripted.Memory(), pg.url)
	f.slack.Redeliver(time.Second, 2*time.Second, 2*time.Second, 4*time.Second, 4*time.Second, 8*time.Second, 8*time.Second, 8*time.Second)
	a := f.start("only")
	const ch, dm = "C0PGDOWN", "D0ALICE"
	control, _, _ := f.dm(dm, "are you there?", "")
	f.waitFinished(control, "white_check_mark", 30*time.Second)
	code, body := a.get("/readyz")
	require.Equal(t, http.StatusOK, code, body)

	pg.stop(t)
	mention, menv, mid := f.mention(ch, "what is the deploy day?", "")
	direct, denv, did := f.dm(dm, "and the freeze?", "")
	f.slack.WaitDeliveries(mid, 2, 30*time.Second)
	f.slack.WaitDeliveries(did, 2, 30*time.Second)
	require.False(t, f.slack.Acked(menv), "not acked while the inbox can't take it")
	require.False(t, f.slack.Acked(denv))
	require.True(t, a.logs.WaitFor("inbox write failed; envelope not acked", 30*time.Second), "the failed write is logged")
	code, body = a.get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, body, "postgres")

	pg.start(t)
	f.waitFinished(mention, "white_check_mark", 90*time.Second)
	f.waitFinished(direct, "white_check_mark", 90*time.Second)
	require.Len(t, f.answersTo(ch, mention), 1)
	require.Len(t, f.answersTo(dm, direct), 1)
	require.Eventually(t, func() bool { code, _ := a.get("/readyz"); return code == http.StatusOK }, 30*time.Second, 100*time.Millisecond, "ready again")
}

// A NUL byte in a message no longer loses the post.
func TestFaultNulByteGetsAReply(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	r := f.start("only")
	const dm = "D0ALICE"
	ts, _, _ := f.dm(dm, "hello\u0000 there friend", "")
	f.waitFinished(ts, "white_check_mark", 30*time.Second)
	require.Len(t, f.answersTo(dm, ts), 1)
	var stored string
	require.NoError(t, f.pool.QueryRow(context.Background(), "SELECT text FROM session_messages WHERE ts = $1", ts).Scan(&stored))
	require.Equal(t, "hello there friend", stored, "stored without the NUL")

	_, metrics := r.get("/metrics")
	for _, want := range []string{`mnemo_events_acked_total{type="message"} 1`, `mnemo_turns_total{outcome="answered"} 1`, `mnemo_model_calls_total{outcome="ok"}`} {
		require.True(t, hasMetric(metrics, want), "no %s in:\n%s", want, mnemoMetrics(metrics))
	}
	// River records the job's completion just after the turn.
	require.Eventually(t, func() bool { _, m := r.get("/metrics"); return hasMetric(m, `mnemo_inbox_posts{state="running"} 0`) }, 10*time.Second, 50*time.Millisecond)
}

func hasMetric(body, line string) bool {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, line) {
			return true
		}
	}
	return false
}

// mnemoMetrics is mnemo's own lines of an exposition, for failure messages.
func mnemoMetrics(body string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "mnemo_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// SIGTERM while the model hangs: the process exits within its shutdown
// timeout, exit 0, telling nobody anything; the next start finishes the
// turn.
func TestFaultSIGTERMWithHungModelExitsInTimeAndTurnIsFinishedLater(t *testing.T) {
	t.Parallel()
	g := newGate()
	f := newFaultBed(t, g.script)
	g.hold(t)
	a := f.start("first", "MNEMO_SHUTDOWN_TIMEOUT", "2s")
	const ch = "C0TERM"
	ts, _, _ := f.mention(ch, "summarize the thread", "")
	g.waitStarted(t)
	code, took := a.term(30 * time.Second)
	require.Equal(t, 0, code, a.logs.String())
	require.Less(t, took, 15*time.Second, "the 2 s drain, then a bounded cancel; before, this took the model's 2-minute deadline")
	require.Contains(t, a.logs.String(), "turns still running at the shutdown deadline")
	require.Empty(t, f.replies(ch, ts), "nothing was told: the turn went back to the inbox")

	g.open()
	f.start("next")
	f.waitFinished(ts, "white_check_mark", 60*time.Second)
	require.Len(t, f.answersTo(ch, ts), 1)
}

// The model provider rate limits: a short Retry-After is waited out inside
// the turn; a long one is told at once, not after the turn's 2 minutes.
func TestFaultModelRateLimits(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	limited := map[string]bool{}
	f := newFaultBed(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if !strings.HasPrefix(req.System, "You are mnemo") {
			return scripted.Memory()(n, req)
		}
		tr := req.Transcript()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(tr, "short wait") && !limited["short"]:
			limited["short"] = true
			return fakellm.Reply{Status: 429, RetryAfter: "1"}
		case strings.Contains(tr, "long wait"):
			return fakellm.Reply{Status: 429, RetryAfter: "300"}
		}
		return scripted.Memory()(n, req)
	})
	f.start("only")
	const ch = "C0LIMIT"
	short, _, _ := f.mention(ch, "short wait please", "")
	long, _, _ := f.mention(ch, "long wait please", "")
	f.waitFinished(short, "white_check_mark", 30*time.Second)
	f.waitFinished(long, "warning", 30*time.Second)
	got := f.answersTo(ch, long)
	require.Len(t, got, 1)
	require.Contains(t, got[0].Text, "asked me to wait 5 minutes")
	require.NotContains(t, got[0].Text, "couldn't reach")
	require.Len(t, f.answersTo(ch, short), 1)
	retried := 0
	for _, r := range f.turnRequests() {
		if strings.Contains(r.Transcript(), "short wait") {
			retried++
		}
	}
	require.Equal(t, 2, retried, "the short wait was sat out and the call made again")
}

// Five 429s in a row on chat.postMessage are waited out within the retry
// budget; the reply is posted once.
func TestFaultFiveSlack429sInARow(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	r := f.start("only")
	f.slack.RateLimit("chat.postMessage", 5)
	const dm = "D0ALICE"
	ts, _, _ := f.dm(dm, "hello", "")
	f.waitFinished(ts, "white_check_mark", 60*time.Second)
	require.Len(t, f.answersTo(dm, ts), 1)
	require.Len(t, f.slack.Calls("chat.postMessage"), 6, "five 429s, then the reply")
	// Slack answered 429 five times, so no sixth line can come.
	limited := func(log string) int { return strings.Count(log, "rate limited by Slack; waiting") }
	r.logs.Await(30*time.Second, func(log string) bool { return limited(log) >= 5 })
	require.Equal(t, 5, limited(r.logs.String()))
}

// Two replicas, every envelope sent to both: each post is answered once,
// and a thread's posts in order.
func TestFaultTwoReplicasAnswerEachPostOnce(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	f.start("a")
	f.start("b")
	f.slack.WaitConnections(2, 30*time.Second)
	both := fakeslack.EventOptions{To: fakeslack.All}
	const ch, dm = "C0TWO", "D0ALICE"
	var posts []struct{ channel, ts string }
	for i := 0; i < 3; i++ {
		ts, _, _ := f.mention(ch, fmt.Sprintf("question %d", i), "", both)
		posts = append(posts, struct{ channel, ts string }{ch, ts})
	}
	root := posts[0].ts
	for i := 0; i < 2; i++ {
		ts, _, _ := f.mention(ch, fmt.Sprintf("follow-up %d", i), root, both)
		posts = append(posts, struct{ channel, ts string }{ch, ts})
	}
	ts, _, _ := f.dm(dm, "and a direct message", "", both)
	posts = append(posts, struct{ channel, ts string }{dm, ts})
	for _, p := range posts {
		f.waitFinished(p.ts, "white_check_mark", 60*time.Second)
	}
	// Barrier: one more post in each thread, sent to both replicas after the
	// others. A thread's posts are answered one at a time, in order, across
	// replicas, so once it is answered no earlier post of its thread can
	// still be answered a second time by the other replica.
	for _, th := range []struct{ channel, root string }{{ch, root}, {ch, posts[1].ts}, {ch, posts[2].ts}, {dm, posts[5].ts}} {
		var ts string
		if th.channel == dm {
			ts, _, _ = f.dm(dm, "one more", th.root, both)
		} else {
			ts, _, _ = f.mention(ch, "one more", th.root, both)
		}
		posts = append(posts, struct{ channel, ts string }{th.channel, ts})
		f.waitFinished(ts, "white_check_mark", 60*time.Second)
	}
	for _, p := range posts {
		require.Len(t, f.answersTo(p.channel, p.ts), 1, "post %s", p.ts)
	}
	require.Len(t, f.turnRequests(), len(posts), "one model turn per post")
	require.Len(t, f.replies(ch, root), 4, "the thread's four posts, one reply each")
}

// pgCluster is a throwaway PostgreSQL server of the test's own, which it
// may stop and start; the shared test server must never be stopped.
type pgCluster struct {
	bindir, dir, url string
	port             int
}

func newCluster(t *testing.T) *pgCluster {
	t.Helper()
	bindir := pgBindir()
	if bindir == "" {
		t.Fatal("PostgreSQL server binaries not found (the Debian package postgresql; make test installs it)")
	}
	dir, err := os.MkdirTemp("/var/tmp", "mnemo-fault-pg-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &pgCluster{bindir: bindir, dir: dir, port: freePort(t)}
	if os.Getuid() == 0 { // initdb and postgres refuse to run as root
		out, err := exec.Command("chown", "postgres", dir).CombinedOutput()
		require.NoError(t, err, "as root the cluster runs as the postgres user, which scripts/db.sh creates: %s", out)
	}
	c.run(t, "initdb", "-D", dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync")
	c.start(t)
	t.Cleanup(func() { _ = c.cmd("pg_ctl", "-D", dir, "-m", "immediate", "stop").Run() })
	admin := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	pool, err := pgxpool.New(context.Background(), admin)
	require.NoError(t, err)
	_, err = pool.Exec(context.Background(), "CREATE DATABASE mnemo")
	pool.Close()
	require.NoError(t, err)
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/mnemo?sslmode=disable", c.port)
	return c
}

func (c *pgCluster) cmd(name string, args ...string) *exec.Cmd {
	bin := filepath.Join(c.bindir, name)
	if os.Getuid() == 0 {
		quoted := make([]string, 0, len(args)+1)
		for _, a := range append([]string{bin}, args...) {
			quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
		return exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
	}
	return exec.Command(bin, args...)
}

func (c *pgCluster) run(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := c.cmd(name, args...).CombinedOutput()
	require.NoError(t, err, "%s: %s", name, out)
}

func (c *pgCluster) start(t *testing.T) {
	t.Helper()
	c.run(t, "pg_ctl", "-D", c.dir, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c max_connections=100", c.port, c.dir), "start")
}

// stop is a fast shutdown: sessions are ended and the server refuses
// connections, as in a restart or an outage.
func (c *pgCluster) stop(t *testing.T) {
	t.Helper()
	c.run(t, "pg_ctl", "-D", c.dir, "-m", "fast", "-w", "stop")
}

// pgBindir finds the server binaries as scripts/db.sh does.
func pgBindir() string {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); fileExists(filepath.Join(d, "initdb")) {
			return d
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	return filepath.Dir(matches[len(matches)-1])
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A channel's daily budget is counted in the database, across replicas:
// replica a answers the first post, and replica b, which made no model
// call of its own, refuses the second with the sentence naming the limit.
func TestFaultBudgetIsCountedAcrossReplicas(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, func(n int, req *fakellm.Request) fakellm.Reply {
		r := scripted.Memory()(n, req)
		r.InputTokens, r.OutputTokens = 40, 5
		return r
	})
	f.env["MNEMO_BUDGET_CHANNEL_DAILY_TOKENS"] = "45"
	const ch = "C0BUDGET"
	a := f.start("a")
	first, _, _ := f.mention(ch, "hello there", "")
	f.waitFinished(first, "white_check_mark", 60*time.Second)
	require.Len(t, f.turnRequests(), 1)

	b := f.start("b")
	code, _ := a.term(20 * time.Second)
	require.Equal(t, 0, code)
	second, _, _ := f.mention(ch, "hello again", "")
	f.waitFinished(second, "warning", 60*time.Second)
	got := f.replies(ch, second)
	require.Len(t, got, 1)
	require.Contains(t, got[0].Text, "this channel has reached its daily limit of 45 tokens")
	require.Contains(t, got[0].Text, "It resets at midnight UTC")
	require.Len(t, f.turnRequests(), 1, "no model call past the budget")
	require.True(t, b.logs.WaitFor(`"limit":"channel_daily_tokens"`, 30*time.Second), "replica b, not a, stopped the turn")
	_, body := b.get("/metrics")
	require.True(t, hasMetric(body, `mnemo_budget_exceeded_total{limit="channel_daily_tokens"} 1`), mnemoMetrics(body))
}
