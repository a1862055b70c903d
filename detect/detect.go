package detect

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Category names the kind of data a Finding is. Secrets are refused because
// they are credentials; the other categories are personal data that a shared
// memory must not hold (GDPR's special categories and their neighbours).
// Genetic data is health: a gene a person carries says what they may have.
type Category string

// The categories Detect reports.
const (
	CategorySecret       Category = "secret"
	CategoryGovernmentID Category = "government_id"
	CategoryPaymentCard  Category = "payment_card"
	CategoryBankAccount  Category = "bank_account"
	CategoryPhone        Category = "phone"
	CategoryHealth       Category = "health"
	CategoryFinances     Category = "finances"
	CategoryLegal        Category = "legal"
	CategorySexuality    Category = "sexuality"
	CategoryReligion     Category = "religion"
	CategoryPolitics     Category = "politics"
	CategoryUnion        Category = "union"
	// CategoryEthnicity is racial or ethnic origin.
	CategoryEthnicity Category = "ethnicity"
)

// Finding is one detected span of text: Start and End are byte offsets into
// the text Detect was given, End exclusive.
type Finding struct {
	Category Category
	Detector string
	Start    int
	End      int
}

// RedactedMarker replaces each secret in Redact's output.
const RedactedMarker = "[redacted secret]"

// detector is one rule. Rules favour precision: a structured number must pass
// its checksum (Luhn, mod-97, ABA, a national id's check digit) or its
// issuing rules, and a personal-category rule needs a predicate about a
// person ("takes antidepressants", "is a registered Democrat"), so ordinary
// work talk about those domains stays storable; the model review gets the
// categories by name and catches the paraphrases.
type detector struct {
	name     string
	category Category
	reason   string // for Sensitive; secrets are named by name alone
	re       *regexp.Regexp
	// group is the submatch reported as the Finding (0 is the whole match):
	// for "password is X" only X is the secret, so Redact keeps the context.
	group int
	// valid, when set, checks a match; loc is its submatch index slice.
	valid func(text string, loc []int) bool
	// gate is checked before re runs, which is most of Detect's cost.
	gate gate
	// isolated requires the span not to touch letters, digits or number
	// punctuation, so a card or phone number is never read out of the middle
	// of a longer id, version or timestamp.
	isolated bool
	// unlabelled drops a bare number right after a label that names it as
	// something else: "meeting id 345 678 9012", "part number 512-34-5678".
	unlabelled bool
}

// gate is a cheap necessary condition for a detector's match: one of words
// occurs in the case-folded text, one of terms occurs in it as a whole
// word, and the text has at least minDigits ASCII digits, minUpper ASCII
// capitals, minLen bytes and a run of minToken bytes without a space.
// Words are single words because the patterns allow any run of spaces
// between words. FuzzDetect checks that gates never change the findings.
type gate struct {
	words     []string
	terms     []string
	minDigits int
	minUpper  int
	minLen    int
	minToken  int
	bit       uint64 // this gate's bit in termBits, set by init
}

// termBits maps each gate term to the bits of the gates it opens, so one
// pass over a text's words opens every gate whose term it holds.
var termBits = map[string]uint64{}

func init() {
	n := 0
	for i := range detectors {
		g := &detectors[i].gate
		if len(g.terms) == 0 {
			continue
		}
		if n == 64 {
			panic("detect: more than 64 gates with terms")
		}
		g.bit = 1 << n
		n++
		for _, t := range g.terms {
			termBits[t] |= g.bit
		}
	}
}

// textFacts are what gates look at, computed once per text.
type textFacts struct {
	text      string
	folded    string
	digits    int
	upper     int
	token     int       // the longest run of bytes without ASCII white space
	bytes     [4]uint64 // the bytes folded holds, so most word gates skip Contains
	terms     uint64    // the bits of the gate terms the text holds
	termsRead bool
}

func factsOf(text string) textFacts {
	// Go's (?i) folds the Kelvin sign to k, which ToLower does too, and the
	// long s to s, which ToLower leaves alone.
	f := textFacts{text: text, folded: strings.ToLower(strings.ReplaceAll(text, "ſ", "s"))}
	run := 0
	for i := 0; i < len(f.folded); i++ {
		c := f.folded[i]
		f.bytes[c>>6] |= 1 << (c & 63)
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			run = 0
		} else if run++; run > f.token {
			f.token = run
		}
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= '0' && c <= '9':
			f.digits++
		case c >= 'A' && c <= 'Z':
			f.upper++
		}
	}
	return f
}

// termsHeld reads the text's words once, on the first gate that asks.
// (?i) matches the Kelvin sign as k and the long s as s, so a text that
// holds either opens every gate.
func (f *textFacts) termsHeld() uint64 {
	if !f.termsRead {
		f.termsRead = true
		f.terms = wordBits(f.text)
		if strings.ContainsAny(f.text, "\u212aſ") {
			f.terms = ^uint64(0)
		}
	}
	return f.terms
}

// wordBits ORs the termBits of text's words: runs of ASCII letters,
// lower-cased, that regexp's \b can bound, so a run beside a digit or an
// underscore ("x9hrt2" in a random token) is no word.
func wordBits(text string) uint64 {
	var bits uint64
	var buf [32]byte
	for i := 0; i < len(text); {
		c := text[i]
		if c|0x20 < 'a' || c|0x20 > 'z' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z' {
			j++
		}
		bounded := (i == 0 || !wordByte(text[i-1])) && (j == len(text) || !wordByte(text[j]))
		if n := j - i; bounded && n <= len(buf) {
			for k := 0; k < n; k++ {
				buf[k] = text[i+k] | 0x20
			}
			bits |= termBits[string(buf[:n])]
		}
		i = j
	}
	return bits
}

// wordByte reports a byte regexp's \b counts as part of a word.
func wordByte(c byte) bool { return isAlnum(c) || c == '_' }

func (g gate) open(f *textFacts) bool {
	if f.digits < g.minDigits || f.upper < g.minUpper || len(f.text) < g.minLen || f.token < g.minToken {
		return false
	}
	if g.bit != 0 && f.termsHeld()&g.bit == 0 {
		return false
	}
	if len(g.words) == 0 {
		return true
	}
	for _, w := range g.words {
		if f.has(w[0]) && f.has(w[len(w)-1]) && strings.Contains(f.folded, w) {
			return true
		}
	}
	return false
}

func (f *textFacts) has(c byte) bool { return f.bytes[c>>6]&(1<<(c&63)) != 0 }

// Shared sub-patterns. Apostrophes may be straight or curly.
const (
	// sep is what people put between groups of digits: any mix of spaces,
	// dots and dashes.
	sep = `[ .-]{0,3}`
)

// detectors in precedence order within a category: secrets (providers'
// keys first), then identity numbers, then personal categories. Names of secret detectors are shown to
// the person whose memory is refused, so they say what was found, never
// the value.
var detectors = slices.Concat(providerDetectors, secretDetectors, numberDetectors, personalDetectors, personalClassDetectors)

// reasons maps a detector name to its Sensitive reason.
var reasons = func() map[string]string {
	m := make(map[string]string, len(detectors))
	for _, d := range detectors {
		m[d.name] = d.reason
	}
	return m
}()

// Detect reports every secret and sensitive personal datum in text, ordered
// by Start and never overlapping. Where two findings would overlap, a secret
// wins, then a checksummed number, then a phone number, then a keyword rule,
// so Redact always sees the whole of a secret. Text inside an existing
// RedactedMarker is never reported, which makes Redact idempotent.
func Detect(text string) []Finding {
	return detect(text, nil)
}

// DetectSecret names the kind of credential text holds ("Slack token",
// "password", …), or "" when there is none. The name never includes the
// value, so it can be shown to the person and logged.
func DetectSecret(text string) string {
	if fs := detect(text, isSecret); len(fs) > 0 {
		return fs[0].Detector
	}
	return ""
}

// Sensitive reports the first personal-data finding in text that is not a
// secret (government id, payment card, bank account, phone, health,
// finances, legal, sexuality, religion, politics, union, ethnicity) and a
// reason to show the person, or "" and "" when there is none. Secrets are
// DetectSecret's.
func Sensitive(text string) (Category, string) {
	for _, f := range detect(text, func(c Category) bool { return c != CategorySecret }) {
		return f.Category, reasons[f.Detector]
	}
	return "", ""
}

// Redact replaces every secret in text with RedactedMarker and leaves the
// rest, phone numbers and other personal data included, as it was; it is for
// the session log, where the conversation must stay readable. It repeats
// until nothing is left, because removing one secret can change the context
// of another: each pass replaces text outside the markers, so it ends.
func Redact(text string) string {
	for {
		fs := detect(text, isSecret)
		if len(fs) == 0 {
			return text
		}
		var b strings.Builder
		b.Grow(len(text))
		prev := 0
		for _, f := range fs {
			b.WriteString(text[prev:f.Start])
			b.WriteString(RedactedMarker)
			prev = f.End
		}
		b.WriteString(text[prev:])
		text = b.String()
	}
}

func isSecret(c Category) bool { return c == CategorySecret }

// rank orders categories when findings overlap: lower wins.
func rank(c Category) int {
	switch c {
	case CategorySecret:
		return 0
	case CategoryGovernmentID, CategoryPaymentCard, CategoryBankAccount:
		return 1
	case CategoryPhone:
		return 2
	}
	return 3
}

func detect(text string, only func(Category) bool) []Finding {
	return scan(text, only, true)
}

// scan runs the detectors; gated is false only in the test that proves the
// gates change nothing.
func scan(text string, only func(Category) bool, gated bool) []Finding {
	type candidate struct {
		Finding
		rank, order int
	}
	markers := markerSpans(text)
	facts := factsOf(text)
	var cands []candidate
	for i, d := range detectors {
		if only != nil && !only(d.category) || gated && !d.gate.open(&facts) {
			continue
		}
		for _, loc := range d.re.FindAllStringSubmatchIndex(text, -1) {
			s, e := loc[2*d.group], loc[2*d.group+1]
			switch {
			case s < 0 || s == e:
				continue
			case d.isolated && !isolated(text, s, e):
				continue
			case d.valid != nil && !d.valid(text, loc):
				continue
			case d.unlabelled && labelled(text, s):
				continue
			case overlapsAny(markers, s, e):
				continue
			}
			cands = append(cands, candidate{Finding{d.category, d.name, s, e}, rank(d.category), i})
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.Start, b.Start),
			cmp.Compare(b.End-b.Start, a.End-a.Start), cmp.Compare(a.order, b.order))
	})
	var out []Finding
	for _, c := range cands {
		if !overlapsFindings(out, c.Start, c.End) {
			out = append(out, c.Finding)
		}
	}
	slices.SortFunc(out, func(a, b Finding) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

func markerSpans(text string) [][2]int {
	var spans [][2]int
	for off := 0; ; {
		i := strings.Index(text[off:], RedactedMarker)
		if i < 0 {
			return spans
		}
		s := off + i
		spans = append(spans, [2]int{s, s + len(RedactedMarker)})
		off = s + len(RedactedMarker)
	}
}

func overlapsAny(spans [][2]int, s, e int) bool {
	for _, sp := range spans {
		if s < sp[1] && sp[0] < e {
			return true
		}
	}
	return false
}

func overlapsFindings(fs []Finding, s, e int) bool {
	for _, f := range fs {
		if s < f.End && f.Start < e {
			return true
		}
	}
	return false
}

// isolated reports that text[s:e] stands alone: no letter, digit or number
// punctuation right before it, none right after, and no "." or "," that
// continues into another digit (a version, a decimal, a timestamp).
func isolated(text string, s, e int) bool {
	if s > 0 {
		c := text[s-1]
		if isAlnum(c) || strings.IndexByte("._-+/@\\", c) >= 0 {
			return false
		}
	}
	if e < len(text) {
		c := text[e]
		if isAlnum(c) || strings.IndexByte("_-+/@\\", c) >= 0 {
			return false
		}
		if (c == '.' || c == ',' || c == ':') && e+1 < len(text) && isAlnum(text[e+1]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func group(text string, loc []int, g int) string {
	if loc[2*g] < 0 {
		return ""
	}
	return text[loc[2*g]:loc[2*g+1]]
}

func digitsOf(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func digitCount(g, lo, hi int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		n := len(digitsOf(group(text, loc, g)))
		return n >= lo && n <= hi
	}
}
