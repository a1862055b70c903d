package learn

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Line is one message of a turn's transcript as passive learning sees it.
type Line struct {
	Index     int
	Actor     provenance.Actor
	Authority provenance.Authority
	FromBot   bool
	// OptedOut marks a line by someone who turned off learning about
	// themselves: its text is withheld and it is never evidence.
	OptedOut bool
	Text     string
	TS       string
}

// Proposal is a memory the model proposes from a transcript, citing the
// indices of the lines that are its evidence.
type Proposal struct {
	Kind     memory.Kind `json:"kind"`
	Content  string      `json:"content"`
	Expires  string      `json:"expires"`
	Evidence []int       `json:"evidence"`
}

// Decision is the router's verdict on one proposal.
type Decision struct {
	Proposal Proposal
	Store    bool
	Reason   string
	Scope    memory.Scope
	// Speaker is who the memory is attributed to: the person the evidence
	// came from, never the model's choice.
	Speaker   provenance.Actor
	MessageTS string
	// Evidence is the text of the cited lines: the words that led to the
	// memory, which the write's detectors read too.
	Evidence []string
}

// Route decides deterministically whether a proposal may be stored, and for
// whom. instructionActors are the people who addressed the bot in the turn,
// in first-seen order.
//
//   - A preference becomes a personal memory of X only when every cited line
//     is an instruction by X and X is the turn's only instruction actor.
//     Otherwise it is dropped, never re-attributed.
//   - A procedure or knowledge becomes a channel memory (personal in a DM)
//     when every cited line was written by one person in the thread.
//   - Evidence from several people is dropped: a memory has one author.
//   - Questions, task requests and point-in-time figures are never evidence.
func Route(p Proposal, lines []Line, instructionActors []string, place provenance.Place) Decision {
	d := Decision{Proposal: p}
	drop := func(format string, args ...any) Decision {
		d.Store, d.Reason = false, fmt.Sprintf(format, args...)
		return d
	}
	if strings.TrimSpace(p.Content) == "" {
		return drop("empty content")
	}
	if len(p.Evidence) == 0 {
		return drop("no evidence cited")
	}
	var cited []Line
	seen := map[int]bool{}
	for _, i := range p.Evidence {
		if i < 0 || i >= len(lines) {
			return drop("evidence %d is not a line of the transcript", i)
		}
		if seen[i] {
			continue
		}
		seen[i] = true
		l := lines[i]
		if l.FromBot || !l.Actor.IsHuman() {
			return drop("evidence %d was not written by a person", i)
		}
		if l.OptedOut {
			return drop("evidence %d is by someone who turned off learning about them", i)
		}
		if !IsEvidence(l.Text) {
			return drop("evidence %d is a question, a request or a point-in-time figure", i)
		}
		cited = append(cited, l)
	}
	if memory.IsVolatile(p.Content) {
		return drop("point-in-time data")
	}
	// A memory has one author: the one its provenance names and whose
	// erasure deletes it. Evidence from several people has none that the
	// lines themselves choose (the model's order of them would), so it is
	// dropped whatever its kind.
	slices.SortFunc(cited, func(a, b Line) int { return cmp.Compare(a.Index, b.Index) })
	for _, l := range cited {
		d.Evidence = append(d.Evidence, l.Text)
	}
	speaker := cited[0].Actor
	for _, l := range cited {
		if l.Actor.Team != speaker.Team || l.Actor.ID != speaker.ID {
			return drop("%s cites several people", p.Kind)
		}
	}
	d.MessageTS = cited[len(cited)-1].TS
	switch p.Kind {
	case memory.KindPreference:
		for _, l := range cited {
			if l.Authority != provenance.Instruction {
				return drop("preference cites line %d, which is context, not an instruction", l.Index)
			}
		}
		if len(instructionActors) != 1 {
			return drop("preference in a turn with %d instruction actors", len(instructionActors))
		}
		if instructionActors[0] != speaker.ID {
			return drop("preference by someone other than the turn's instruction actor")
		}
		d.Store, d.Scope, d.Speaker, d.Reason = true, memory.ScopePersonal, speaker, "a preference stated by the person addressing the bot"
		return d
	case memory.KindProcedure, memory.KindKnowledge:
		d.Store, d.Speaker, d.Reason = true, speaker, "shared knowledge stated by a person in the thread"
		d.Scope = memory.ScopeChannel
		if place.Visibility == provenance.DM {
			d.Scope = memory.ScopePersonal
		}
		return d
	}
	return drop("unknown kind %q", p.Kind)
}

var (
	sentenceSplit = regexp.MustCompile(`[.!?\n]+\s*|;\s+`)
	questionStart = regexp.MustCompile(`(?i)^(what|why|how|when|where|who|which|whose|can|could|would|will|should|do|does|did|is|are|was|were|have|has|any idea)\b`)
	requestStart  = regexp.MustCompile(`(?i)^(@mnemo\s*,?\s*)?(please\s+)?(summari[sz]e|write|draft|create|make|find|show|tell|list|explain|review|fix|help|give|generate|translate|check|look|send|remind|schedule|compare|suggest|rewrite|answer|open|file|update|post)\b`)
	mentionTag    = regexp.MustCompile(`<@[A-Z0-9]+>|@mnemo\b`)
)

// IsEvidence reports whether a message states something durable: at least
// one sentence that is not a question, a task request or a point-in-time
// figure.
func IsEvidence(text string) bool {
	text = strings.TrimSpace(mentionTag.ReplaceAllString(text, ""))
	if memory.IsVolatile(text) {
		return false
	}
	// Split while keeping the question mark visible per sentence.
	rest := text
	for rest != "" {
		loc := sentenceSplit.FindStringIndex(rest)
		var s, sep string
		if loc == nil {
			s, rest = rest, ""
		} else {
			s, sep, rest = rest[:loc[0]], rest[loc[0]:loc[1]], rest[loc[1]:]
		}
		s = strings.TrimSpace(strings.TrimLeft(s, ",: "))
		if len(strings.Fields(s)) < 3 {
			continue
		}
		if strings.Contains(sep, "?") || questionStart.MatchString(s) || requestStart.MatchString(s) || memory.IsVolatile(s) {
			continue
		}
		return true
	}
	return false
}
