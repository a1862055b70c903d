package evals

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/threads"
)

//go:embed scenarios/*.yaml
var builtin embed.FS

// Builtin is the memory workflow suite shipped with mnemo.
func Builtin() fs.FS {
	sub, _ := fs.Sub(builtin, "scenarios")
	return sub
}

// Scenario is one eval case.
type Scenario struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Seed        []Seed   `yaml:"seed"`
	Events      []Event  `yaml:"events"`
	ExpectTools []string `yaml:"expect_tools"`
	// ExpectDiscovery is the catalog source the model must have searched
	// (searchTools with that source, or a search whose result listed the
	// tool) before it ran a memory write tool through executeTool. It
	// defaults to "memory" when ExpectTools names a memory write tool;
	// "none" turns the check off.
	ExpectDiscovery string `yaml:"expect_discovery"`
	// ExpectLearning are passive learning decisions that must have been
	// made: the positive control of a "nothing learned" assertion.
	ExpectLearning []Learning  `yaml:"expect_learning"`
	Assert         []Assertion `yaml:"assert"`
	Rubric         Rubric      `yaml:"rubric"`
	File           string      `yaml:"-"`
}

// Learning is one passive learning decision the bot logs: whether it
// stored (or found already stored) a proposal, and why not.
type Learning struct {
	Stored bool   `yaml:"stored"`
	Reason string `yaml:"reason"` // a regular expression the decision's reason must match
}

// MemoryWriteTools are the tools that change memory; a scenario expecting
// one checks, by default, that the model found it through the catalog.
var MemoryWriteTools = []string{memory.ToolRemember, memory.ToolForget}

// Discovery is the source the model must have searched before a memory
// write, or "" when the scenario does not check it.
func (s *Scenario) Discovery() string {
	switch s.ExpectDiscovery {
	case "none":
		return ""
	case "":
		for _, t := range s.ExpectTools {
			if slices.Contains(MemoryWriteTools, t) {
				return memory.Source
			}
		}
		return ""
	}
	return s.ExpectDiscovery
}

// ThreadDependent reports whether the scenario depends on messages being
// keyed by their thread: an event replies in a thread, or an assertion
// names a thread of more than one message. Each such scenario must fail
// against the per-message-key mutant (make eval-mutation).
func (s *Scenario) ThreadDependent() bool {
	for _, e := range s.Events {
		if e.ThreadTS != "" {
			return true
		}
	}
	for _, a := range s.Assert {
		channel, root, _ := s.threadOf(a.Thread)
		n := 0
		for _, e := range s.Events {
			if e.Channel == channel && e.root() == root {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// Seed is a memory stored before the events.
type Seed struct {
	ID      string `yaml:"id"`
	User    string `yaml:"user"`
	Channel string `yaml:"channel"`
	TS      string `yaml:"ts"`
	Scope   string `yaml:"scope"`
	Kind    string `yaml:"kind"`
	Content string `yaml:"content"`
}

// Event is one Slack post.
type Event struct {
	ID          string `yaml:"id"`
	User        string `yaml:"user"`
	Channel     string `yaml:"channel"`
	ChannelType string `yaml:"channel_type"` // channel, group or im
	Mention     bool   `yaml:"mention"`      // an app_mention (else a plain message)
	Text        string `yaml:"text"`
	TS          string `yaml:"ts"`
	ThreadTS    string `yaml:"thread_ts"`
	// Batch sends the next event before this one is answered, holding the
	// model until both are in the thread (a batched mention).
	Batch bool `yaml:"batch"`
	// Answered says whether the bot is expected to reply (default true for
	// mentions and DMs).
	Answered *bool `yaml:"answered"`
	// ReplyMustMatch are patterns the bot's reply to this event must match,
	// in the scripted run (live, the judge grades the last reply only).
	ReplyMustMatch []string `yaml:"reply_must_match"`
}

// Assertion checks memories of one thread (the thread of the event or seed
// named by Thread), one scope and one subject type. A "nothing stored"
// assertion (Count 0, not Archived) may leave out the subject type, or the
// scope too: it then holds for every subject type, or every scope, of the
// thread.
type Assertion struct {
	Thread      string `yaml:"thread"`
	Scope       string `yaml:"scope"`
	SubjectType string `yaml:"subject_type"`
	Subject     string `yaml:"subject"` // a user name from the scenario, or an id
	Count       int    `yaml:"count"`
	Content     string `yaml:"content"` // a regular expression the content must match
	Archived    bool   `yaml:"archived"`
}

// Rubric says what a good last reply does and what a bad one does. In the
// scripted run the patterns decide; live, a judge model grades the
// conditions.
type Rubric struct {
	Pass         []string `yaml:"pass"`
	Fail         []string `yaml:"fail"`
	MustMatch    []string `yaml:"must_match"`
	MustNotMatch []string `yaml:"must_not_match"`
}

// Users of every scenario: names in fixtures map to these ids.
var Users = map[string]string{"alice": "U0EVALICE", "bob": "U0EVBOB", "carol": "U0EVCAROL"}

// UserID resolves a fixture's user name.
func UserID(name string) string {
	if id, ok := Users[strings.ToLower(name)]; ok {
		return id
	}
	return name
}

var (
	channelID = regexp.MustCompile(`^[CDG][A-Z0-9]{2,20}$`)
	userID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)
	teamID    = regexp.MustCompile(`^[TE][A-Z0-9]{2,20}$`)
)

// subjectWant says what subject must look like to name a memory's subject
// of the given type, or "" when it does: a user of Users (or a user id)
// for a person, a channel id, a team id, or a thread's source key for a
// conversation. Anything else is a typo the query would silently match
// nothing with.
func subjectWant(subjectType, subject string) string {
	switch memory.SubjectType(subjectType) {
	case memory.SubjectUser:
		if _, named := Users[strings.ToLower(subject)]; named || userID.MatchString(subject) {
			return ""
		}
		return fmt.Sprintf("one of the users %v or a user id", slices.Sorted(maps.Keys(Users)))
	case memory.SubjectChannel:
		if channelID.MatchString(subject) {
			return ""
		}
		return "a channel id"
	case memory.SubjectTeam:
		if teamID.MatchString(subject) {
			return ""
		}
		return "a team id"
	case memory.SubjectConversation:
		if _, err := threads.ParseSourceKey(subject); err == nil {
			return ""
		}
		return "a thread's source key"
	}
	return "" // an unknown subject type is reported on its own
}

// Load reads every *.yaml scenario in fsys and validates it strictly. A
// label-suffixed or otherwise malformed ts fails the load, naming the file,
// the field and the value; so does a thread root shared by two scenarios.
func Load(fsys fs.FS) ([]Scenario, error) {
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Scenario
	var problems []string
	roots := map[string]string{} // channel:ts → scenario
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		var s Scenario
		if err := dec.Decode(&s); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		s.File = path.Base(f)
		for _, p := range validate(&s) {
			problems = append(problems, fmt.Sprintf("%s: %s", f, p))
		}
		for _, e := range s.Events {
			if e.ThreadTS == "" {
				k := e.Channel + ":" + e.TS
				if other, dup := roots[k]; dup && other != s.Name {
					problems = append(problems, fmt.Sprintf("%s: event %s reuses thread %s of scenario %s; give each scenario its own timestamps", f, e.ID, k, other))
				}
				roots[k] = s.Name
			}
		}
		out = append(out, s)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("evals: invalid scenarios:\n  - %s", strings.Join(problems, "\n  - "))
	}
	return out, nil
}

func validate(s *Scenario) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if s.Name == "" {
		bad("name is missing")
	}
	if len(s.Events) == 0 {
		bad("no events")
	}
	ids := map[string]bool{}
	checkTS := func(where, field, v string) {
		if _, err := threads.ParseTS(field, v); err != nil {
			bad("%s: %v", where, err)
		}
	}
	for i := range s.Seed {
		sd := &s.Seed[i]
		where := fmt.Sprintf("seed %d", i)
		if sd.ID == "" || ids[sd.ID] {
			bad("%s: needs a unique id", where)
		}
		ids[sd.ID] = true
		checkTS(where, "seed.ts", sd.TS)
		if !channelID.MatchString(sd.Channel) {
			bad("%s: channel %q is not a Slack channel id", where, sd.Channel)
		}
		if sd.Content == "" {
			bad("%s: content is empty", where)
		}
	}
	for i := range s.Events {
		e := &s.Events[i]
		where := fmt.Sprintf("event %d", i)
		if e.ID == "" || ids[e.ID] {
			bad("%s: needs a unique id", where)
		}
		ids[e.ID] = true
		checkTS(where, "event.ts", e.TS)
		if e.ThreadTS != "" {
			checkTS(where, "event.thread_ts", e.ThreadTS)
		}
		if !channelID.MatchString(e.Channel) {
			bad("%s: channel %q is not a Slack channel id", where, e.Channel)
		}
		switch e.ChannelType {
		case "":
			e.ChannelType = map[byte]string{'C': "channel", 'G': "group", 'D': "im"}[e.Channel[0]]
		case "channel", "group", "im":
		default:
			bad("%s: channel_type %q must be channel, group or im", where, e.ChannelType)
		}
		if e.User == "" || e.Text == "" {
			bad("%s: user and text are required", where)
		}
		for _, pat := range e.ReplyMustMatch {
			if _, err := regexp.Compile(pat); err != nil {
				bad("%s: reply_must_match %q: %v", where, pat, err)
			}
		}
		if len(e.ReplyMustMatch) > 0 && !e.answered() {
			bad("%s: reply_must_match on an event the bot is not expected to answer", where)
		}
		if i > 0 && e.TS <= s.Events[i-1].TS {
			bad("%s: ts %s is not after the previous event's", where, e.TS)
		}
	}
	for i, a := range s.Assert {
		where := fmt.Sprintf("assertion %d", i)
		if !ids[a.Thread] {
			bad("%s: thread %q names no event or seed", where, a.Thread)
		}
		switch {
		case a.Count < 0:
			bad("%s: count %d is negative", where, a.Count)
		case a.Count == 0 && !a.Archived:
			if a.Scope == "" && a.SubjectType != "" {
				bad("%s: subject_type %q without a scope", where, a.SubjectType)
			}
			if a.Subject != "" && a.SubjectType == "" {
				bad("%s: subject %q without a subject_type", where, a.Subject)
			}
		case a.Scope == "" || a.SubjectType == "":
			bad("%s: scope and subject_type are required unless it expects nothing stored", where)
		}
		// A misspelt scope, subject type or subject selects no memory, so
		// a "nothing stored" assertion would pass whatever was stored.
		if a.Scope != "" && !slices.Contains(knownScopes, a.Scope) {
			bad("%s: scope %q is none of %v", where, a.Scope, knownScopes)
		}
		if a.SubjectType != "" && !slices.Contains(knownSubjectTypes, a.SubjectType) {
			bad("%s: subject_type %q is none of %v", where, a.SubjectType, knownSubjectTypes)
		}
		if a.Subject != "" {
			if want := subjectWant(a.SubjectType, a.Subject); want != "" {
				bad("%s: subject %q of subject_type %s is not %s", where, a.Subject, a.SubjectType, want)
			}
		}
		if a.Content != "" {
			if _, err := regexp.Compile(a.Content); err != nil {
				bad("%s: content: %v", where, err)
			}
		}
	}
	if d := s.ExpectDiscovery; d != "" && d != "none" && !slices.ContainsFunc(s.ExpectTools, func(t string) bool { return slices.Contains(MemoryWriteTools, t) }) {
		bad("expect_discovery %q, but expect_tools names no memory write tool %v", d, MemoryWriteTools)
	}
	for i, l := range s.ExpectLearning {
		if _, err := regexp.Compile(l.Reason); err != nil {
			bad("expect_learning %d: reason: %v", i, err)
		}
	}
	for _, pat := range append(append([]string{}, s.Rubric.MustMatch...), s.Rubric.MustNotMatch...) {
		if _, err := regexp.Compile(pat); err != nil {
			bad("rubric pattern %q: %v", pat, err)
		}
	}
	if len(s.Rubric.Pass) == 0 {
		bad("rubric has no pass conditions")
	}
	return p
}

// threadOf returns the root ts of the thread an event or seed belongs to,
// from the fixture alone (not the product's key derivation), so a broken
// derivation in the product shows up as failed assertions.
func (s *Scenario) threadOf(id string) (channel, root string, ok bool) {
	for _, e := range s.Events {
		if e.ID == id {
			if e.ThreadTS != "" {
				return e.Channel, e.ThreadTS, true
			}
			return e.Channel, e.TS, true
		}
	}
	for _, sd := range s.Seed {
		if sd.ID == id {
			return sd.Channel, sd.TS, true
		}
	}
	return "", "", false
}
