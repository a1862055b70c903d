package memory

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	deixis  = regexp.MustCompile(`(?i)\b(today|today's|yesterday|tonight|tomorrow|this (morning|afternoon|evening|week|month|quarter|sprint|year)|last (week|month|night|quarter)|right now|at the moment|so far|as of now|currently)\b`)
	figure  = regexp.MustCompile(`\d`)
	metric  = regexp.MustCompile(`(?i)\b(conversion|revenue|signups?|churn|dau|mau|traffic|latency|uptime|sales|mrr|arr|rate|cpu|errors?|visits|price)\b`)
	percent = regexp.MustCompile(`\d+(\.\d+)?\s?%`)
)

// IsVolatile reports point-in-time data that will be wrong tomorrow: a figure
// tied to now ("today's conversion is 8.4%") or a metric reading.
func IsVolatile(text string) bool {
	if deixis.MatchString(text) && figure.MatchString(text) {
		return true
	}
	return percent.MatchString(text) && metric.MatchString(text)
}

var (
	thirdPartyPref = regexp.MustCompile(`^(<@[A-Z0-9]+>|[A-Z][a-z]+( [A-Z][a-z]+)?|[Hh]e|[Ss]he|[Tt]hey|[Mm]y (wife|husband|partner|boss|manager|colleague|friend|mom|mother|dad|father|son|daughter|kid|teammate|coworker)|[Oo]ur (boss|manager|ceo|cto))('s)? (prefers?|likes?|loves?|hates?|dislikes?|wants?|needs?|is allergic|favou?rite|always|never|lives|was born)\b`)
	notNames       = map[string]bool{"Prefers": true, "Likes": true, "Loves": true, "Hates": true, "Dislikes": true, "Wants": true, "Needs": true, "Always": true, "Never": true, "The": true, "This": true, "That": true, "Our": true, "We": true, "Team": true, "Everyone": true, "Nobody": true, "It": true, "Is": true, "Uses": true, "Deploys": true, "Releases": true, "Use": true, "Ask": true, "When": true, "To": true, "Also": true, "Still": true, "Now": true}
	vagueStart     = regexp.MustCompile(`(?i)^(this|that|it|these|those|the thing|the above|what (i|we) said|same as before|as discussed|the usual)\b`)
)

// ThirdParty reports a personal fact about someone other than the speaker
// ("David prefers…"), which is not the speaker's to store. actorName is the
// speaker's own name, which is allowed.
func ThirdParty(text, actorName string) bool {
	m := thirdPartyPref.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	subject := m[1]
	if notNames[strings.Fields(subject)[0]] {
		return false
	}
	if actorName != "" && strings.EqualFold(strings.Fields(subject)[0], strings.Fields(actorName)[0]) {
		return false
	}
	return true
}

// IsVague reports text that is not self-contained enough to be useful later.
func IsVague(text string) bool {
	words := strings.Fields(text)
	if len(words) < 3 {
		return true
	}
	return vagueStart.MatchString(text) && len(words) < 8
}

var canonicalRules = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?i)^(please\s+)?(remember|note|keep in mind|don't forget)( that)?[:,]?\s+`), ""},
	{regexp.MustCompile(`(?i)^(the (actor|user|requester)|user|actor)\s+`), ""},
	{regexp.MustCompile(`(?i)^i\s+(really\s+)?(prefer)\b`), "Prefers"},
	{regexp.MustCompile(`(?i)^i\s+(really\s+)?(like)\b`), "Likes"},
	{regexp.MustCompile(`(?i)^i\s+(really\s+)?(love)\b`), "Loves"},
	{regexp.MustCompile(`(?i)^i\s+(really\s+)?(hate|can't stand|dislike)\b`), "Dislikes"},
	{regexp.MustCompile(`(?i)^i\s+(want)\b`), "Wants"},
	{regexp.MustCompile(`(?i)^i\s+(need)\b`), "Needs"},
	{regexp.MustCompile(`(?i)^i\s+(use)\b`), "Uses"},
	{regexp.MustCompile(`(?i)^i\s+(always)\b`), "Always"},
	{regexp.MustCompile(`(?i)^i\s+(never)\b`), "Never"},
	{regexp.MustCompile(`(?i)^i\s+(work)\b`), "Works"},
	{regexp.MustCompile(`(?i)^(i'm|i am)\b`), "Is"},
	{regexp.MustCompile(`(?i)^my\s+`), ""},
	{regexp.MustCompile(`(?i)^(prefers|likes|loves|dislikes|wants|needs|uses)\b`), "$1"},
}

// Canonicalize rewrites first-person text into a self-contained statement
// ("I prefer terse PR summaries" → "Prefers terse PR summaries").
func Canonicalize(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	for _, r := range canonicalRules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, " .!")
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	// "Prefers" must not be followed by "I" fragments like "Prefers I".
	return string(r)
}

// Normalize folds content for duplicate detection.
func Normalize(text string) string {
	var b strings.Builder
	space := false
	for _, c := range strings.ToLower(text) {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(c)
			space = false
		} else {
			space = true
		}
	}
	return b.String()
}

var (
	prefStart = regexp.MustCompile(`(?i)^(prefers|likes|loves|dislikes|hates|wants|needs|always|never|favou?rite)\b`)
	procWords = regexp.MustCompile(`(?i)^(to |when |before |after |always |run |use |deploy|release|ask |check |first\b)|\b(then|step \d|steps?:|by running|make sure)\b`)
)

// InferKind guesses a kind when the caller gave none.
func InferKind(content string) Kind {
	switch {
	case prefStart.MatchString(content):
		return KindPreference
	case procWords.MatchString(content):
		return KindProcedure
	}
	return KindKnowledge
}

// sameWords reports whether two normalized texts say the same words, ignoring
// filler words and plural endings.
func sameWords(a, b string) bool {
	wa, wb := wordSet(a), wordSet(b)
	if len(wa) != len(wb) {
		return false
	}
	for w := range wa {
		if !wb[w] {
			return false
		}
	}
	return true
}

var filler = map[string]bool{"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "in": true, "on": true, "and": true, "is": true, "are": true, "be": true, "that": true, "with": true, "please": true, "really": true, "always": true}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		if filler[w] {
			continue
		}
		switch {
		case strings.HasSuffix(w, "ies") && len(w) > 4:
			w = w[:len(w)-3] + "y"
		case strings.HasSuffix(w, "es") && len(w) > 4 && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
			w = w[:len(w)-2]
		case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}
