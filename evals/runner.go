package evals

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/fakellm"
	"github.com/mnemo-bot/mnemo/internal/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/scripted"
	"github.com/mnemo-bot/mnemo/internal/tb"
	"github.com/mnemo-bot/mnemo/internal/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// StartFunc starts the bot (the real `mnemo serve` wiring) with env, writing
// its logs to logs, and returns a func that stops it.
type StartFunc func(ctx context.Context, env map[string]string, logs io.Writer) (stop func())

// Options configures a run.
type Options struct {
	Start   StartFunc
	Pattern *regexp.Regexp
	// Live runs against the configured provider and grades with a judge model.
	Live  bool
	Model LiveModel
	Out   io.Writer
}

// LiveModel is the provider configuration for --live.
type LiveModel struct {
	Provider, BaseURL, APIKey, Model, JudgeModel string
}

// Result is one scenario's outcome.
type Result struct {
	Name    string
	Score   float64
	Pass    bool
	Reasons []string
}

// Run runs the scenarios, prints a table, and returns the results.
func Run(ctx context.Context, scenarios []Scenario, o Options) []Result {
	var results []Result
	for _, s := range scenarios {
		if o.Pattern != nil && !o.Pattern.MatchString(s.Name) {
			continue
		}
		results = append(results, runOne(ctx, s, o))
	}
	w := tabwriter.NewWriter(o.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CASE\tRUBRIC\tRESULT\tREASON")
	passed := 0
	for _, r := range results {
		res := "FAIL"
		if r.Pass {
			res, passed = "pass", passed+1
		}
		reason := strings.Join(r.Reasons, "; ")
		if reason == "" {
			reason = "all checks held"
		}
		fmt.Fprintf(w, "%s\t%.2f\t%s\t%s\n", r.Name, r.Score, res, reason)
	}
	w.Flush()
	fmt.Fprintf(o.Out, "eval: %d passed, %d failed\n", passed, len(results)-passed)
	return results
}

type scenarioRun struct {
	s       Scenario
	o       Options
	run     *tb.Run
	slack   *fakeslack.Server
	db      *testdb.DB
	checks  db.Checks
	logs    *tb.Buffer
	wait    time.Duration
	replies map[string]int // channel → replies expected so far
	last    string         // the bot's last reply
}

func runOne(ctx context.Context, s Scenario, o Options) Result {
	r := &scenarioRun{s: s, o: o, run: &tb.Run{}, logs: &tb.Buffer{}, wait: 10 * time.Second, replies: map[string]int{}}
	if o.Live {
		r.wait = 3 * time.Minute
	}
	defer r.run.Close()
	res := Result{Name: s.Name}
	ok := r.run.Do(func() { r.drive(ctx) })
	if !ok {
		res.Reasons = append(res.Reasons, r.run.Failures()...)
		return res
	}
	res.Reasons = append(res.Reasons, r.checkAssertions(ctx)...)
	res.Reasons = append(res.Reasons, r.checkTools()...)
	score, why := r.grade(ctx)
	res.Score = score
	if score < 0.75 {
		res.Reasons = append(res.Reasons, "rubric: "+why)
	}
	res.Pass = len(res.Reasons) == 0
	return res
}

// drive runs the scenario's seed and events through the bot.
func (r *scenarioRun) drive(ctx context.Context) {
	r.db = testdb.New(r.run)
	r.checks = r.db.DB.Checks()
	r.slack = fakeslack.New(r.run)
	for name, id := range Users {
		r.slack.AddUser(fakeslack.User{ID: id, Name: strings.ToUpper(name[:1]) + name[1:]})
	}
	env := map[string]string{
		"DATABASE_URL": r.db.URL, "SLACK_BOT_TOKEN": "xoxb-eval", "SLACK_APP_TOKEN": "xapp-1-eval",
		"SLACK_API_URL": r.slack.URL, "MNEMO_LOG_LEVEL": "info", "MNEMO_HTTP_ADDR": "127.0.0.1:0",
	}
	if r.o.Live {
		env["MNEMO_LLM_PROVIDER"], env["MNEMO_LLM_BASE_URL"], env["MNEMO_LLM_API_KEY"], env["MNEMO_MODEL"] = r.o.Model.Provider, r.o.Model.BaseURL, r.o.Model.APIKey, r.o.Model.Model
	} else {
		model := fakellm.New(r.run, scripted.Memory())
		env["MNEMO_LLM_PROVIDER"], env["MNEMO_LLM_BASE_URL"], env["MNEMO_LLM_API_KEY"], env["MNEMO_MODEL"] = "anthropic", model.URL, "sk-ant-eval", "scripted"
	}
	stop := r.o.Start(ctx, env, r.logs)
	r.run.Cleanup(stop)
	r.slack.WaitConnected(r.wait)

	store := memory.New(r.db.DB, memory.Options{})
	for _, sd := range r.s.Seed {
		vis := provenance.VisibilityOf("", sd.Channel)
		out, err := store.Remember(ctx, memory.WriteRequest{
			Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: UserID(sd.User)},
			Place: provenance.Place{Team: fakeslack.TeamID, Channel: sd.Channel, SourceKey: sourceKey(sd.Channel, sd.TS), Visibility: vis},
			Scope: memory.Scope(sd.Scope), Kind: memory.Kind(sd.Kind), Content: sd.Content, WrittenBy: provenance.ByExplicit, MessageTS: sd.TS,
		})
		if err != nil || out.Status != memory.Stored {
			r.run.Fatalf("seed %s: %v %s", sd.ID, err, out.Reason)
		}
	}

	// A batch holds the bot's posts until every post of the batch is in
	// the thread, then waits for all their answers.
	batchStart := -1
	for i, e := range r.s.Events {
		if e.Batch && batchStart < 0 {
			r.slack.HoldPosts()
			batchStart = i
		}
		r.send(e)
		if batchStart < 0 {
			r.waitAnswered(e)
			r.settle(ctx)
			continue
		}
		r.waitLogged(e)
		if e.Batch {
			continue
		}
		r.slack.ReleasePosts()
		for _, b := range r.s.Events[batchStart : i+1] {
			r.waitAnswered(b)
		}
		batchStart = -1
		r.settle(ctx)
	}
}

func (r *scenarioRun) send(e Event) {
	typ := "message"
	text := e.Text
	if e.Mention {
		typ, text = "app_mention", "<@"+fakeslack.BotUserID+"> "+e.Text
	}
	ev := map[string]any{"type": typ, "user": UserID(e.User), "text": text, "ts": e.TS, "channel": e.Channel, "event_ts": e.TS}
	if !e.Mention {
		ev["channel_type"] = e.ChannelType
	}
	if e.ThreadTS != "" {
		ev["thread_ts"] = e.ThreadTS
	}
	r.slack.WaitAck(r.slack.SendEvent(ev), r.wait)
}

func (e Event) answered() bool {
	if e.Answered != nil {
		return *e.Answered
	}
	return e.Mention || e.ChannelType == "im"
}

func (e Event) root() string {
	if e.ThreadTS != "" {
		return e.ThreadTS
	}
	return e.TS
}

// waitAnswered waits for the bot's reply in the event's thread, or, for an
// event that is not answered, until it is in the session log.
func (r *scenarioRun) waitAnswered(e Event) {
	if !e.answered() {
		// The bot may rightly ignore it; the assertions' controls tell.
		r.waitLoggedUpTo(e, 2*time.Second)
		return
	}
	// Replies are counted per channel, wherever in it they land, so a
	// reply keyed to the wrong thread is caught by the assertions, which
	// say what went wrong, rather than by a timeout here.
	r.replies[e.Channel]++
	want := r.replies[e.Channel]
	got := r.slack.WaitPosted(want, r.wait, func(m fakeslack.Message) bool {
		return m.Channel == e.Channel && !m.Ephemeral && !m.Response
	})
	r.last = got[len(got)-1].Text
	r.slack.WaitReaction("remove", "eyes", e.TS, r.wait)
}

func (r *scenarioRun) waitLogged(e Event) {
	if !r.waitLoggedUpTo(e, r.wait) {
		r.run.Fatalf("event %s never reached the thread's session log under %s", e.ID, sourceKey(e.Channel, e.root()))
	}
}

func (r *scenarioRun) waitLoggedUpTo(e Event, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		msgs, _, err := r.checks.ThreadRows(context.Background(), sourceKey(e.Channel, e.root()), []string{e.TS})
		if err == nil && msgs > 0 {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// settle waits until every turn is finished and through passive learning.
func (r *scenarioRun) settle(ctx context.Context) {
	deadline := time.Now().Add(r.wait)
	for time.Now().Before(deadline) {
		n, err := r.checks.TurnsUnsettled(ctx)
		if err == nil && n == 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	r.run.Fatalf("turns did not settle (reply and learning) within %s", r.wait)
}

func sourceKey(channel, root string) string {
	return "slack:" + fakeslack.TeamID + ":" + channel + ":" + root
}

// checkAssertions runs the database assertions. Each is paired with a
// positive control: every message of its thread is in the session log
// under the thread's sourceKey (and a seeded thread has its seed), so a
// filter that could not match the thread's data fails as vacuous.
func (r *scenarioRun) checkAssertions(ctx context.Context) []string {
	var out []string
	for i, a := range r.s.Assert {
		channel, root, _ := r.s.threadOf(a.Thread)
		key := sourceKey(channel, root)
		var tss []string
		for _, e := range r.s.Events {
			if e.Channel == channel && e.root() == root {
				tss = append(tss, e.TS)
			}
		}
		seeds := 0
		for _, sd := range r.s.Seed {
			if sd.Channel == channel && sd.TS == root {
				seeds++
			}
		}
		msgs, mems, err := r.checks.ThreadRows(ctx, key, tss)
		if err != nil {
			out = append(out, fmt.Sprintf("assertion %d: %v", i, err))
			continue
		}
		if int(msgs) != len(tss) || int(mems) < seeds {
			out = append(out, fmt.Sprintf("assertion %d is vacuous: %s holds %d of the thread's %d messages and %d memories (want ≥ %d)", i, key, msgs, len(tss), mems, seeds))
			continue
		}
		subject := a.Subject
		switch {
		case a.SubjectType == "user":
			subject = UserID(a.Subject)
		case a.SubjectType == "channel" && subject == "":
			subject = channel
		}
		rows, err := r.checks.MemoriesInThread(ctx, db.ThreadQuery{SourceKey: key, Scope: a.Scope, SubjectType: a.SubjectType, SubjectID: subject, Archived: a.Archived})
		if err != nil {
			out = append(out, fmt.Sprintf("assertion %d: %v", i, err))
			continue
		}
		n := 0
		var contents []string
		re := regexp.MustCompile(a.Content)
		for _, m := range rows {
			contents = append(contents, m.Content)
			if re.MatchString(m.Content) {
				n++
			}
		}
		if n != a.Count {
			state := "active"
			if a.Archived {
				state = "archived"
			}
			out = append(out, fmt.Sprintf("assertion %d: want %d %s %s/%s memories of %s matching %q in %s, found %d %q", i, a.Count, state, a.Scope, a.SubjectType, a.Subject, a.Content, a.Thread, n, contents))
		}
	}
	return out
}

// checkTools checks that the expected tools ran, from the bot's own log of
// each turn.
func (r *scenarioRun) checkTools() []string {
	ran := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(r.logs.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Message string   `json:"message"`
			Tools   []string `json:"tools"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "turn answered" {
			for _, t := range line.Tools {
				ran[t] = true
			}
		}
	}
	var out []string
	for _, t := range r.s.ExpectTools {
		if !ran[t] {
			out = append(out, "expected tool "+t+" was not called")
		}
	}
	return out
}

// grade scores the last reply against the rubric: by its patterns in the
// scripted run, by a judge model live.
func (r *scenarioRun) grade(ctx context.Context) (float64, string) {
	if !r.o.Live {
		for _, p := range r.s.Rubric.MustMatch {
			if !regexp.MustCompile(p).MatchString(r.last) {
				return 0, fmt.Sprintf("reply %q does not match %q", r.last, p)
			}
		}
		for _, p := range r.s.Rubric.MustNotMatch {
			if regexp.MustCompile(p).MatchString(r.last) {
				return 0, fmt.Sprintf("reply %q matches %q", r.last, p)
			}
		}
		return 1, ""
	}
	return Judge(ctx, r.o.Model, r.s.Rubric, r.s.Description, r.last)
}

// Grades maps the judge's letters to scores.
var Grades = map[string]float64{"A": 1, "B": 0.75, "C": 0.5, "D": 0.25, "E": 0}

// Judge asks the judge model to grade a reply A to E against the rubric.
func Judge(ctx context.Context, m LiveModel, rubric Rubric, situation, reply string) (float64, string) {
	var model llm.Model
	name := m.JudgeModel
	if name == "" {
		name = m.Model
	}
	if m.Provider == "anthropic" {
		model = llm.NewAnthropic(m.APIKey, m.BaseURL, name)
	} else {
		model = llm.NewOpenAI(m.APIKey, m.BaseURL, name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Situation: %s\n\nThe assistant's reply:\n%s\n\nA good reply:\n", situation, reply)
	for _, p := range rubric.Pass {
		fmt.Fprintf(&b, "- %s\n", p)
	}
	b.WriteString("A bad reply:\n")
	for _, f := range rubric.Fail {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	resp, err := model.Complete(ctx, llm.Request{
		System:    "You grade a Slack assistant's reply against a rubric. Answer with one line: a grade A (fully meets every good condition, none of the bad), B, C, D or E (meets a bad condition or none of the good), then a colon and a short reason.",
		Messages:  []llm.Message{{Role: llm.RoleUser, Text: b.String()}},
		MaxTokens: 200,
	})
	if err != nil {
		return 0, "judge: " + err.Error()
	}
	text := strings.TrimSpace(resp.Text)
	if text == "" {
		return 0, "judge gave no grade"
	}
	grade, reason, _ := strings.Cut(text, ":")
	score, ok := Grades[strings.ToUpper(strings.TrimSpace(grade))]
	if !ok {
		return 0, "judge gave no grade: " + text
	}
	return score, strings.TrimSpace(reason)
}
