package memory

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/provenance"
)

// verdict is what the review found of one text a write would store.
type verdict struct {
	reason    string // why it may not be stored, or ""
	canonical string
	sensitive string // the most sensitive category any check found, or ""
	note      string // what the review changed from what was asked, and why
	cues      []string
	expires   string
}

// review is stage 3 of a write (see Remember), for every text a write
// would store: a new memory's, an update's merged text, and a memory
// restated without its sensitive part. said are the words that led to the
// write. The most sensitive verdict of every check wins; when the model
// itself names the memory's category and restates it without its
// sensitive part, and the restatement passes every check clean, it is
// stored instead, and the note says so. A restatement from a model that
// called the memory none is not taken, whatever the detectors found: it
// was not given as the memory without a part the model judged sensitive,
// so what it leaves out may be the part the detectors found. Otherwise the
// sensitive policy judges the memory.
func (s *Store) review(ctx context.Context, w *write, raw string, said []string) (verdict, error) {
	v, m, err := s.check(ctx, w, raw, said)
	if err != nil || v.reason != "" {
		return v, err
	}
	if m.text != "" && m.sensitive != "" && m.sensitive != thirdParty && v.sensitive != thirdParty {
		r, _, err := s.check(ctx, w, m.text, nil)
		if err != nil {
			return verdict{}, err
		}
		if r.reason == "" && r.sensitive == "" {
			r.note = "stored without the part that is sensitive personal data (" + v.sensitive + ")"
			return r, nil
		}
	}
	v.reason = sensitivePolicy(w.req, w.scope, v.sensitive)
	return v, nil
}

// check reviews one text, in order: the detectors, so that a secret or a
// number is refused as what it is and never reaches the model; the
// deterministic checks; then the model, which may canonicalize, name a
// category and restate. What the model gives to be stored (its sentence
// and its cues, which are stored and embedded with it) goes through the
// detectors as the text did: a secret or a number the model writes out,
// as it may from words that spell one ("five three six, two two, …"), is
// refused as the same in the text would be, and a special category found
// in it raises the memory's sensitivity, never lowers it. It returns the
// model's restatement too, with the category the model itself named,
// apart from the detectors'; the sensitive policy is review's, after it.
func (s *Store) check(ctx context.Context, w *write, raw string, said []string) (verdict, restatement, error) {
	v := verdict{canonical: Canonicalize(raw)}
	reject := func(reason string) (verdict, restatement, error) {
		v.reason = reason
		return v, restatement{}, nil
	}
	category := categoryIn(readings(*w, raw, v.canonical, said))
	name := w.req.Actor.Name
	if reason := refused(raw, v.canonical); reason != "" {
		return reject(reason)
	}
	if reason := deterministic(v.canonical, name); reason != "" && !(category != "" && reason == reasonVague) {
		// A short text the detectors find a special category in ("Is
		// bisexual") is not vague: it is judged by the sensitive policy.
		return reject(reason)
	}
	if s.reviewer == nil {
		v.sensitive = category
		return v, restatement{}, nil
	}
	m, err := s.reviewer.Review(ctx, v.canonical, w.kind)
	if err != nil {
		return v, restatement{}, fmt.Errorf("%w: %w", ErrReviewUnavailable, err)
	}
	if !m.Store {
		return reject(m.Reason)
	}
	t := strings.TrimSpace(sanitize(m.Canonical))
	if t != "" {
		// The model's sentence says what the text means, kept or not: what
		// it refuses or finds sensitive is the memory's.
		if reason := refused(t); reason != "" {
			return reject(reason)
		}
		category = strongest(category, categoryIn(readings(*w, t, t, nil)))
		if deterministic(t, name) == "" {
			v.canonical = t
		}
	}
	// The cues are stored and embedded with the sentence: each, and the
	// text they are embedded in, is screened as the sentence is. A cue with
	// a secret or a number refuses the memory rather than being dropped:
	// the model wrote it from the memory, so the memory holds what it
	// shows, in words the detectors did not read.
	if len(m.Cues) > 0 {
		screened := append([]string{db.EmbeddingText(v.canonical, db.JoinCues(m.Cues))}, m.Cues...)
		if reason := refused(screened...); reason != "" {
			return reject(reason)
		}
		category = strongest(category, categoryIn(screened))
	}
	// The detectors' category is certain; third_party outranks it.
	v.sensitive, v.cues, v.expires = strongest(category, m.Sensitive), m.Cues, m.Expires
	return v, restatement{text: strings.TrimSpace(sanitize(m.Restated)), sensitive: m.Sensitive}, nil
}

// restatement is what the model's review offers to store in a memory's
// place: text, the memory without its sensitive part, and sensitive, the
// category the model itself named ("" for none), whatever the detectors
// found.
type restatement struct {
	text, sensitive string
}

// refused is why the detectors refuse a memory that holds texts, or "": a
// secret, which is a credential, or a number (a government id, a payment
// card or bank account, a phone number), which is never stored. The text a
// write was given, the model's sentence and its cues are each refused for
// the same reasons.
func refused(texts ...string) string {
	for _, t := range texts {
		if secret := detect.DetectSecret(t); secret != "" {
			return "looks like a secret (" + secret + "); credentials are never stored"
		}
	}
	for _, t := range texts {
		if why := numberIn(t); why != "" {
			return "looks like personal data (" + why + "); ids, card and account numbers and phone numbers are never stored"
		}
	}
	return ""
}

// numberIn names the government id, payment card, bank account or phone
// number text holds, or "". Any finding counts, not only the first: a
// health statement before a number ("Takes insulin; SSN 536-22-1234") does
// not hide it.
func numberIn(text string) string {
	if c, why := detect.Sensitive(text); isNumber(c) {
		return why
	}
	found := detect.Detect(text)
	for _, f := range found {
		if !isNumber(f.Category) {
			continue
		}
		// Sensitive names the first finding: with the personal statements
		// before this one blanked out, it is this one.
		b := []byte(text)
		for _, g := range found {
			if g.Start < f.Start && !isNumber(g.Category) {
				copy(b[g.Start:g.End], strings.Repeat(" ", g.End-g.Start))
			}
		}
		if c, why := detect.Sensitive(string(b)); isNumber(c) && why != "" {
			return why
		}
		return f.Detector
	}
	return ""
}

// isNumber reports the categories of numbers that are never stored.
func isNumber(c detect.Category) bool {
	switch c {
	case detect.CategoryGovernmentID, detect.CategoryPaymentCard, detect.CategoryBankAccount, detect.CategoryPhone:
		return true
	}
	return false
}

// readings are the texts the detectors read for a write's special
// categories: the text as given, canonical, and the words that led to it;
// and, when the memory is about a person, canonical as that person would
// say it (asSaidBySubject).
func readings(w write, raw, canonical string, said []string) []string {
	texts := append([]string{raw, canonical}, said...)
	if w.subjectType == SubjectUser {
		texts = append(texts, asSaidBySubject(canonical)...)
	}
	return texts
}

// categoryIn is the first special category of personal data (health,
// finances, …) the detectors find in texts, or "".
func categoryIn(texts []string) string {
	for _, t := range texts {
		for _, f := range detect.Detect(t) {
			switch f.Category {
			case detect.CategorySecret, detect.CategoryGovernmentID, detect.CategoryPaymentCard, detect.CategoryBankAccount, detect.CategoryPhone:
				// Refused only where the memory itself holds one.
			default:
				return string(f.Category)
			}
		}
	}
	return ""
}

var (
	leadingAdverbs = regexp.MustCompile(`(?i)^(?:(?:also|always|never|still|now|usually|often|sometimes|regularly|currently|recently|really|only|just)\s+)+`)
	reasonClause   = regexp.MustCompile(`(?i)\b(for|because(?:\s+of)?|due\s+to|since|as|given|owing\s+to)\s+(?:(my|his|her|their|the|a|an|some)\s+)?(\pL.*)$`)
	// A reason may be set beside a statement rather than joined to it
	// by a word: in parentheses, or after a dash, a colon, a semicolon or
	// a lone comma. A dash between words ("gluten-free", "1-2pm") and a
	// colon in a time ("10:30") set nothing aside, and commas that list
	// ("Options: Christian, Muslim, none") are a list's.
	asideParens = regexp.MustCompile(`\(([^()]*)\)`)
	asideBreak  = regexp.MustCompile(`\s+[-–—]+\s+|[–—]|[:;]\s+`)
	asideLead   = regexp.MustCompile(`(?i)^(?:(?:my|his|her|their|the|a|an|some)\s+)`)
)

// maxAsides bounds the asides read in one memory: each is one more text
// for the detectors.
const maxAsides = 4

// determiners open a sentence about a thing.
var determiners = map[string]bool{
	"the": true, "this": true, "that": true, "these": true, "those": true, "a": true, "an": true,
	"our": true, "its": true, "it": true, "there": true, "we": true, "your": true,
}

// asSaidBySubject restates a canonical memory about a person the way that
// person would say it, for detectors that read personal statements in the
// first person: "Takes insulin daily" as "I take insulin daily"; "Diabetes
// diagnosis came in May" as "My diabetes diagnosis came in May"; a reason
// in it as theirs: "Prefers remote Fridays for chemotherapy" as "my
// chemotherapy"; and a reason set aside as theirs too, however it is set:
// "Prefers no meetings on Tuesday mornings (therapy)", "Prefers remote
// Fridays — chemo days", "Doesn't drink; AA" as "my therapy", "my chemo
// days", "my AA". A role said with "as a" is what the person is, not
// theirs: "Volunteers as a mental health first aider" is read as "I am
// mental health first aider", never "my mental health". A memory that
// opens with a determiner is about a thing ("The release came out last
// year"), and is read as the person's only in its reasons.
func asSaidBySubject(canonical string) []string {
	verb, tail, _ := strings.Cut(leadingAdverbs.ReplaceAllString(canonical, ""), " ")
	var out []string
	if !determiners[strings.ToLower(verb)] {
		out = append(out, "I "+baseVerb(verb)+" "+tail, "My "+canonical)
	}
	if m := reasonClause.FindStringSubmatch(canonical); m != nil {
		verb, tail, _ := strings.Cut(m[3], " ")
		role := strings.EqualFold(m[1], "as") && (strings.EqualFold(m[2], "a") || strings.EqualFold(m[2], "an"))
		if !role {
			out = append(out, "my "+m[3])
		}
		out = append(out, "I am "+m[3], "I "+baseVerb(verb)+" "+tail)
	}
	// An aside is read as the person's only: the detectors read a state
	// or an identity set aside ("(pregnant)") in the text itself.
	for _, a := range asides(canonical) {
		out = append(out, "my "+a)
	}
	return out
}

// asides are the parts of canonical set aside from its statement, in
// parentheses or after a dash, a colon, a semicolon or a lone comma,
// without a leading "my" or "the", at most maxAsides.
func asides(canonical string) []string {
	var out []string
	add := func(a string) {
		if a = strings.TrimSpace(asideLead.ReplaceAllString(strings.TrimSpace(a), "")); a != "" && len(out) < maxAsides {
			out = append(out, a)
		}
	}
	for _, m := range asideParens.FindAllStringSubmatch(canonical, maxAsides) {
		add(m[1])
	}
	rest := asideParens.ReplaceAllString(canonical, " ")
	for _, p := range asideBreak.Split(rest, maxAsides+1)[1:] {
		add(p)
	}
	if strings.Count(rest, ", ") == 1 {
		_, p, _ := strings.Cut(rest, ", ")
		add(p)
	}
	return out
}

// baseVerb is the first-person form of a third-person verb ("takes" →
// "take"); other words come back lower-cased.
func baseVerb(word string) string {
	w := strings.ToLower(word)
	switch w {
	case "is":
		return "am"
	case "has":
		return "have"
	case "does":
		return "do"
	case "goes":
		return "go"
	case "was":
		return w
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes") || strings.HasSuffix(w, "oes")):
		return w[:len(w)-2]
	case len(w) > 2 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// deterministic is the review's checks that need no model, or "" when the
// text passes them: empty or over-long text, point-in-time data, a third
// party's personal fact, vague text. Secrets and numbers are refused before
// them (refused).
func deterministic(canonical, actorName string) string {
	switch {
	case strings.TrimSpace(canonical) == "":
		return "nothing to remember: the content is empty"
	case len([]rune(canonical)) > MaxContentChars:
		return fmt.Sprintf("too long: %d characters, the limit is %d; state it in one self-contained sentence", len([]rune(canonical)), MaxContentChars)
	case IsVolatile(canonical):
		return "point-in-time data that will be out of date soon; it is not stored"
	case ThirdParty(canonical, actorName):
		return "a personal fact about someone else; only they can ask to remember it"
	case IsVague(canonical):
		return reasonVague
	}
	return ""
}

const thirdParty = "third_party"

const reasonVague = "too vague to be useful later; say it in a self-contained sentence"

// strongest is the sensitive category of what several checks or sources
// found: third_party (which no one but its subject may store) before any
// other, any other before none, and otherwise the first found.
func strongest(categories ...string) string {
	out := ""
	for _, c := range categories {
		if c == thirdParty {
			return c
		}
		if out == "" {
			out = c
		}
	}
	return out
}

// sensitivePolicy says why a memory in a sensitive category may not be
// stored, or "". Such a memory is never learned from conversation, never
// shared, and kept only where its subject said it in private; there it
// never leaves that place.
func sensitivePolicy(req WriteRequest, scope Scope, category string) string {
	switch {
	case category == "":
		return ""
	case category == thirdParty:
		return "a personal fact about someone else; only they can ask to remember it"
	case req.WrittenBy == provenance.ByPassive:
		return "sensitive personal data (" + category + ") is never learned from conversation"
	case scope != ScopePersonal:
		return "sensitive personal data (" + category + ") is only kept as a person's own memory, never shared"
	case req.Place.Visibility == provenance.Public:
		return "sensitive personal data (" + category + ") is only kept when you tell me in a DM or a private conversation, and it stays there"
	}
	return ""
}

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
// ("I prefer terse PR summaries" → "Prefers terse PR summaries"), without
// NUL characters, invalid UTF-8, control characters and bidirectional
// overrides (sanitize).
func Canonicalize(text string) string {
	s := strings.Join(strings.Fields(sanitize(text)), " ")
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

// sanitize is text the database can store or be asked about, and a
// terminal can show: db.Sanitize, the rule the thread's log and a turn's
// answer follow too. A client of the MCP server, a slash command or a
// model may send a NUL, which PostgreSQL refuses even in a query's
// argument, or a terminal escape. A memory's text, a forget's reason and
// every search and list query go through it.
func sanitize(s string) string { return db.Sanitize(s) }

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
