package evals

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/db/evalcheck"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
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
	run     *harness.Run
	slack   *fakeslack.Server
	model   *fakellm.Server // the scripted model; nil live
	db      *testdb.DB
	checks  evalcheck.Checks
	logs    *harness.Buffer
	wait    time.Duration
	replies map[string]int    // channel → replies expected so far
	last    string            // the bot's last reply
	answers map[string]string // event id → the bot's reply to it
	// scopes and subjectTypes are what an any-scope assertion checks.
	scopes, subjectTypes []string
}

func runOne(ctx context.Context, s Scenario, o Options) Result {
	r := &scenarioRun{s: s, o: o, run: &harness.Run{}, logs: &harness.Buffer{}, wait: 10 * time.Second, replies: map[string]int{}, answers: map[string]string{},
		scopes: knownScopes, subjectTypes: knownSubjectTypes}
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
	res.Reasons = append(res.Reasons, r.checkDiscovery()...)
	res.Reasons = append(res.Reasons, r.checkLearning()...)
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
	r.checks = evalcheck.New(r.db.DB)
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
		// Live, the order of tool calls comes from the bot's debug log.
		env["MNEMO_LOG_LEVEL"] = "debug"
	} else {
		r.model = fakellm.New(r.run, scripted.Memory())
		env["MNEMO_LLM_PROVIDER"], env["MNEMO_LLM_BASE_URL"], env["MNEMO_LLM_API_KEY"], env["MNEMO_MODEL"] = "anthropic", r.model.URL, "sk-ant-eval", "scripted"
	}
	stop := r.o.Start(ctx, env, r.logs)
	r.run.Cleanup(stop)
	r.slack.WaitConnected(r.wait)

	// Seeds are reviewed as the bot reviews a write (canonical text,
	// retrieval cues), always by the scripted model, so a fixture is the
	// same in every mode.
	seedModel := r.model
	if seedModel == nil {
		seedModel = fakellm.New(r.run, scripted.Memory())
	}
	store := memory.New(r.db.DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("sk-ant-eval", seedModel.URL, "scripted")}})
	for _, sd := range r.s.Seed {
		vis := provenance.VisibilityOf(fakeChannelType(sd.Channel), sd.Channel)
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
	r.answers[e.ID] = r.last
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
		rows, covered, err := r.memories(ctx, key, channel, a)
		if err != nil {
			out = append(out, fmt.Sprintf("assertion %d: %v", i, err))
			continue
		}
		if covered >= 0 && covered != mems {
			out = append(out, fmt.Sprintf("assertion %d: %s holds %d memories, but only %d have a scope and subject type the check knows (%v × %v); teach evals the new values", i, key, mems, covered, r.scopes, r.subjectTypes))
			continue
		}
		n := 0
		var contents []string
		re := regexp.MustCompile(a.Content)
		for _, m := range rows {
			contents = append(contents, m.Scope+"/"+m.SubjectType+": "+m.Content)
			if re.MatchString(m.Content) {
				n++
			}
		}
		if n != a.Count {
			state := "active"
			if a.Archived {
				state = "archived"
			}
			out = append(out, fmt.Sprintf("assertion %d: want %d %s %s memories matching %q in thread %s (%s), found %d of %q", i, a.Count, state, a.what(), a.Content, a.Thread, key, n, contents))
		}
	}
	return out
}

// knownScopes and knownSubjectTypes are every value a memory's scope and subject type
// may take. A "nothing stored" assertion that names no scope checks each
// pair, and counts the thread's rows in every state against the thread's
// total, so a value missing here fails the assertion instead of hiding a
// memory. Load rejects an assertion naming a value not here.
var (
	knownScopes       = []string{string(memory.ScopePersonal), string(memory.ScopeConversation), string(memory.ScopeChannel), string(memory.ScopeWorkspace)}
	knownSubjectTypes = []string{string(memory.SubjectUser), string(memory.SubjectConversation), string(memory.SubjectChannel), string(memory.SubjectTeam)}
)

// memories returns the thread's memories the assertion selects. For an
// assertion over every scope, covered is how many of the thread's memories
// (active or archived) have a known scope and subject type; otherwise -1.
func (r *scenarioRun) memories(ctx context.Context, key, channel string, a Assertion) (rows []db.Memory, covered int64, err error) {
	scopes, types := []string{a.Scope}, []string{a.SubjectType}
	if a.Scope == "" {
		scopes = r.scopes
	}
	if a.SubjectType == "" {
		types = r.subjectTypes
	}
	covered = -1
	if a.Scope == "" {
		covered = 0
	}
	for _, scope := range scopes {
		for _, typ := range types {
			subject := a.Subject
			switch {
			case typ == "user":
				subject = UserID(a.Subject)
			case typ == "channel" && subject == "" && a.SubjectType != "":
				subject = channel
			}
			q := evalcheck.ThreadQuery{SourceKey: key, Scope: scope, SubjectType: typ, SubjectID: subject, Archived: a.Archived}
			got, err := r.checks.MemoriesInThread(ctx, q)
			if err != nil {
				return nil, 0, err
			}
			rows = append(rows, got...)
			if covered >= 0 {
				q.Archived = !q.Archived
				other, err := r.checks.MemoriesInThread(ctx, q)
				if err != nil {
					return nil, 0, err
				}
				covered += int64(len(got) + len(other))
			}
		}
	}
	return rows, covered, nil
}

// what names the memories an assertion selects, for its failure.
func (a Assertion) what() string {
	switch {
	case a.Scope == "":
		return "any-scope"
	case a.SubjectType == "":
		return a.Scope + "/any-subject-type"
	case a.Subject != "":
		return a.Scope + "/" + a.SubjectType + " (" + a.Subject + ")"
	}
	return a.Scope + "/" + a.SubjectType
}

// logLine is what the checks read from one structured event of the bot's
// JSON log: its event name (agent.Event, learn.Event…) and fields, never
// its message.
type logLine struct {
	Event  string   `json:"event"`
	Tools  []string `json:"tools"`  // agent.EventTurnAnswered
	Tool   string   `json:"tool"`   // agent.EventToolCall (debug)
	Ran    string   `json:"ran"`    // agent.EventToolCall (debug)
	Stored bool     `json:"stored"` // learn.EventDecision
	Reason string   `json:"reason"` // learn.EventDecision
}

var (
	turnAnswered = string(agent.EventTurnAnswered)
	toolCall     = string(agent.EventToolCall)
)

// logLines returns the bot's structured events, in order.
func (r *scenarioRun) logLines() []logLine {
	var out []logLine
	sc := bufio.NewScanner(strings.NewReader(r.logs.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event != "" {
			out = append(out, l)
		}
	}
	return out
}

// checkTools checks that the expected tools ran, from the bot's own log of
// each turn.
func (r *scenarioRun) checkTools() []string {
	ran := map[string]bool{}
	for _, l := range r.logLines() {
		if l.Event == turnAnswered {
			for _, t := range l.Tools {
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

// checkDiscovery checks that every memory write the model made went
// through the catalog: a searchTools call with the scenario's source (or
// one whose result listed the tool) came before the executeTool call that
// ran it. The scripted run reads the model's requests, which carry every
// call with its arguments and result; live, the bot's debug log gives the
// order of the turn's tool calls, without arguments.
func (r *scenarioRun) checkDiscovery() []string {
	source := r.s.Discovery()
	if source == "" {
		return nil
	}
	if r.model == nil {
		return discoveryFromLog(r.logLines())
	}
	writes := Writes(r.model.Requests(), source)
	if len(writes) == 0 {
		return []string{fmt.Sprintf("discovery: the model never ran a memory write tool (%v) through %s", MemoryWriteTools, tools.ExecuteToolName)}
	}
	var out []string
	for _, w := range writes {
		if !w.Discovered {
			out = append(out, fmt.Sprintf("discovery: %s ran %s without a %s call with source %q (or one listing it) before it", tools.ExecuteToolName, w.Tool, tools.SearchToolsName, source))
		}
	}
	return out
}

// Write is one executeTool call of a memory write tool, and whether the
// model had found the tool through searchTools first.
type Write struct {
	CallID, Tool string
	Discovered   bool
}

// Writes finds, in a model's requests, every executeTool call of a memory
// write tool, in order, and whether a searchTools call before it (in the
// same request's history) had source as its source or listed the tool in
// its result.
func Writes(reqs []*fakellm.Request, source string) []Write {
	var out []Write
	seen := map[string]bool{}
	for _, req := range reqs {
		results := map[string]string{}
		for _, m := range req.Messages {
			for _, tr := range m.ToolResults {
				results[tr.CallID] = tr.Content
			}
		}
		searched, listed := false, map[string]bool{}
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				switch c.Name {
				case tools.SearchToolsName:
					var in struct {
						Source string `json:"source"`
					}
					_ = json.Unmarshal(c.Input, &in)
					searched = searched || in.Source == source
					var res struct {
						Tools []struct {
							ToolName string `json:"tool_name"`
						} `json:"tools"`
					}
					_ = json.Unmarshal([]byte(results[c.ID]), &res)
					for _, t := range res.Tools {
						listed[t.ToolName] = true
					}
				case tools.ExecuteToolName:
					var in struct {
						ToolName string `json:"tool_name"`
					}
					_ = json.Unmarshal(c.Input, &in)
					if !slices.Contains(MemoryWriteTools, in.ToolName) || seen[c.ID] {
						continue
					}
					seen[c.ID] = true
					out = append(out, Write{CallID: c.ID, Tool: in.ToolName, Discovered: searched || listed[in.ToolName]})
				}
			}
		}
	}
	return out
}

// discoveryFromLog checks, live, that within each turn a searchTools call
// came before every memory write.
func discoveryFromLog(lines []logLine) []string {
	var out []string
	searched, wrote := false, false
	for _, l := range lines {
		switch {
		case l.Event == turnAnswered:
			searched = false
		case l.Event == toolCall && l.Tool == tools.SearchToolsName:
			searched = true
		case l.Event == toolCall && slices.Contains(MemoryWriteTools, l.Ran):
			wrote = true
			if !searched {
				out = append(out, fmt.Sprintf("discovery: %s ran before any %s call in its turn", l.Ran, tools.SearchToolsName))
			}
		}
	}
	if !wrote {
		out = append(out, fmt.Sprintf("discovery: the bot's log shows no memory write tool (%v) run", MemoryWriteTools))
	}
	return out
}

// checkLearning checks that the passive learning decisions the scenario
// expects were made, from the bot's log of each decision.
func (r *scenarioRun) checkLearning() []string {
	var decided []string
	var seen []logLine
	for _, l := range r.logLines() {
		if l.Event == learn.EventDecision {
			seen = append(seen, l)
			decided = append(decided, fmt.Sprintf("stored=%t %s", l.Stored, l.Reason))
		}
	}
	var out []string
	for i, want := range r.s.ExpectLearning {
		re := regexp.MustCompile(want.Reason)
		if !slices.ContainsFunc(seen, func(l logLine) bool { return l.Stored == want.Stored && re.MatchString(l.Reason) }) {
			out = append(out, fmt.Sprintf("expect_learning %d: no passive learning decision with stored=%t and a reason matching %q; decisions: %q", i, want.Stored, want.Reason, decided))
		}
	}
	return out
}

// grade scores the last reply against the rubric: by its patterns in the
// scripted run, by a judge model live.
func (r *scenarioRun) grade(ctx context.Context) (float64, string) {
	if !r.o.Live {
		for _, e := range r.s.Events {
			for _, p := range e.ReplyMustMatch {
				if !regexp.MustCompile(p).MatchString(r.answers[e.ID]) {
					return 0, fmt.Sprintf("reply to %s %q does not match %q", e.ID, r.answers[e.ID], p)
				}
			}
		}
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
	var g struct {
		Grade  string `json:"grade"`
		Reason string `json:"reason"`
	}
	err := llm.CompleteJSON(ctx, model, llm.Request{
		System:    JudgePromptMarker + " Grade A (fully meets every good condition, none of the bad), B, C, D or E (meets a bad condition or none of the good), with a short reason.",
		Messages:  []llm.Message{{Role: llm.RoleUser, Text: b.String()}},
		MaxTokens: 200,
		Schema:    JudgeSchema,
	}, &g)
	if err != nil {
		return 0, "judge: " + err.Error()
	}
	return Grades[g.Grade], strings.TrimSpace(g.Reason)
}

// JudgePromptMarker starts the judge's prompt.
const JudgePromptMarker = "You grade a Slack assistant's reply against a rubric."

// JudgeSchema is the judge's answer: a grade A to E and why.
var JudgeSchema = &llm.Schema{Name: "reply_grade", Description: "The grade of one reply.", JSON: []byte(`{
  "type": "object",
  "properties": {
    "grade": {"type": "string", "enum": ["A", "B", "C", "D", "E"]},
    "reason": {"type": "string", "minLength": 1}
  },
  "required": ["grade", "reason"],
  "additionalProperties": false
}`)}

// fakeChannelType is the channel type the fake Slack's conversations.info
// gives a seed's channel, so a seed is stored as the bot would see it.
func fakeChannelType(id string) string {
	switch {
	case strings.HasPrefix(id, "C"):
		return "channel"
	case strings.HasPrefix(id, "G"):
		return "group"
	case strings.HasPrefix(id, "D"):
		return "im"
	}
	return ""
}
