package scripted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/learn"
)

var (
	lineRe     = regexp.MustCompile(`(?m)^\[(\d+)\] ([^,]+), (\w+): (.*)$`)
	sentenceRe = regexp.MustCompile(`.+?(?:[.!?]+(?:\s|$)|$)`) // "8.4%" stays in one sentence
	procRe     = regexp.MustCompile(`(?i)\b(always|every|before|after|must|go out|goes out)\b`)
	// A figure stated as a fact ("conversion was 8.4% yesterday").
	figureRe = regexp.MustCompile(`(?i)\b(was|were|is|are|hit|reached)\b.*\d`)
)

// extract proposes, naively, the speaker's preference for every first-person
// preference or opinion, a procedure for every statement of routine, and
// knowledge for every figure stated as a fact, citing the line it came from.
// It does not check who said what, nor whether a figure is durable: that is
// the router's and the review's job.
func extract(req *fakellm.Request) fakellm.Reply {
	var out []map[string]any
	for _, m := range lineRe.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Text, -1) {
		if strings.HasPrefix(m[2], "mnemo") {
			continue
		}
		idx := 0
		fmt.Sscan(m[1], &idx)
		text := strings.TrimSpace(strings.ReplaceAll(m[4], "@mnemo", ""))
		for _, sentence := range sentenceRe.FindAllString(text, -1) {
			if len(out) == learn.MaxProposals {
				break
			}
			sentence = strings.TrimSpace(sentence)
			if strings.HasSuffix(sentence, "?") {
				continue
			}
			plain := strings.TrimRight(strings.TrimPrefix(sentence, "FYI: "), ".!")
			switch {
			case Preference(plain) != "":
				out = append(out, proposal("preference", Preference(plain), idx))
			case procRe.MatchString(plain):
				out = append(out, proposal("procedure", upperFirst(plain), idx))
			case figureRe.MatchString(plain):
				out = append(out, proposal("knowledge", upperFirst(plain), idx))
			}
		}
	}
	if out == nil {
		out = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"memories": out})
	return fakellm.Reply{JSON: string(b)}
}

func proposal(kind, content string, line int) map[string]any {
	return map[string]any{"kind": kind, "content": content, "evidence": []int{line}, "expires": ""}
}

var (
	// "[For PR summaries, ]I [still ]want risk notes first"
	preferRe = regexp.MustCompile(`(?i)^(?:(?:hi|hey|honestly|tbh|fwiw|ngl|so|well|btw),?\s+)?(?:((?:for|in|on|with) [^,]+),\s*)?i ((?:really |still |also |now )*)(prefer|want|like)s? (.+)$`)
	// "i think tabs are better [than spaces]"
	opinionRe   = regexp.MustCompile(`(?i)^(?:(?:honestly|tbh|fwiw|ngl|so|well),?\s+)?i (?:really )?think ([a-z][a-z0-9 -]*?) (?:is|are) (?:better|best|nicer|the way to go)(?: than ([a-z0-9 -]+?))?(?:\s*,?\s*(?:tbh|honestly|imo|imho|lol))?$`)
	wantsAction = regexp.MustCompile(`(?i)^(you|to)\b`)
	verbs       = map[string]string{"prefer": "Prefers", "want": "Wants", "like": "Likes"}
)

// Preference rewrites a first-person preference or opinion the way a model
// states it, without "I": "For PR summaries, I still want risk notes first"
// → "Wants risk notes first for PR summaries"; "i think tabs are better
// than spaces" → "Prefers tabs over spaces". It returns "" for anything
// else.
func Preference(sentence string) string {
	s := strings.TrimRight(strings.TrimSpace(sentence), ".!")
	if m := opinionRe.FindStringSubmatch(s); m != nil {
		liked, other := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		if other == "" {
			other = alternativeTo(liked) // "tabs are better" than spaces
		}
		out := "Prefers " + liked
		if other != "" {
			out += " over " + other
		}
		return out
	}
	m := preferRe.FindStringSubmatch(s)
	if m == nil || strings.EqualFold(m[3], "want") && wantsAction.MatchString(m[4]) {
		return "" // "I want you to…" asks for something; it states no preference
	}
	out := verbs[strings.ToLower(m[3])] + " " + strings.TrimSpace(m[4])
	if strings.Contains(strings.ToLower(m[2]), "also") {
		// It adds to something said before; the update decision merges it.
		out = "Also " + strings.ToLower(out[:1]) + out[1:]
	}
	if m[1] != "" {
		out += " " + strings.ToLower(m[1][:1]) + m[1][1:]
	}
	return out
}

// alternativeTo names the one other value of a two-valued slot (tabs and
// spaces, dark and light mode), in the form of liked, or "".
func alternativeTo(liked string) string {
	w := strings.ToLower(liked)
	plural := len(w) > 3 && strings.HasSuffix(w, "s")
	w = strings.TrimSuffix(w, "s")
	for _, alt := range alternatives {
		if len(alt) == 2 && (alt[0] == w || alt[1] == w) {
			other := alt[0]
			if other == w {
				other = alt[1]
			}
			if plural {
				other += "s"
			}
			return other
		}
	}
	return ""
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
