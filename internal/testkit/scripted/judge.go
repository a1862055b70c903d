package scripted

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/memory"
)

// review stores what it is shown, rewritten without "I" the way the review
// prompt asks, with the retrieval cues its small store of world knowledge
// (cueGroups) gives. It names no sensitive category ("none"), like a review
// model that misses one: the product's detectors, which run first, refuse
// or confine what must be.
func review(req *fakellm.Request) fakellm.Reply {
	text := req.Messages[len(req.Messages)-1].Text
	content := strings.TrimSpace(text[strings.Index(text, "Memory: ")+len("Memory: "):])
	if p := Preference(content); p != "" {
		content = p
	}
	b, _ := json.Marshal(map[string]any{"store": true, "reason": "durable", "canonical": content, "sensitive": memory.NotSensitive, "restated": "", "cues": Cues(content), "expires": ""})
	return fakellm.Reply{JSON: string(b)}
}

// cueGroups is what the scripted model knows about words: when a memory
// mentions one of a group's words, the group's cues are what a person would
// say when it matters.
var cueGroups = []struct{ words, cues []string }{
	{[]string{"pacific time", "eastern time", "central time", "time zone", "timezone", "utc", "gmt", "cet", "pt", "pst", "pdt", "et", "est"}, []string{"timezone", "time zone", "what time is it", "local time", "working hours"}},
	{[]string{"located in", "lives in", "based in", "works from"}, []string{"location", "where", "city"}},
	{[]string{"neovim", "nvim", "vim", "emacs", "vscode", "vs code", "editor", "ide"}, []string{"editor", "text editor", "what editor", "ide"}},
	{[]string{"tabs", "spaces", "indentation"}, []string{"indentation", "tabs or spaces", "formatting", "code style"}},
	{[]string{"dark mode", "light mode", "theme"}, []string{"theme", "color scheme", "appearance"}},
	{[]string{"summary", "summaries"}, []string{"summary", "summarize", "recap"}},
	{[]string{"pr", "prs", "pull request"}, []string{"pull request", "PR", "code review"}},
	{[]string{"deploy", "deploys", "release", "releases"}, []string{"deploy", "release", "ship"}},
}

// Cues returns the retrieval cues the scripted review gives content: at
// most 8, those of every group whose words it mentions.
func Cues(content string) []string {
	text := " " + strings.Join(strings.FieldsFunc(strings.ToLower(content), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), " ") + " "
	out := []string{}
	for _, g := range cueGroups {
		if slices.ContainsFunc(g.words, func(w string) bool { return strings.Contains(text, " "+w+" ") }) {
			for _, c := range g.cues {
				if len(out) < 8 && !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

var candRe = regexp.MustCompile(`^- id ([0-9a-f-]{36}) \([a-z]+\): (.+)$`)

// decide answers the update decision with rules a reader can check, on the
// content words of the new memory (N) and of its closest stored candidate
// (C), after folding synonyms and plurals:
//   - less than half of the shorter's words shared: a distinct memory, add;
//   - N and C name different values of one slot (dark/light mode, tabs/
//     spaces, one weekday or another), or N says it changed ("now",
//     "instead", "no longer", "switched"): N makes C wrong, supersede it;
//   - N says it adds ("also", "too", "as well"): update C, merged with N;
//   - N says nothing C does not: a duplicate of C;
//   - N says all C does and more: update C to N;
//   - otherwise (the same frame about different things, such as PR
//     summaries and incident reports): add.
func decide(req *fakellm.Request) fakellm.Reply {
	text := req.Messages[len(req.Messages)-1].Text
	newer, rest, _ := strings.Cut(text, "\nStored:\n")
	if i := strings.Index(newer, "): "); i >= 0 {
		newer = newer[i+3:]
	}
	var cands []Candidate
	for _, line := range strings.Split(rest, "\n") {
		if m := candRe.FindStringSubmatch(line); m != nil {
			cands = append(cands, Candidate{m[1], m[2]})
		}
	}
	d := Decide(newer, cands)
	if d.Supersedes == nil {
		d.Supersedes = []string{}
	}
	b, _ := json.Marshal(map[string]any{"decision": d.Decision, "target": d.Target, "merged": d.Merged, "supersedes": d.Supersedes})
	return fakellm.Reply{JSON: string(b)}
}

// Candidate is a stored memory the update decision is shown.
type Candidate struct{ ID, Content string }

// Decision is the scripted update decision, as DecideSchema has it.
type Decision struct {
	Decision, Target, Merged string
	Supersedes               []string
}

var (
	changedRe = regexp.MustCompile(`(?i)\b(now|instead|no longer|anymore|switched|changed)\b`)
	addedRe   = regexp.MustCompile(`(?i)^also\b\s*|\s*\b(also|too|as well)\b`)
)

// Decide is decide's rule, on parsed input.
func Decide(newer string, cands []Candidate) Decision {
	var best Candidate
	bestScore := 0.0
	for _, c := range cands {
		if s := overlap(newer, c.Content); s > bestScore {
			best, bestScore = c, s
		}
	}
	if best.ID == "" || bestScore < 0.5 {
		return Decision{Decision: "add"}
	}
	wn, wc := words(newer), words(best.Content)
	switch {
	case conflicts(wn, wc) || changedRe.MatchString(newer):
		var ids []string
		for _, c := range cands {
			if overlap(newer, c.Content) >= 0.5 && (conflicts(wn, words(c.Content)) || c.ID == best.ID) {
				ids = append(ids, c.ID)
			}
		}
		return Decision{Decision: "supersede", Supersedes: ids}
	case addedRe.MatchString(newer):
		added := strings.Join(strings.Fields(addedRe.ReplaceAllString(newer, " ")), " ")
		if p := Preference(added); p != "" {
			added = p // "I want a test plan" → "Wants a test plan"
		}
		return Decision{Decision: "update", Target: best.ID, Merged: best.Content + ", and " + lowerFirst(added)}
	case subset(wn, wc):
		return Decision{Decision: "duplicate", Target: best.ID}
	case subset(wc, wn):
		return Decision{Decision: "update", Target: best.ID, Merged: newer}
	}
	return Decision{Decision: "add"}
}

// alternatives are values that exclude each other for one slot: a person
// prefers dark mode or light mode, not both.
var alternatives = [][]string{
	{"dark", "light"},
	{"tab", "space"},
	{"vim", "neovim", "emacs", "vscode"},
	{"terse", "detailed", "verbose"},
	{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
	{"morning", "afternoon", "evening"},
}

// conflicts reports whether a and b name different values of one slot.
func conflicts(a, b map[string]bool) bool {
	for _, alt := range alternatives {
		var inA, inB []string
		for _, v := range alt {
			if a[v] && !b[v] {
				inA = append(inA, v)
			}
			if b[v] && !a[v] {
				inB = append(inB, v)
			}
		}
		if len(inA) > 0 && len(inB) > 0 {
			return true
		}
	}
	return false
}

func subset(a, b map[string]bool) bool {
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// overlap is the share of the shorter text's content words the other has.
func overlap(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	if len(wb) < len(wa) {
		wa, wb = wb, wa
	}
	n := 0
	for w := range wa {
		if wb[w] {
			n++
		}
	}
	return float64(n) / float64(len(wa))
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the a an for of to in at on and i is are be with by from that this it
		still want wants prefers prefer like likes also too well now instead really please`) {
		stop[w] = true
	}
}

// same are words that mean one thing here.
var same = map[string]string{"start": "first", "beginning": "first", "top": "first", "front": "first"}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if stop[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		if c, ok := same[w]; ok {
			w = c
		}
		out[w] = true
	}
	return out
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
