package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// SoakOptions is one soak run of the real `mnemo serve`.
type SoakOptions struct {
	Mnemo    string        // the mnemo binary
	Duration time.Duration // how long posts are sent
	Every    time.Duration // one post per Every
	Logf     func(format string, args ...any)
}

// Sample is the process's resources at one moment.
type Sample struct {
	At         time.Duration // since the soak started
	RSS        int64         // bytes
	Goroutines int
	OpenFDs    int // the process's open files and sockets
	DBConns    int // its connections, as PostgreSQL counts them
}

// SoakReport is what a soak run counted and measured.
type SoakReport struct {
	Duration                    time.Duration
	Sent                        map[string]int // by kind
	Posts, Once, Twice, Lost    int            // events: answered once, more than once, never (neither answer nor notice)
	Notices                     int            // posts answered with the failure sentence
	Commands, CommandsAnswered  int            // slash commands sent, answered once
	CommandsTwice, CommandsLost int
	Start, Middle, End          Sample
	Series                      []Sample // every sample of the process that ran last
	P50, P95                    time.Duration
	Killed, PostgresRestarted   time.Duration // when, since the start
	Growth                      []string      // growth that did not level off
	DrainTook                   time.Duration
}

// Failed says why the soak failed, or "".
func (r SoakReport) Failed() string {
	var why []string
	if r.Lost > 0 || r.CommandsLost > 0 {
		why = append(why, fmt.Sprintf("%d posts and %d slash commands lost", r.Lost, r.CommandsLost))
	}
	if r.Twice > 0 || r.CommandsTwice > 0 {
		why = append(why, fmt.Sprintf("%d posts and %d slash commands answered twice", r.Twice, r.CommandsTwice))
	}
	why = append(why, r.Growth...)
	return strings.Join(why, "; ")
}

// String is the report, as make soak prints it.
func (r SoakReport) String() string {
	var b strings.Builder
	kinds := make([]string, 0, len(r.Sent))
	for k := range r.Sent {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var sent []string
	for _, k := range kinds {
		sent = append(sent, fmt.Sprintf("%s %d", k, r.Sent[k]))
	}
	fmt.Fprintf(&b, "mnemo soak: %s of traffic; kill -9 at %s, PostgreSQL restart at %s; drained in %s\n", r.Duration, r.Killed.Round(time.Second), r.PostgresRestarted.Round(time.Second), r.DrainTook.Round(time.Second))
	fmt.Fprintf(&b, "sent: %s\n", strings.Join(sent, ", "))
	fmt.Fprintf(&b, "posts (mentions, follow-ups, DMs, remembers): %d sent, %d answered once, %d answered twice or more, %d lost (%d of the answers were the failure notice)\n", r.Posts, r.Once, r.Twice, r.Lost, r.Notices)
	fmt.Fprintf(&b, "slash commands: %d sent, %d answered once, %d answered twice or more, %d lost\n", r.Commands, r.CommandsAnswered, r.CommandsTwice, r.CommandsLost)
	fmt.Fprintf(&b, "turn latency (event sent → first answer posted): p50 %s, p95 %s\n", ms(r.P50), ms(r.P95))
	fmt.Fprintf(&b, "%-8s %10s %11s %9s %9s\n", "", "RSS", "goroutines", "open fds", "db conns")
	for _, s := range []struct {
		name string
		s    Sample
	}{{"start", r.Start}, {"middle", r.Middle}, {"end", r.End}} {
		fmt.Fprintf(&b, "%-8s %10s %11d %9d %9d   (at %s)\n", s.name, mb(s.s.RSS), s.s.Goroutines, s.s.OpenFDs, s.s.DBConns, s.s.At.Round(time.Second))
	}
	if f := r.Failed(); f != "" {
		fmt.Fprintf(&b, "FAIL: %s\n", f)
	} else {
		b.WriteString("PASS: nothing lost, nothing doubled, resources level\n")
	}
	return b.String()
}

// Soak runs mnemo serve against the fakes and a PostgreSQL cluster of its
// own (which it restarts partway; the shared one must never be stopped),
// sending a steady mix of posts and slash commands for o.Duration, with a
// kill -9 of mnemo at a third and a PostgreSQL restart at two thirds.
func Soak(ctx context.Context, o SoakOptions, logs io.Writer) (SoakReport, error) {
	run := &harness.Run{}
	defer run.Close()
	var rep SoakReport
	var err error
	if !run.Do(func() { rep, err = soak(ctx, run, o, logs) }) {
		return rep, fmt.Errorf("soak: %s", strings.Join(run.Failures(), "; "))
	}
	return rep, err
}

func soak(ctx context.Context, run *harness.Run, o SoakOptions, logs io.Writer) (SoakReport, error) {
	rep := SoakReport{Duration: o.Duration, Sent: map[string]int{}}
	if o.Every <= 0 {
		o.Every = 500 * time.Millisecond
	}
	pg, err := newSoakCluster()
	if err != nil {
		return rep, err
	}
	defer pg.close()
	slack := fakeslack.New(run)
	model := fakellm.New(run, scripted.Memory())
	const alice, bob = "U0ALICE", "U0BOB"
	slack.AddUser(fakeslack.User{ID: alice, Name: "Alice"})
	slack.AddUser(fakeslack.User{ID: bob, Name: "Bob"})
	// Slack delivers an unacked event again, as it does for real.
	slack.Redeliver(time.Second, 2*time.Second, 4*time.Second, 8*time.Second, 16*time.Second, 30*time.Second, 60*time.Second)
	env := map[string]string{
		"DATABASE_URL":           pg.url,
		"SLACK_BOT_TOKEN":        "xoxb-soak-bot-token",
		"SLACK_APP_TOKEN":        "xapp-1-soak-app-token",
		"SLACK_API_URL":          slack.URL,
		"MNEMO_LLM_PROVIDER":     "anthropic",
		"MNEMO_LLM_BASE_URL":     model.URL,
		"MNEMO_LLM_API_KEY":      "sk-ant-soak-key-0123456789abcdef",
		"MNEMO_MODEL":            "claude-soak",
		"MNEMO_LOG_LEVEL":        "info",
		"MNEMO_HTTP_ADDR":        "127.0.0.1:0",
		"MNEMO_SHUTDOWN_TIMEOUT": "10s",
	}
	var mu sync.Mutex
	var proc *soakProcess
	start := func() error {
		p, err := startSoakProcess(o.Mnemo, env, logs)
		if err != nil {
			return err
		}
		mu.Lock()
		proc = p
		mu.Unlock()
		slack.WaitConnected(60 * time.Second)
		return nil
	}
	if err := start(); err != nil {
		return rep, err
	}
	defer func() {
		mu.Lock()
		p := proc
		mu.Unlock()
		p.stop()
	}()

	began := time.Now()
	sample := func() Sample {
		mu.Lock()
		p := proc
		mu.Unlock()
		s := Sample{At: time.Since(began)}
		s.RSS, _ = p.rss("VmRSS")
		s.Goroutines, s.OpenFDs = p.metrics()
		c, err := pgx.Connect(ctx, pg.admin)
		if err == nil {
			_ = c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = 'mnemo' AND pid <> pg_backend_pid()").Scan(&s.DBConns)
			c.Close(ctx)
		}
		return s
	}
	// Samples every 10 s; the process that runs last (after the kill) is
	// the one whose growth is judged.
	var series []Sample
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	// The sampler is stopped and joined on every way out, an error's too.
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { close(stopSampling); <-sampled }) }
	defer stop()
	go func() {
		defer close(sampled)
		tk := time.NewTicker(10 * time.Second)
		defer tk.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tk.C:
			}
			s := sample()
			mu.Lock()
			series = append(series, s)
			mu.Unlock()
		}
	}()

	type post struct {
		kind, channel, ts, envelope string
	}
	var posts []post
	var commands []string
	threads := []post{} // roots a follow-up may go to
	send := func(kind string, n int) {
		ts := slack.NextTS()
		text := fmt.Sprintf("what did we decide about item %d?", n)
		ev := map[string]any{"user": alice, "ts": ts, "event_ts": ts}
		switch kind {
		case "mention":
			ch := fmt.Sprintf("C0SOAK%d", n%7)
			ev["type"], ev["channel"], ev["text"] = "app_mention", ch, "<@"+fakeslack.BotUserID+"> "+text
		case "follow-up":
			if len(threads) == 0 {
				kind = "mention"
				ch := fmt.Sprintf("C0SOAK%d", n%7)
				ev["type"], ev["channel"], ev["text"] = "app_mention", ch, "<@"+fakeslack.BotUserID+"> "+text
				break
			}
			root := threads[n%len(threads)]
			ev["type"], ev["channel"], ev["text"], ev["thread_ts"] = "app_mention", root.channel, "<@"+fakeslack.BotUserID+"> and what about "+strconv.Itoa(n)+"?", root.ts
		case "dm":
			ev["type"], ev["channel"], ev["channel_type"], ev["user"], ev["text"] = "message", "D0SOAKBOB", "im", bob, text
		case "remember":
			ev["type"], ev["channel"], ev["text"] = "app_mention", "C0SOAKMEM", fmt.Sprintf("<@%s> remember that the soak fact number %d is %d", fakeslack.BotUserID, n, n*7)
		}
		envID := slack.SendEvent(ev)
		p := post{kind: kind, channel: ev["channel"].(string), ts: ts, envelope: envID}
		posts = append(posts, p)
		if kind == "mention" && len(threads) < 20 {
			threads = append(threads, p)
		}
		rep.Sent[kind]++
	}
	kinds := []string{"mention", "follow-up", "dm", "command", "remember"}
	killAt, pgAt := o.Duration/3, 2*o.Duration/3
	killed, restarted := false, false
	var pgDown time.Time
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
	for n := 0; time.Since(began) < o.Duration; n++ {
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-tick.C:
		}
		now := time.Since(began)
		if rep.Start.At == 0 && now >= 30*time.Second {
			rep.Start = sample()
		}
		if !killed && now >= killAt {
			// Every envelope sent is acked first (the fake's redelivery
			// stops at a closed socket, where Slack's goes on): what the
			// kill cuts is turns in flight.
			for _, p := range posts {
				slack.WaitAck(p.envelope, 2*time.Minute)
			}
			mu.Lock()
			p := proc
			mu.Unlock()
			o.Logf("soak: kill -9 at %s, %d turns sent", now.Round(time.Second), len(posts))
			p.kill()
			rep.Killed = time.Since(began)
			if err := start(); err != nil {
				return rep, err
			}
			killed = true
			mu.Lock()
			series = nil // judge the process that runs from here
			mu.Unlock()
			continue
		}
		if rep.Middle.At == 0 && now >= o.Duration/2 {
			rep.Middle = sample()
		}
		if !restarted && pgDown.IsZero() && now >= pgAt {
			o.Logf("soak: PostgreSQL stopped at %s", now.Round(time.Second))
			if err := pg.stop(); err != nil {
				return rep, err
			}
			pgDown = time.Now()
			rep.PostgresRestarted = time.Since(began)
		}
		if !pgDown.IsZero() && time.Since(pgDown) >= 3*time.Second {
			if err := pg.start(); err != nil {
				return rep, err
			}
			o.Logf("soak: PostgreSQL started again at %s", time.Since(began).Round(time.Second))
			pgDown, restarted = time.Time{}, true
		}
		kind := kinds[n%len(kinds)]
		if kind == "command" {
			if !pgDown.IsZero() {
				continue // Slack does not retry a slash command; the person sees an error and asks again
			}
			commands = append(commands, slack.SendSlashCommand("/mnemo", "list", alice, "C0SOAK1"))
			rep.Sent["command"]++
			continue
		}
		send(kind, n)
	}
	rep.End = sample()
	o.Logf("soak: traffic done at %s; waiting for every post to be answered", time.Since(began).Round(time.Second))

	// Drain: every post answered or told it failed, every command answered.
	answers := func() (replies, notices map[string]int) {
		replies, notices = map[string]int{}, map[string]int{}
		seen := map[string]bool{}
		for _, m := range slack.Posted() {
			if m.Ephemeral || m.Updated || m.Response || len(m.Metadata) == 0 {
				continue
			}
			var md struct {
				EventType    string `json:"event_type"`
				EventPayload struct {
					PostTS string  `json:"post_ts"`
					Part   float64 `json:"part"`
				} `json:"event_payload"`
			}
			if json.Unmarshal(m.Metadata, &md) != nil || md.EventPayload.Part != 0 || seen[m.Channel+"/"+m.TS] {
				continue
			}
			seen[m.Channel+"/"+m.TS] = true
			switch md.EventType {
			case "mnemo_reply":
				replies[md.EventPayload.PostTS]++
			case "mnemo_notice":
				notices[md.EventPayload.PostTS]++
			}
		}
		return replies, notices
	}
	cmdAnswers := func() map[string]int {
		out := map[string]int{}
		for _, m := range slack.Posted() {
			if m.Response && m.Envelope != "" {
				out[m.Envelope]++
			}
		}
		return out
	}
	drainStart := time.Now()
	for {
		r, nt := answers()
		c := cmdAnswers()
		pending := 0
		for _, p := range posts {
			if r[p.ts]+nt[p.ts] == 0 {
				pending++
			}
		}
		for _, e := range commands {
			if c[e] == 0 {
				pending++
			}
		}
		if pending == 0 || time.Since(drainStart) > 3*time.Minute {
			break
		}
		if err := sleepCtx(ctx, time.Second); err != nil {
			return rep, err
		}
	}
	// Anything posted twice lands within moments of the first; a quiet
	// spell after the drain lets it show.
	if err := sleepCtx(ctx, 10*time.Second); err != nil {
		return rep, err
	}
	rep.DrainTook = time.Since(drainStart)
	stop()

	r, nt := answers()
	var lat []time.Duration
	first := map[string]time.Time{}
	for _, m := range slack.Posted() {
		var md struct {
			EventPayload struct {
				PostTS string `json:"post_ts"`
			} `json:"event_payload"`
		}
		if len(m.Metadata) > 0 && json.Unmarshal(m.Metadata, &md) == nil && md.EventPayload.PostTS != "" {
			if at, ok := first[md.EventPayload.PostTS]; !ok || m.At.Before(at) {
				first[md.EventPayload.PostTS] = m.At
			}
		}
	}
	rep.Posts = len(posts)
	for _, p := range posts {
		switch n := r[p.ts] + nt[p.ts]; {
		case n == 0:
			rep.Lost++
			o.Logf("soak: lost: %s %s/%s", p.kind, p.channel, p.ts)
		case n == 1:
			rep.Once++
		default:
			rep.Twice++
			o.Logf("soak: answered %d times: %s %s/%s", n, p.kind, p.channel, p.ts)
		}
		if nt[p.ts] > 0 {
			rep.Notices++
		}
		if sent, ok := slack.SentAt(p.envelope); ok {
			if at, ok := first[p.ts]; ok {
				lat = append(lat, at.Sub(sent))
			}
		}
	}
	l := latencyOf(lat)
	rep.P50, rep.P95 = l.P50, l.P95
	c := cmdAnswers()
	rep.Commands = len(commands)
	for _, e := range commands {
		switch c[e] {
		case 0:
			rep.CommandsLost++
		case 1:
			rep.CommandsAnswered++
		default:
			rep.CommandsTwice++
		}
	}
	mu.Lock()
	rep.Series = series
	mu.Unlock()
	rep.Growth = growth(rep.Series)
	return rep, nil
}

// growth names each resource still growing at the end: one whose peak in
// the last third of the samples exceeds its peak in the middle third by
// more than noise and a tenth. The first third is warm-up (pools, caches).
func growth(series []Sample) []string {
	if len(series) < 6 {
		return []string{fmt.Sprintf("only %d samples of the last process: too few to judge growth (run longer)", len(series))}
	}
	third := len(series) / 3
	mid, last := series[third:2*third], series[2*third:]
	peak := func(ss []Sample, f func(Sample) float64) float64 {
		m := 0.0
		for _, s := range ss {
			m = max(m, f(s))
		}
		return m
	}
	var out []string
	for _, r := range []struct {
		name  string
		noise float64
		f     func(Sample) float64
	}{
		{"RSS (MB)", 8, func(s Sample) float64 { return float64(s.RSS) / (1 << 20) }},
		{"goroutines", 20, func(s Sample) float64 { return float64(s.Goroutines) }},
		{"open fds", 10, func(s Sample) float64 { return float64(s.OpenFDs) }},
		{"db conns", 5, func(s Sample) float64 { return float64(s.DBConns) }},
	} {
		m, l := peak(mid, r.f), peak(last, r.f)
		if l > m*1.1+r.noise {
			out = append(out, fmt.Sprintf("%s still growing: peak %.0f in the middle third of the run, %.0f in the last", r.name, m, l))
		}
	}
	return out
}

// soakProcess is a running `mnemo serve`, whose operator address it reads
// from its log.
type soakProcess struct {
	*process
	mu   sync.Mutex
	addr string
}

func startSoakProcess(mnemo string, env map[string]string, logs io.Writer) (*soakProcess, error) {
	pr, pw := io.Pipe()
	p, err := startServe(mnemo, env, io.MultiWriter(logs, pw))
	if err != nil {
		return nil, err
	}
	sp := &soakProcess{process: p}
	found := make(chan struct{})
	go func() {
		defer io.Copy(io.Discard, pr) //nolint:errcheck // keep the pipe flowing
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Message string `json:"message"`
				HTTP    string `json:"http"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "mnemo serving" {
				sp.mu.Lock()
				sp.addr = line.HTTP
				sp.mu.Unlock()
				close(found)
				break
			}
		}
	}()
	go func() { <-p.done; pw.Close() }()
	select {
	case <-found:
		return sp, nil
	case <-p.done:
		return nil, fmt.Errorf("mnemo serve exited at start")
	case <-time.After(60 * time.Second):
		p.stop() // not left running behind the bench
		return nil, fmt.Errorf("mnemo serve never said it was serving")
	}
}

func (p *soakProcess) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// metrics reads go_goroutines and process_open_fds from /metrics.
func (p *soakProcess) metrics() (goroutines, fds int) {
	p.mu.Lock()
	addr := p.addr
	p.mu.Unlock()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return -1, -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "go_goroutines":
			goroutines = int(v)
		case "process_open_fds":
			fds = int(v)
		}
	}
	return goroutines, fds
}

// soakCluster is the soak's own PostgreSQL server, which it restarts.
type soakCluster struct {
	bindir, dir, url, admin string
	port                    int
}

func newSoakCluster() (*soakCluster, error) {
	bindir := pgBindir()
	if bindir == "" {
		return nil, fmt.Errorf("PostgreSQL server binaries not found (the Debian package postgresql)")
	}
	dir, err := os.MkdirTemp("/var/tmp", "mnemo-soak-pg-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c := &soakCluster{bindir: bindir, dir: dir, port: port}
	if os.Getuid() == 0 { // initdb and postgres refuse to run as root
		if out, err := exec.Command("chown", "postgres", dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown: %v: %s", err, out)
		}
	}
	if err := c.run("initdb", "-D", dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"); err != nil {
		return nil, err
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	c.admin = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	if err := adminExec(context.Background(), c.admin, "CREATE DATABASE mnemo"); err != nil {
		return nil, err
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/mnemo?sslmode=disable", port)
	return c, nil
}

func (c *soakCluster) cmd(name string, args ...string) *exec.Cmd {
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

func (c *soakCluster) run(name string, args ...string) error {
	if out, err := c.cmd(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return nil
}

func (c *soakCluster) start() error {
	return c.run("pg_ctl", "-D", c.dir, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c max_connections=100", c.port, c.dir), "start")
}

// stop is a fast shutdown: sessions end and connections are refused, as in
// a restart or an outage.
func (c *soakCluster) stop() error { return c.run("pg_ctl", "-D", c.dir, "-m", "fast", "-w", "stop") }

func (c *soakCluster) close() {
	_ = c.cmd("pg_ctl", "-D", c.dir, "-m", "immediate", "stop").Run()
	os.RemoveAll(c.dir)
}

// pgBindir finds the server binaries as scripts/db.sh does.
func pgBindir() string {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); d != "" {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d
			}
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	return filepath.Dir(matches[len(matches)-1])
}
