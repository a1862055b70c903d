package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// ServeOptions is one run of the real `mnemo serve` against the fake Slack
// and a fake model.
type ServeOptions struct {
	Mnemo       string // the mnemo binary
	DatabaseURL string // a migrated database; its corpus, if any, is what recall searches
	Spec        corpus.Spec
	Warmup      int // turns before anything is timed
	Turns       int // turns timed one at a time, with a model that answers at once
	// QuietTurns are timed after them, each sent once the bot is idle:
	// the previous turn's passive learning job done too.
	QuietTurns int
	// Concurrent mentions are sent at once, with a model that takes
	// ModelDelay to answer each; 0 skips that part.
	Concurrent int
	ModelDelay time.Duration
	MaxTurns   int // MNEMO_MAX_TURNS
}

// ServeResult is what a serve run measured.
type ServeResult struct {
	// Overhead is a turn's time without the model: from the event's
	// envelope written to the socket to the model request taken, plus from
	// the model's answer to the Slack call that posted it.
	Overhead Latency
	// In and Out are Overhead's two halves.
	In, Out Latency
	// Quiet is the overhead of the QuietTurns.
	Quiet Latency
	// IdleRSS is the process's resident set after the warm-up turns and a
	// quiet second; PeakRSS the most sampled (every 5 ms) during the
	// concurrent mentions; HWM the kernel's high-water mark at the end.
	IdleRSS, PeakRSS, HWM int64
	// IdleCPU is the share of one CPU the process used while it had
	// nothing to do (its polls and pings), over IdleFor.
	IdleCPU float64
	IdleFor time.Duration
	// Burst is the time from the first concurrent mention sent to the last
	// reply posted; Predicted is Concurrent ÷ MaxTurns × ModelDelay.
	Burst, Predicted time.Duration
	// Replies counts the concurrent mentions answered exactly once;
	// Doubled, those answered more than once.
	Replies, Doubled int
}

// tagRe finds the bench's tag in a mention, which the fake model echoes in
// its answer, so each answer is matched to its mention.
var tagRe = regexp.MustCompile(`\[b(\d+)\]`)

func answerFor(tag int) string { return fmt.Sprintf("bench answer b%d.", tag) }

// serveModel is the fake model of a serve run: turns are answered with
// their tag after delay; everything else (learning, review) by the
// scripted model after the same delay.
type serveModel struct {
	mu    sync.Mutex
	delay time.Duration
	in    map[int]time.Time // tag → the turn's model request taken
	out   map[int]time.Time // tag → its answer handed to the server
	other fakellm.Script
}

func (m *serveModel) script(n int, req *fakellm.Request) fakellm.Reply {
	took := time.Now()
	m.mu.Lock()
	delay := m.delay
	m.mu.Unlock()
	time.Sleep(delay)
	if !strings.HasPrefix(req.System, "You are mnemo") {
		return m.other(n, req)
	}
	// The post being answered ends the request: the last tag of the last
	// message that has one (earlier posts, of this thread or of the DM,
	// come before it).
	tag := -1
	for i := len(req.Messages) - 1; i >= 0 && tag < 0; i-- {
		if all := tagRe.FindAllStringSubmatch(req.Messages[i].Text, -1); len(all) > 0 {
			tag, _ = strconv.Atoi(all[len(all)-1][1])
		}
	}
	if tag < 0 {
		return fakellm.Reply{Text: "no tag"}
	}
	m.mu.Lock()
	if _, ok := m.in[tag]; !ok {
		m.in[tag] = took
	}
	m.out[tag] = time.Now()
	m.mu.Unlock()
	return fakellm.Reply{Text: answerFor(tag)}
}

func (m *serveModel) times(tag int) (in, out time.Time, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, ok1 := m.in[tag]
	out, ok2 := m.out[tag]
	return in, out, ok1 && ok2
}

// MeasureServe starts `mnemo serve` over o.DatabaseURL, drives it through
// the fake Slack with mentions and DMs the corpus's people send in its
// places, and measures turn overhead, the concurrent burst and RSS.
func MeasureServe(ctx context.Context, o ServeOptions, logs io.Writer) (ServeResult, error) {
	run := &harness.Run{}
	defer run.Close()
	var res ServeResult
	var err error
	if !run.Do(func() { res, err = serveRun(ctx, run, o, logs) }) {
		return res, fmt.Errorf("serve run: %s", strings.Join(run.Failures(), "; "))
	}
	return res, err
}

func serveRun(ctx context.Context, run *harness.Run, o ServeOptions, logs io.Writer) (ServeResult, error) {
	var res ServeResult
	model := &serveModel{in: map[int]time.Time{}, out: map[int]time.Time{}, other: scripted.Memory()}
	llm := fakellm.New(run, model.script)
	slack := fakeslack.New(run)
	for i := range corpus.People {
		p := corpus.PersonAt(i)
		slack.AddUser(fakeslack.User{ID: p.ID, Name: p.Name})
	}
	u, err := url.Parse(o.DatabaseURL)
	if err != nil {
		return res, fmt.Errorf("database url: %w", err)
	}
	q := u.Query()
	// Production's default, which the dev cluster turns off.
	q.Set("synchronous_commit", "on")
	u.RawQuery = q.Encode()
	proc, err := startServe(o.Mnemo, map[string]string{
		"DATABASE_URL":       u.String(),
		"SLACK_BOT_TOKEN":    "xoxb-bench-bot-token",
		"SLACK_APP_TOKEN":    "xapp-1-bench-app-token",
		"SLACK_API_URL":      slack.URL,
		"MNEMO_LLM_PROVIDER": "anthropic",
		"MNEMO_LLM_BASE_URL": llm.URL,
		"MNEMO_LLM_API_KEY":  "sk-ant-bench-key-0123456789abcdef",
		"MNEMO_MODEL":        "claude-bench",
		"MNEMO_LOG_LEVEL":    "info",
		"MNEMO_HTTP_ADDR":    "127.0.0.1:0",
		"MNEMO_MAX_TURNS":    strconv.Itoa(o.MaxTurns),
	}, logs)
	if err != nil {
		return res, err
	}
	defer proc.stop()
	slack.WaitConnected(60 * time.Second)

	pool, err := pgxpool.New(ctx, o.DatabaseURL)
	if err != nil {
		return res, fmt.Errorf("database: %w", err)
	}
	defer pool.Close()
	queries := o.Spec.Queries(o.Warmup + o.Turns + o.QuietTurns + o.Concurrent)
	next := 0
	// turn sends the next question in its corpus thread and waits until
	// its turn is done (the reaction that ends it), so turns never overlap.
	// quiet also waits for the work the turn left behind (its passive
	// learning job), so the next turn finds the bot idle.
	turn := func(quiet bool) (in, out time.Duration) {
		tag := next
		q := queries[next]
		next++
		env, ts := send(slack, q, tag, true)
		reply := waitReply(slack, tag, 60*time.Second)
		slack.WaitReaction("add", "white_check_mark", ts, 60*time.Second)
		if quiet {
			if err := backgroundDone(ctx, pool, 60*time.Second); err != nil {
				run.Fatalf("turn b%d: %v", tag, err)
			}
		}
		sent, _ := slack.SentAt(env)
		asked, answered, ok := model.times(tag)
		if !ok {
			run.Fatalf("turn b%d: no model request", tag)
		}
		return asked.Sub(sent), reply.Sub(answered)
	}
	for range o.Warmup {
		turn(false)
	}
	if err := sleepCtx(ctx, time.Second); err != nil {
		return res, err
	}
	if res.IdleRSS, err = proc.rss("VmRSS"); err != nil {
		return res, err
	}
	res.IdleFor = 5 * time.Second
	before, err := proc.cpu()
	if err != nil {
		return res, err
	}
	if err := sleepCtx(ctx, res.IdleFor); err != nil {
		return res, err
	}
	after, err := proc.cpu()
	if err != nil {
		return res, err
	}
	res.IdleCPU = float64(after-before) / float64(res.IdleFor)
	var total, ins, outs []time.Duration
	for range o.Turns {
		in, out := turn(false)
		ins, outs, total = append(ins, in), append(outs, out), append(total, in+out)
	}
	res.Overhead, res.In, res.Out = latencyOf(total), latencyOf(ins), latencyOf(outs)
	if err := backgroundDone(ctx, pool, time.Minute); err != nil {
		return res, err
	}
	var quiet []time.Duration
	for range o.QuietTurns {
		in, out := turn(true)
		quiet = append(quiet, in+out)
	}
	res.Quiet = latencyOf(quiet)

	if o.Concurrent > 0 {
		model.mu.Lock()
		model.delay = o.ModelDelay
		model.mu.Unlock()
		stop := make(chan struct{})
		peak := make(chan int64)
		go func() {
			var m int64
			tk := time.NewTicker(5 * time.Millisecond)
			defer tk.Stop()
			for {
				if v, err := proc.rss("VmRSS"); err == nil && v > m {
					m = v
				}
				select {
				case <-stop:
					peak <- m
					return
				case <-tk.C:
				}
			}
		}()
		first := next
		var posts []string
		start := time.Now()
		for range o.Concurrent {
			// A new thread each: a thread's turns run one at a time.
			_, ts := send(slack, queries[next], next, false)
			posts = append(posts, ts)
			next++
		}
		var last time.Time
		for tag := first; tag < next; tag++ {
			if at := waitReply(slack, tag, 2*time.Minute); at.After(last) {
				last = at
			}
		}
		for _, ts := range posts {
			slack.WaitReaction("add", "white_check_mark", ts, 2*time.Minute)
		}
		close(stop)
		res.PeakRSS = <-peak
		res.Burst = last.Sub(start)
		res.Predicted = time.Duration(float64(o.Concurrent) / float64(o.MaxTurns) * float64(o.ModelDelay))
		// Every turn is done, so every reply is posted: count them.
		for tag := first; tag < next; tag++ {
			switch n := replies(slack, tag); {
			case n == 1:
				res.Replies++
			case n > 1:
				res.Doubled++
			}
		}
	}
	if res.HWM, err = proc.rss("VmHWM"); err != nil {
		return res, err
	}
	return res, nil
}

// backgroundDone waits until no job but turns is waiting or running: the
// learning jobs finished turns leave.
func backgroundDone(ctx context.Context, pool *pgxpool.Pool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE queue <> 'turns' AND state IN ('pending', 'available', 'running')").Scan(&n); err != nil {
			return fmt.Errorf("background jobs: %w", err)
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d background jobs still waiting or running after %s", n, timeout)
		}
		if err := sleepCtx(ctx, 2*time.Millisecond); err != nil {
			return err
		}
	}
}

var benchTS struct {
	mu sync.Mutex
	n  int
}

// newTS returns a fresh Slack ts, later than every corpus thread's root.
func newTS() string {
	benchTS.mu.Lock()
	defer benchTS.mu.Unlock()
	benchTS.n++
	return fmt.Sprintf("%d.%06d", 1800000000+benchTS.n, 100)
}

// send posts q's question as q's asker: an app_mention in a channel, a
// message in a DM. inThread puts it in q's corpus thread; otherwise it
// starts a thread. It returns the envelope id and the post's ts.
func send(s *fakeslack.Server, q corpus.Query, tag int, inThread bool) (envelope, ts string) {
	ts = newTS()
	text := fmt.Sprintf("%s [b%d]", q.Message, tag)
	ev := map[string]any{"user": q.Actor.ID, "ts": ts, "channel": q.Place.Channel}
	if strings.HasPrefix(q.Place.Channel, "D") {
		ev["type"], ev["channel_type"], ev["text"] = "message", "im", text
	} else {
		ev["type"], ev["text"] = "app_mention", "<@"+fakeslack.BotUserID+"> "+text
	}
	if inThread {
		parts := strings.Split(q.Place.SourceKey, ":")
		ev["thread_ts"] = parts[len(parts)-1]
	}
	return s.SendEvent(ev, fakeslack.EventOptions{Team: q.Actor.Team}), ts
}

// waitReply waits for the answer to tag and returns when the fake took the
// call that first carried all of it.
func waitReply(s *fakeslack.Server, tag int, timeout time.Duration) time.Time {
	want := answerFor(tag)
	got := s.WaitPosted(1, timeout, func(m fakeslack.Message) bool { return strings.Contains(m.Text, want) })
	at := got[0].At
	for _, m := range got[1:] {
		if m.At.Before(at) {
			at = m.At
		}
	}
	return at
}

// replies counts the messages (by channel and ts) that carry tag's answer.
func replies(s *fakeslack.Server, tag int) int {
	want := answerFor(tag)
	seen := map[string]bool{}
	for _, m := range s.Posted() {
		if strings.Contains(m.Text, want) {
			seen[m.Channel+"/"+m.TS] = true
		}
	}
	return len(seen)
}

// process is a running `mnemo serve`.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startServe(mnemo string, env map[string]string, logs io.Writer) (*process, error) {
	cmd := exec.Command(mnemo, "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, logs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", mnemo, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// rss reads a size field (VmRSS, VmHWM) of the process's status, in bytes.
func (p *process) rss(field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("read the process's status: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in the process's status", field)
}

// cpu is the CPU time the process has used, user and system, from
// /proc/PID/stat (in clock ticks of 1/100 s, Linux's USER_HZ).
func (p *process) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("read the process's stat: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after it. utime and stime are fields 14 and 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat: %q", b)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// errNoBinary is returned when the mnemo binary is missing.
var errNoBinary = errors.New("the mnemo binary is missing: run make build, or pass --mnemo")
