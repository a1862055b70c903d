package detect

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Category names the kind of data a Finding is. Secrets are refused because
// they are credentials; the other categories are personal data that a shared
// memory must not hold (GDPR's special categories and their neighbours).
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
// its checksum (Luhn, mod-97, ABA) or its issuing rules, and a keyword rule
// needs a first-person statement, so ordinary work talk stays storable; the
// model review gets the categories by name and catches the paraphrases.
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
// occurs in the case-folded text, the text has at least minDigits ASCII
// digits and minLen bytes, and, with firstPerson, the word "I" or "my".
// Words are single words because the patterns allow any run of spaces
// between words. FuzzDetect checks that gates never change the findings.
type gate struct {
	words       []string
	minDigits   int
	minLen      int
	firstPerson bool
}

// textFacts are what gates look at, computed once per text.
type textFacts struct {
	text        string
	folded      string
	digits      int
	firstPerson bool
}

func factsOf(text string) textFacts {
	// Go's (?i) folds the Kelvin sign to k, which ToLower does too, and the
	// long s to s, which ToLower leaves alone.
	f := textFacts{text: text, folded: strings.ToLower(strings.ReplaceAll(text, "ſ", "s"))}
	for i := 0; i < len(text); i++ {
		if text[i] >= '0' && text[i] <= '9' {
			f.digits++
		}
	}
	f.firstPerson = hasFirstPerson(text)
	return f
}

// hasFirstPerson reports the word "I" or "my" in any ASCII case, with the
// ASCII word boundaries regexp's \b uses.
func hasFirstPerson(text string) bool {
	word := func(i int) bool { return i >= 0 && i < len(text) && (isAlnum(text[i]) || text[i] == '_') }
	for i := 0; i < len(text); i++ {
		if word(i - 1) {
			continue
		}
		switch c := text[i] | 0x20; {
		case c == 'i' && !word(i+1):
			return true
		case c == 'm' && i+1 < len(text) && text[i+1]|0x20 == 'y' && !word(i+2):
			return true
		}
	}
	return false
}

func (g gate) open(f *textFacts) bool {
	if f.digits < g.minDigits || len(f.text) < g.minLen || g.firstPerson && !f.firstPerson {
		return false
	}
	if len(g.words) == 0 {
		return true
	}
	for _, w := range g.words {
		if strings.Contains(f.folded, w) {
			return true
		}
	}
	return false
}

// Shared sub-patterns. Apostrophes may be straight or curly.
const (
	iAm   = `(?:i['’]m|i\s+am)`
	money = `(?:about\s+|around\s+|roughly\s+|over\s+|under\s+|~\s*)?[$€£]?\s?\d[\d,.]*(?:\s*(?:k|m|bn|thousand|million|grand|usd|eur|gbp|chf|dollars|euros|pounds)\b)?`
	b64   = `[A-Za-z0-9+/]`
	// healthTerms are conditions and treatments that, after "I have", "I'm",
	// "my" and the like, make a statement about the speaker's health. Words
	// that are also engineering talk ("disabled", "diagnosis") are left out.
	healthTerms = `(?:adhd|autism|autistic|asperger['’]?s|diabetes|diabetic|depression|depressed|anxiety|bipolar|ptsd|ocd|cancer|chemo(?:therapy)?|radiotherapy|tumou?r|hiv|epilepsy|epileptic|seizures|asthma|migraines?|dyslexi[ac]|schizophreni[ac]|eating\s+disorder|anorexi[ac]|bulimi[ac]|insomnia|long\s+covid|multiple\s+sclerosis|crohn['’]?s|c[o]?eliac|arthritis|hypertension|high\s+blood\s+pressure|heart\s+(?:condition|disease|attack)|disability|chronic\s+(?:pain|illness|fatigue)|pregnant|pregnancy|expecting\s+a\s+baby|miscarriage|ivf|fertility\s+treatment|panic\s+attacks?|addiction|alcoholism|alcoholic|therapy|therapist|psychiatrist|psychologist|counsell?ing|counsell?or|antidepressants?|insulin|medication|meds|prescription|surgery|medical\s+leave|sick\s+leave|disability\s+leave|rehab)`
	// careTerms follow "I take", "I see": treatment and the people who give
	// it, not "I see cancer data in staging".
	careTerms = `(?:therapy|therapist|psychiatrist|psychologist|counsell?or|antidepressants?|insulin|medication|meds|chemo(?:therapy)?|ssris?|adderall|ritalin|prozac|lithium|methadone)`
	// pemLast is the short last line of a PEM body. It must hold a digit, +,
	// / or padding, so "thanks" on the line after a key is left alone.
	pemLast = `(?:[A-Za-z0-9+/]*[0-9+/][A-Za-z0-9+/]*={0,2}|[A-Za-z0-9+/]+={1,2})`
	idTail  = `(?:\s+(?:number|no\.?|num|#))?\s*(?:is\s+|['’]s\s+|:\s*|=\s*)?`
	// sep is what people put between groups of digits: any mix of spaces,
	// dots and dashes.
	sep = `[ .-]{0,3}`
)

// detectors in precedence order within a category. Names of secret
// detectors are shown to the person whose memory is refused, so they say
// what was found, never the value.
var detectors = []detector{
	// Secrets.
	{name: "Slack token", category: CategorySecret, gate: gate{words: []string{"xox"}}, re: regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`)},
	{name: "Slack app token", category: CategorySecret, gate: gate{words: []string{"xapp-"}}, re: regexp.MustCompile(`\bxapp-\d-[A-Za-z0-9-]{10,}`)},
	{name: "Slack webhook", category: CategorySecret, gate: gate{words: []string{"hooks.slack.com/services/"}}, re: regexp.MustCompile(`hooks\.slack\.com/services/[A-Za-z0-9/]+`)},
	{name: "GitHub token", category: CategorySecret, gate: gate{words: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}}, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{name: "GitLab token", category: CategorySecret, gate: gate{words: []string{"glpat-"}}, re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{name: "AWS access key", category: CategorySecret, gate: gate{words: []string{"akia", "asia", "agpa", "aida", "aroa"}}, re: regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`)},
	{name: "AWS secret key", category: CategorySecret, gate: gate{words: []string{"aws"}}, group: 1, re: regexp.MustCompile(`(?i)aws.{0,20}(?:secret|key).{0,10}[:=\s]\s*([A-Za-z0-9/+]{40})\b`)},
	{name: "Google API key", category: CategorySecret, gate: gate{words: []string{"aiza"}}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{name: "Stripe key", category: CategorySecret, gate: gate{words: []string{"k_live_", "k_test_", "whsec_"}}, re: regexp.MustCompile(`\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})`)},
	{name: "npm token", category: CategorySecret, gate: gate{words: []string{"npm_"}}, re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{name: "Anthropic key", category: CategorySecret, gate: gate{words: []string{"sk-ant-"}}, re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{name: "OpenAI key", category: CategorySecret, gate: gate{words: []string{"sk-"}}, re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
	{name: "JWT", category: CategorySecret, gate: gate{words: []string{"eyj"}}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{name: "private key", category: CategorySecret, gate: gate{words: []string{"-----begin"}}, re: regexp.MustCompile(`-----BEGIN ([A-Z]+ )*PRIVATE KEY( BLOCK)?-----`)},
	// A key pasted without its BEGIN line: DER in base64 starts with MII/MIG
	// (an ASN.1 SEQUENCE), an OpenSSH key with "openssh-key-v1" encoded; any
	// other run of full 64-character base64 lines is a PEM body too.
	{name: "private key body", category: CategorySecret, gate: gate{words: []string{"mig", "mii", "mij", "mhccaq", "b3blbnnzac1rzxktdje"}}, valid: mixedCase,
		re: regexp.MustCompile(`(?m)\b(?:MI[GIJ]|MHcCAQ|b3BlbnNzaC1rZXktdjE)` + b64 + `{58,}={0,2}(?:\r?\n` + b64 + `{64})*(?:\r?\n` + pemLast + `$)?`)},
	{name: "PEM body", category: CategorySecret, gate: gate{minLen: 66, minDigits: 1}, valid: mixedCase,
		re: regexp.MustCompile(`(?m)^` + b64 + `{64}\r?\n(?:` + b64 + `{64}\r?\n)*(?:` + b64 + `{64}|` + pemLast + `)$`)},
	{name: "password", category: CategorySecret, gate: gate{words: []string{"pass", "pw", "pin"}}, group: 1, valid: credentialValue(1),
		re: regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|passcode|pwd|pw|pin code)\b["']?(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w.@-]+(?:\s+[\w.@-]+)?)?\s*(?:is|was|:|=|->|['’]s)\s*(\S+)`)},
	// DB_PASSWORD=…, SLACK_BOT_TOKEN: …, as in an .env file or a config:
	// the value is a credential whatever it looks like, unless it is a
	// reference to one (${DB_PASSWORD}, os.environ["X"]).
	{name: "credential setting", category: CategorySecret, gate: gate{words: []string{"_"}}, group: 1, valid: settingValue,
		re: regexp.MustCompile(`(?i)\b(?:[a-z][a-z0-9]*_)+(?:password|passwd|pass|pwd|passphrase|secret|token|api_?key|access_?key|private_?key|secret_?key|client_?secret|credentials?)["']?\s*[:=]\s*["']?([^\s"'` + "`" + `]+)`)},
	{name: "credentials before a host", category: CategorySecret, gate: gate{words: []string{"@"}}, group: 2, valid: hostCredential,
		re: regexp.MustCompile(`(?i)(?:^|[\s(<"'])([a-z][a-z0-9._%+-]{0,63}):([^\s/@:<>()\[\]{}"'` + "`" + `,;]{1,128})@((?:[a-z0-9-]+\.)+[a-z]{2,}|[a-z][a-z0-9-]{1,62}|\d{1,3}(?:\.\d{1,3}){3})\b`)},
	{name: "HTTP authorization", category: CategorySecret, gate: gate{words: []string{"authorization"}}, group: 1,
		re: regexp.MustCompile(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:basic|bearer|token|digest)\s+([A-Za-z0-9+/._~-]{8,}={0,2})`)},
	{name: "password on a command line", category: CategorySecret, gate: gate{words: []string{"-u", "--user"}}, group: 1, valid: credentialValue(1),
		re: regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ =]["']?[^\s:"']+:([^\s"']+)`)},
	{name: "username and password", category: CategorySecret, gate: gate{words: []string{"user", "login"}}, group: 1, valid: credentialValue(1),
		re: regexp.MustCompile(`(?i)\b(?:user(?:name)?|login)\s*[:=]?\s*\S+?\s*[,;/]?\s*(?:and\s+)?(?:pass(?:word)?|pw|pwd)\b\s*[:=]?\s*(\S+)`)},
	{name: "username / password", category: CategorySecret, gate: gate{words: []string{"/", ":"}}, group: 3, valid: slashPair,
		re: regexp.MustCompile(`([A-Za-z0-9._%+@-]{2,64})(\s*[/:]\s*)(\S{6,64})`)},
	{name: "credential in URL", category: CategorySecret, gate: gate{words: []string{"://"}}, group: 1, re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@`)},
	{name: "API key", category: CategorySecret, gate: gate{words: []string{"api", "secret", "access", "auth", "client", "bearer"}, minDigits: 1}, group: 1, valid: hasLetterAndDigit(1),
		re: regexp.MustCompile(`(?i)\b(?:api[_ -]?key|secret[_ -]?key|access[_ -]?token|auth[_ -]?token|client[_ -]?secret|bearer)\b\s*(?:is|:|=)?\s*["']?([A-Za-z0-9_\-.]{16,})`)},
	{name: "secret token", category: CategorySecret, gate: gate{words: []string{"token", "secret", "signing"}, minDigits: 1}, group: 1, valid: hasLetterAndDigit(1),
		re: regexp.MustCompile(`(?i)\b(?:token|secret|signing[_ -]?key|webhook[_ -]?secret)\b\s*(?:is|:|=)\s*["']?([A-Za-z0-9_\-./+=]{20,})`)},

	// Government ids.
	{name: "US SSN", category: CategoryGovernmentID, gate: gate{minDigits: 9}, reason: "a US Social Security number", isolated: true, unlabelled: true, valid: ssnValid(0),
		re: regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`)},
	{name: "US SSN after keyword", category: CategoryGovernmentID, gate: gate{words: []string{"ssn", "social"}, minDigits: 9}, reason: "a US Social Security number", group: 1, isolated: true, valid: ssnValid(1),
		re: regexp.MustCompile(`(?i)\b(?:ssn|social(?:\s+security)?(?:\s+(?:number|no\.?|#))?)\b\D{0,15}?(\d{3}` + sep + `\d{2}` + sep + `\d{4})\b`)},
	{name: "Canadian SIN", category: CategoryGovernmentID, gate: gate{words: []string{"sin", "insurance"}, minDigits: 9}, reason: "a Canadian Social Insurance Number", group: 1, isolated: true, valid: sinValid,
		re: regexp.MustCompile(`(?:\bSIN\b|(?i:\bsin\s+(?:number|no\.?|#)|\bsocial\s+insurance(?:\s+(?:number|no\.?|#))?))` + idTail + `(\d{3}` + sep + `\d{3}` + sep + `\d{3})\b`)},
	{name: "UK NI number", category: CategoryGovernmentID, gate: gate{minDigits: 6}, reason: "a UK National Insurance number", valid: ninoValid(0),
		re: regexp.MustCompile(`\b[A-Z]{2} \d{2} \d{2} \d{2} [A-D]\b`)},
	{name: "UK NI number after keyword", category: CategoryGovernmentID, gate: gate{words: []string{"ni", "national"}, minDigits: 6}, reason: "a UK National Insurance number", group: 1, valid: ninoValid(1),
		re: regexp.MustCompile(`(?i)\b(?:ni|nino|national insurance)` + idTail + `([A-Z]{2}` + sep + `\d{2}` + sep + `\d{2}` + sep + `\d{2}` + sep + `[A-D])\b`)},
	{name: "passport number", category: CategoryGovernmentID, gate: gate{words: []string{"passport"}, minDigits: 2}, reason: "a passport number", group: 1, valid: idNumber(1, 2),
		re: regexp.MustCompile(`(?i)\bpassport` + idTail + `([A-Z0-9]{6,9})\b`)},
	{name: "identity document number", category: CategoryGovernmentID, gate: gate{words: []string{"licen", "national", "card", "tax", "social", "personnummer", "aadhaar", "bsn"}, minDigits: 4}, reason: "an identity document number", group: 1, valid: idNumber(1, 4),
		re: regexp.MustCompile(`(?i)\b(?:driver['’]?s? licen[cs]e|driving licen[cs]e|national (?:id|identity)(?: card)?|id card|tax (?:id|identification)|social insurance|personnummer|aadhaar|bsn)` + idTail + `([A-Z0-9][A-Z0-9-]{4,18}[A-Z0-9])\b`)},

	// Payment cards and bank accounts.
	{name: "payment card number", category: CategoryPaymentCard, gate: gate{minDigits: 13}, reason: "a payment card number", isolated: true, unlabelled: true, valid: cardValid,
		re: regexp.MustCompile(`\b\d(?:` + sep + `\d){12,18}\b`)},
	{name: "IBAN", category: CategoryBankAccount, gate: gate{minDigits: 2, minLen: 15}, reason: "an IBAN bank account number", isolated: true, valid: ibanMatch,
		re: regexp.MustCompile(`(?i)\b[A-Z]{2}\d{2}(?:[ .-]?[A-Z0-9]{4}){2,7}(?:[ .-]?[A-Z0-9]{1,3})?\b`)},
	{name: "US routing number", category: CategoryBankAccount, gate: gate{words: []string{"routing", "aba"}, minDigits: 9}, reason: "a US bank routing number", group: 1, isolated: true, valid: abaValid,
		re: regexp.MustCompile(`(?i)\b(?:routing|aba)` + idTail + `(\d{9})\b`)},
	{name: "bank account number", category: CategoryBankAccount, gate: gate{words: []string{"account", "acct"}, minDigits: 6}, reason: "a bank account number", group: 1, isolated: true, valid: digitCount(1, 6, 17),
		re: regexp.MustCompile(`(?i)\b(?:bank|checking|savings|current)\s+(?:account|acct)\.?` + idTail + `(\d[\d -]{4,20}\d)\b`)},
	{name: "UK sort code", category: CategoryBankAccount, gate: gate{words: []string{"sort"}, minDigits: 6}, reason: "a UK bank sort code", group: 1, isolated: true,
		re: regexp.MustCompile(`(?i)\bsort\s*code` + idTail + `(\d{2}-\d{2}-\d{2})\b`)},

	// Phone numbers.
	{name: "international phone number", category: CategoryPhone, gate: gate{words: []string{"+"}, minDigits: 8}, reason: "a phone number", isolated: true, valid: digitCount(0, 8, 15),
		re: regexp.MustCompile(`\+[1-9]\d{0,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,5})){1,6}`)},
	{name: "US phone number", category: CategoryPhone, gate: gate{minDigits: 10}, reason: "a phone number", isolated: true, unlabelled: true, valid: nanpValid,
		re: regexp.MustCompile(`(?:\b1[ .-])?(?:\([2-9]\d{2}\)\s?|\b[2-9]\d{2}[ .-])\d{3}[ .-]\d{4}\b`)},
	{name: "phone number after keyword", category: CategoryPhone, gate: gate{words: []string{"phone", "mobile", "cell", "tel", "whatsapp", "call", "text", "reach", "number"}, minDigits: 7}, reason: "a phone number", group: 1, isolated: true, valid: phoneAfterKeyword,
		re: regexp.MustCompile(`(?i)\b(?:phone|mobile|cell|tel|telephone|whatsapp|call\s+me|text\s+me|reach\s+me|my\s+number)\b(?:\s+(?:number|no\.?|#))?\s*(?:is|at|on|:)?\s*(?:is\s+|at\s+|on\s+)?(\+?\(?\d[\d ().-]{5,20}\d)`)},

	// First-person special categories. Each needs "I/my" and a specific
	// term, because "the clinic team owns the health dashboard" is work.
	{name: "health condition", category: CategoryHealth, gate: gate{firstPerson: true}, reason: "a personal health statement (a condition, treatment or medication)", valid: notAnxietyAbout,
		re: regexp.MustCompile(`(?i)\b(?:i(?:['’]m|\s+am|\s+was|['’]ve|\s+have|\s+had|\s+got|\s+suffer(?:ed)?\s+from|\s+(?:live|struggle|deal|cope)\s+with)|my)\s+` +
			`(?:(?:been|being|got|gotten|getting|just|recently|finally|officially|newly|a|an|some|mild|severe|chronic|clinical|bad|really|pretty|very|on|in|taking|seeing|undergoing|recovering|from|treated|for|diagnosed|with|daily|regular|type\s+[12]|stage\s+[0-4iv]+)\s+){0,4}` +
			healthTerms + `\b`)},
	{name: "health care", category: CategoryHealth, gate: gate{firstPerson: true}, reason: "a personal health statement (a condition, treatment or medication)",
		re: regexp.MustCompile(`(?i)\bi\s+(?:take|took|started|stopped|need|see|saw|am\s+seeing|have\s+been\s+seeing)\s+(?:(?:a|an|my|some|daily|regular|new)\s+){0,2}` + careTerms + `\b`)},

	{name: "pay", category: CategoryFinances, gate: gate{words: []string{"salary", "comp", "take", "pay", "bonus", "raise", "rate", "equity", "rsu"}, minDigits: 1}, reason: "personal finances (pay)", valid: moneyAmount,
		re: regexp.MustCompile(`(?i)\b(?:(?:my\s+)?(?:salary|base\s+(?:salary|pay)|total\s+comp(?:ensation)?|compensation|take[- ]home(?:\s+pay)?|paycheck)|my\s+(?:pay|bonus|raise|rate|hourly\s+rate|day\s+rate|equity|rsus?|comp))\s+(?:is|was|will\s+be|is\s+now|went\s+up\s+to|of|:|=)\s+` + money)},
	{name: "earnings", category: CategoryFinances, gate: gate{words: []string{"make", "earn", "paid", "take", "bring"}, minDigits: 1, firstPerson: true}, reason: "personal finances (pay)", valid: earningsAmount,
		re: regexp.MustCompile(`(?i)\bi\s+(?:make|earn|get\s+paid|am\s+paid|['’]m\s+paid|take\s+home|bring\s+in)\s+` + money + `(\s+(?:a|an|per)\s+(?:year|month|week|hour)|\s*/\s*(?:h|hr|yr|mo)\b)?`)},
	{name: "job search", category: CategoryFinances, gate: gate{words: []string{"interviewing", "looking", "hunting", "offer", "quit", "resign", "leav", "notice"}}, reason: "a personal job search",
		re: regexp.MustCompile(`(?i)\b(?:interviewing\s+(?:elsewhere|(?:at|with)\s+(?:other|another)\s+compan(?:y|ies)|for\s+(?:other|another|a\s+new)\s+(?:jobs?|roles?|positions?))|` + iAm + `\s+(?:actively\s+|quietly\s+|secretly\s+)?(?:looking\s+for\s+(?:a\s+new|another)\s+(?:job|role|position)|job[- ]hunting|(?:thinking\s+(?:of|about)|considering|planning\s+(?:on|to))\s+(?:quit(?:ting)?|resign(?:ing)?|leav(?:e|ing)\s+(?:the\s+company|my\s+job)))|i\s+(?:got|have|received|['’]ve\s+got|['’]ve\s+received)\s+an?\s+job\s+offer|hand(?:ing|ed)\s+in\s+my\s+notice)\b`)},
	{name: "debt", category: CategoryFinances, gate: gate{words: []string{"debt", "loan", "mortgage", "overdraft", "arrears", "bills", "owe", "broke", "bankrupt", "behind"}}, reason: "personal debt",
		re: regexp.MustCompile(`(?i)\b(?:(?:i\s+(?:have|had|owe|got)|i['’]ve(?:\s+got)?|` + iAm + `\s+in|my)\s+(?:(?:a|an|some|huge|big|lot|lots|of|massive|serious|in|[$€£]?[\d,.]+k?)\s+){0,3}(?:debt|student\s+loans?|credit\s+card\s+debt|mortgage|payday\s+loans?|overdraft|arrears|medical\s+bills)|i\s+owe\s+(?:[$€£]\s?\d|\d[\d,.]*\s*(?:k|m|grand|thousand|dollars|euros|pounds|usd|eur|gbp)\b)|` + iAm + `\s+(?:broke|bankrupt|behind\s+on\s+(?:rent|my\s+(?:rent|mortgage|payments|bills)))|(?:filed|filing)\s+for\s+bankruptcy)\b`)},
	{name: "savings", category: CategoryFinances, gate: gate{words: []string{"balance", "savings", "worth", "credit", "pension", "bank"}}, reason: "personal savings or balance",
		re: regexp.MustCompile(`(?i)\b(?:my\s+(?:bank\s+|checking\s+|savings\s+|account\s+)?balance\s+(?:is|was|:)|my\s+(?:savings\s+(?:account|are|is|of)|net\s+worth|credit\s+score|credit\s+rating|pension\s+pot)\b|i\s+have\s+` + money + `\s+in\s+(?:my\s+)?(?:savings|the\s+bank|(?:bank|savings|checking)\s+account))`)},

	{name: "legal matter", category: CategoryLegal, gate: gate{words: []string{"arrest", "convict", "indict", "deport", "sued", "charged", "criminal", "probation", "parole", "dui", "dwi", "lawsuit", "divorce", "custody", "court", "immigration", "suing"}}, reason: "a personal legal matter (arrest, conviction, lawsuit)",
		re: regexp.MustCompile(`(?i)\b(?:i\s+(?:was|got|have\s+been|['’]ve\s+been|am\s+being|['’]m\s+being)\s+(?:arrested|convicted|indicted|deported|sued|charged\s+with)|i\s+have\s+a\s+(?:criminal\s+record|conviction)|` + iAm + `\s+on\s+(?:probation|parole)|my\s+(?:criminal\s+record|conviction|dui|dwi|probation\s+officer|parole\s+officer|lawsuit|divorce|custody\s+(?:case|hearing|battle)|court\s+(?:case|date|hearing)|immigration\s+(?:case|hearing|status))|` + iAm + `\s+(?:suing|getting\s+divorced|going\s+through\s+a\s+divorce))\b`)},
	{name: "sexual orientation", category: CategorySexuality, gate: gate{words: []string{"gay", "lesbian", "bi", "queer", "sexual", "trans", "binary"}, firstPerson: true}, reason: "sexual orientation or gender identity", valid: notHyphenated,
		re: regexp.MustCompile(`(?i)\b(?:` + iAm + `|i\s+came\s+out\s+as|i\s+identify\s+as)\s+(?:an?\s+)?(?:gay|lesbian|bisexual|bi|queer|asexual|pansexual|trans|transgender|non-?binary|homosexual|trans\s+(?:woman|man))\b`)},
	{name: "religion", category: CategoryReligion, gate: gate{words: []string{"christian", "muslim", "jew", "hindu", "buddhist", "sikh", "catholic", "protestant", "mormon", "atheist", "evangelical", "church", "mosque", "synagogue", "mass", "temple", "sabbath", "shabbat", "ramadan", "lent", "kippur", "religio"}}, reason: "religious belief",
		re: regexp.MustCompile(`(?i)\b(?:(?:` + iAm + `|i\s+was\s+raised)\s+(?:an?\s+)?(?:devout\s+|practi[cs]ing\s+|observant\s+)?(?:christian|muslim|jewish|jew|hindu|buddhist|sikh|catholic|protestant|mormon|atheist|evangelical)|i\s+(?:go\s+to|attend)\s+(?:church|mosque|synagogue|mass|temple)|i\s+observe\s+(?:the\s+)?(?:sabbath|shabbat|ramadan|lent)|(?:` + iAm + `|i)\s+fast(?:ing)?\s+(?:for|during)\s+(?:ramadan|lent|yom\s+kippur)|my\s+(?:religion|religious\s+(?:beliefs|views)))\b`)},
	{name: "political affiliation", category: CategoryPolitics, gate: gate{words: []string{"vote", "democrat", "republican", "gop", "tor", "socialist", "communist", "libertarian", "party", "politic"}}, reason: "political opinion or affiliation",
		re: regexp.MustCompile(`(?i)\b(?:i\s+(?:always\s+)?(?:vote|voted)\s+(?:for\s+)?(?:the\s+)?(?:democrats?|republicans?|gop|tor(?:y|ies)|(?:labou?r|conservative|green|liberal|democratic|republican|libertarian|reform)\s+(?:party|candidate))|` + iAm + `\s+(?:an?\s+)?(?:registered\s+|lifelong\s+)?(?:democrat|republican|socialist|communist|libertarian|tory)|` + iAm + `\s+(?:an?\s+)?member\s+of\s+the\s+(?:\w+\s+){1,3}party|my\s+(?:political\s+(?:views|beliefs|affiliation|party)|party\s+membership))\b`)},
	{name: "union membership", category: CategoryUnion, gate: gate{words: []string{"union"}}, reason: "trade union membership", valid: notOtherUnion,
		re: regexp.MustCompile(`(?i)\b(?:` + iAm + `\s+(?:an?\s+)?(?:union\s+member|member\s+of\s+(?:the\s+|a\s+)?(?:\w+\s+){0,3}union)|i\s+(?:joined|belong\s+to)\s+(?:the\s+|a\s+)?(?:\w+\s+){0,3}union|my\s+union\s+(?:rep|representative|steward|membership|dues))\b`)},
}

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
// finances, legal, sexuality, religion, politics, union) and a reason to show
// the person, or "" and "" when there is none. Secrets are DetectSecret's.
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

// mixedCase tells base64 from hex digests and words: random base64 of this
// length has both cases and a digit.
func mixedCase(text string, loc []int) bool {
	s := group(text, loc, 0)
	return strings.ContainsFunc(s, unicode.IsUpper) && strings.ContainsFunc(s, unicode.IsLower) && strings.ContainsFunc(s, unicode.IsDigit)
}

// credentialValue accepts the word after "password is" when it looks like a
// password rather than English ("password is stored in Vault"): quoted, or
// with a digit, a symbol or an inner capital; references such as ${DB_PASS},
// a masked ******** or a URL saying where it is kept are not secrets.
func credentialValue(g int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		v := group(text, loc, g)
		quoted := strings.ContainsRune(`"'`+"`", rune(v[0]))
		v = strings.Trim(v, `"'`+"`")
		v = strings.TrimRight(v, ".,;:!?)")
		if len(v) < 4 || strings.ContainsRune("$<{%", rune(v[0])) || strings.Trim(v, "*xX•") == "" || strings.Contains(v, "://") {
			return false // a reference, a mask, or where it is kept
		}
		if quoted {
			return true
		}
		lower, upper, digit, symbol := classes(v)
		return digit || symbol || upper && (lower && !unicode.IsUpper(rune(v[0])) || strings.ContainsFunc(v[1:], unicode.IsUpper))
	}
}

// settingValue accepts the value of a credential setting unless it is a
// reference to one (${X}, $X, <your-token>, %X%, os.environ["X"],
// process.env.X), masked, or too short to be a credential.
func settingValue(text string, loc []int) bool {
	v := strings.TrimRight(group(text, loc, 1), ".,;:!?)}]")
	if len(v) < 4 || strings.ContainsRune("$<{%", rune(v[0])) || strings.Trim(v, "*xX•.") == "" || strings.ContainsAny(v, "()[]") {
		return false
	}
	lower := strings.ToLower(v)
	for _, ref := range []string{"process.env", "os.environ", "env.", "secrets.", "vault:", "ssm:"} {
		if strings.HasPrefix(lower, ref) {
			return false
		}
	}
	switch lower {
	case "true", "false", "none", "null", "nil", "required", "optional", "empty", "unset", "redacted":
		return false
	}
	return true
}

// notAccounts are labels that come before "x:y@host" in ordinary text: an
// address or a mention, not a login.
var notAccounts = map[string]bool{"mailto": true, "email": true, "e-mail": true, "mail": true, "to": true, "from": true, "cc": true, "bcc": true,
	"contact": true, "sip": true, "xmpp": true, "tel": true, "re": true, "fw": true, "fwd": true, "ping": true, "cc'd": true, "via": true, "author": true, "owner": true}

// hostCredential accepts user:password@host unless the "user" is a label
// (mailto:, cc:) or the whole is an image tag and digest
// (nginx:1.25@sha256): a version is not a password.
func hostCredential(text string, loc []int) bool {
	user, pass, host := strings.ToLower(group(text, loc, 1)), group(text, loc, 2), strings.ToLower(group(text, loc, 3))
	if notAccounts[user] || strings.Trim(pass, "0123456789.") == "" {
		return false
	}
	switch host {
	case "sha1", "sha256", "sha384", "sha512", "md5", "latest":
		return false
	}
	if strings.ContainsAny(host, ".") || accountNames[user] {
		return true
	}
	// A host without a dot ("bastion") is also a word: "ETA:tomorrow@noon"
	// is a note; a password there needs a password's look.
	lower, upper, digit, symbol := classes(pass)
	return digit || symbol || lower && upper
}

// accountNames are user names common enough that "admin / Passw0rd" is a
// credential pair even without a symbol in the password.
var accountNames = map[string]bool{"admin": true, "administrator": true, "root": true, "user": true, "username": true, "guest": true, "test": true, "postgres": true, "sa": true, "ubuntu": true, "ec2-user": true, "deploy": true, "login": true}

// slashPair accepts "user / password" and "user:password" (no spaces around
// the colon) when the password is strong-looking. After a known account name
// or an email address three character classes are enough; otherwise only a
// slash pair counts and it needs all four, so "Note: Deploy-Window",
// "src / Foo2.java", "Root: rootOf(msg)", "CI/CD" and "10.0.0.1:5432" stay
// ordinary text.
func slashPair(text string, loc []int) bool {
	user, sep, pass := group(text, loc, 1), group(text, loc, 2), group(text, loc, 3)
	pass = strings.TrimRight(pass, ".,;:!?)]}")
	if len(pass) < 8 || strings.ContainsAny(pass, "/\\:@()[]{}<>,;\"'`") {
		return false // paths, URLs and code
	}
	if loc[0] > 0 && (isAlnum(text[loc[0]-1]) || strings.IndexByte("/:.", text[loc[0]-1]) >= 0) {
		return false // the middle of a path or URL
	}
	if strings.Contains(sep, ":") && sep != ":" {
		return false // "Root: x" is a field or a label, "root:x" a login
	}
	n := 0
	lower, upper, digit, symbol := classes(pass)
	for _, ok := range []bool{lower, upper, digit, symbol} {
		if ok {
			n++
		}
	}
	if accountNames[strings.ToLower(user)] || strings.Contains(user, "@") {
		return n >= 3
	}
	// Dots, dashes and underscores are identifier punctuation (Foo2.java,
	// my-Service_v2); a strong password has some other symbol.
	return sep != ":" && n == 4 && strings.ContainsFunc(pass, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("._-", r)
	})
}

func classes(s string) (lower, upper, digit, symbol bool) {
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		default:
			symbol = true
		}
	}
	return
}

func hasLetterAndDigit(g int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		v := group(text, loc, g)
		return strings.ContainsFunc(v, unicode.IsLetter) && strings.ContainsFunc(v, unicode.IsDigit)
	}
}

// ssnValid applies the SSA's issuing rules: no area 000, 666 or 9xx, no
// group 00, no serial 0000.
func ssnValid(g int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		d := digitsOf(group(text, loc, g))
		if len(d) != 9 {
			return false
		}
		area, grp, serial := d[:3], d[3:5], d[5:]
		return area != "000" && area != "666" && area[0] != '9' && grp != "00" && serial != "0000"
	}
}

// sinValid checks a Canadian Social Insurance Number: nine digits that
// pass Luhn.
func sinValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 1))
	return len(d) == 9 && luhnValid(d)
}

// ninoValid applies HMRC's prefix rules: the first letter is not D, F, I,
// Q, U or V, the second not those or O, and BG, GB, KN, NK, NT, TN, ZZ are
// never issued.
func ninoValid(g int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		v := strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "").Replace(group(text, loc, g)))
		if len(v) != 9 {
			return false
		}
		a, b := v[0], v[1]
		if strings.IndexByte("DFIQUV", a) >= 0 || strings.IndexByte("DFIQUVO", b) >= 0 {
			return false
		}
		switch v[:2] {
		case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
			return false
		}
		return true
	}
}

func idNumber(g, minDigits int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		return len(digitsOf(group(text, loc, g))) >= minDigits
	}
}

// cardValid accepts 13–19 digits that pass Luhn, start with a prefix a
// card network issues, at a length it issues, and, when they are grouped,
// come in groups of 3 to 8 digits, whatever the separators: a Slack ts
// (10 digits, a dot, 6) or a compact timestamp is not a card.
func cardValid(text string, loc []int) bool {
	s := group(text, loc, 0)
	groups := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '.' || r == '-' })
	if len(groups) > 1 {
		for _, g := range groups {
			if len(g) < 3 || len(g) > 8 {
				return false
			}
		}
	}
	d := digitsOf(s)
	return cardNetwork(d) && luhnValid(d)
}

// cardNetwork reports whether digits start with an issuer prefix (IIN) of
// a card network and have a length that network issues.
func cardNetwork(d string) bool {
	n := len(d)
	if n < 13 || n > 19 {
		return false
	}
	p := func(k int) int {
		v := 0
		for i := 0; i < k; i++ {
			v = v*10 + int(d[i]-'0')
		}
		return v
	}
	p2, p3, p4 := p(2), p(3), p(4)
	switch {
	case d[0] == '4': // Visa
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 >= 2200 && p4 <= 2204, // Mir
		p4 == 6011 || p2 == 65 || p3 >= 644 && p3 <= 649, // Discover
		p2 == 62,                 // UnionPay
		p4 >= 3528 && p4 <= 3589: // JCB
		return n >= 16
	case p3 >= 300 && p3 <= 305 || p2 == 36 || p2 == 38 || p2 == 39 || p4 == 3095: // Diners Club
		return n >= 14
	case p2 == 50 || p2 >= 56 && p2 <= 58 || p2 == 63 || p2 == 67: // Maestro
		return true
	}
	return false
}

// luhnValid reports whether a string of digits passes the Luhn check.
func luhnValid(digits string) bool {
	if digits == "" {
		return false
	}
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		n := int(c - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// ibanMatch accepts a match that is an IBAN, or starts with one: a word
// after a spaced IBAN ("BE68 5390 0754 7034 from") can read as a group.
func ibanMatch(text string, loc []int) bool {
	s := group(text, loc, 0)
	for {
		if ibanValid(s) {
			return true
		}
		i := strings.LastIndexAny(s, " .-")
		if i < 0 {
			return false
		}
		s = s[:i]
	}
}

// ibanLengths is the IBAN length per country of the SWIFT IBAN registry;
// a country that is not listed is not read as an IBAN.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// ibanValid reports whether s, in any case and with spaces, dots or dashes
// between its characters, is an IBAN of its country's length whose mod-97
// check (ISO 7064) gives 1.
func ibanValid(s string) bool {
	s = strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "").Replace(s))
	if len(s) < 4 || ibanLengths[s[:2]] != len(s) {
		return false
	}
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// abaValid checks a US routing number's weighted checksum (3, 7, 1).
func abaValid(text string, loc []int) bool {
	d := group(text, loc, 1)
	if len(d) != 9 {
		return false
	}
	sum := 0
	for i, w := range []int{3, 7, 1, 3, 7, 1, 3, 7, 1} {
		sum += int(d[i]-'0') * w
	}
	return sum%10 == 0 && d != "000000000"
}

var isoDate = regexp.MustCompile(`^\d{4}[-./]\d{2}[-./]\d{2}$`)

// phoneAfterKeyword accepts 7 to 15 digits that are not a date. A plain
// run of digits right after the keyword, with no "is", "at" or colon, must
// look like a phone number (10 digits or more, or a leading 0): "cell
// 1048576" is a spreadsheet cell.
func phoneAfterKeyword(text string, loc []int) bool {
	v := strings.TrimSpace(group(text, loc, 1))
	d := digitsOf(v)
	if len(d) < 7 || len(d) > 15 || isoDate.MatchString(v) {
		return false
	}
	if d != v {
		return true // grouped or with +, ( ): written as a phone number
	}
	before := strings.ToLower(strings.TrimRight(text[loc[0]:loc[2]], " "))
	connected := strings.HasSuffix(before, ":") || strings.HasSuffix(before, " is") || strings.HasSuffix(before, " at") || strings.HasSuffix(before, " on") || strings.HasSuffix(before, "#")
	return connected || len(d) >= 10 || d[0] == '0'
}

// nanpValid checks a North American number's area code and exchange: each
// starts with 2–9 and is not an N11 service code, so "meeting 345 178 9012"
// or "911 555 0100" is not read as a phone number.
func nanpValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 0))
	if len(d) == 11 {
		d = d[1:]
	}
	if len(d) != 10 {
		return false
	}
	area, exch := d[:3], d[3:6]
	return area[0] >= '2' && exch[0] >= '2' && area[1:] != "11" && exch[1:] != "11"
}

// numberLabel is a label that names the number after it as something other
// than a person's: a meeting, an order, a part, a ticket, a build.
var numberLabel = regexp.MustCompile(`(?i)\b(?:meeting|zoom|webex|webinar|conference|bridge|dial-in|room|part|sku|order|invoice|ticket|case|ref|reference|tracking|serial|model|item|catalog(?:ue)?|confirmation|booking|reservation|build|version|release|po|purchase\s+order|transaction|txn|request|job|issue|pr|run|batch|shipment|parcel|package|claim|asset|lot|patent|isbn|ean|upc|gtin|row|page|port)(?:\s+(?:id|number|no\.?|num|code|#))?\s*(?:is\s+|:\s*|#\s*|=\s*)?$`)

// labelled reports a number label right before text[s:].
func labelled(text string, s int) bool {
	return numberLabel.MatchString(text[max(0, s-48):s])
}

var moneyToken = regexp.MustCompile(`(?i)([$€£])?\s?(\d[\d,.]*)\s*(k|m|bn|thousand|million|grand|usd|eur|gbp|chf|dollars|euros|pounds)?\b`)

// moneyAmount accepts an amount that reads as money: a currency, a
// magnitude ("180k") or at least four digits, not "my bonus is 5 points".
func moneyAmount(text string, loc []int) bool {
	for _, m := range moneyToken.FindAllStringSubmatch(group(text, loc, 0), -1) {
		if m[1] != "" || m[3] != "" || len(digitsOf(m[2])) >= 4 {
			return true
		}
	}
	return false
}

// earningsAmount is stricter than moneyAmount: "I make 1000 requests" is
// load, so a bare number needs a period ("a year", "/h").
func earningsAmount(text string, loc []int) bool {
	if len(loc) > 2 && loc[2] >= 0 {
		return true
	}
	for _, m := range moneyToken.FindAllStringSubmatch(group(text, loc, 0), -1) {
		if m[1] != "" || m[3] != "" {
			return true
		}
	}
	return false
}

// notHyphenated drops "I'm bi-weekly on call".
func notHyphenated(text string, loc []int) bool {
	return loc[1] == len(text) || text[loc[1]] != '-'
}

var anxietyAbout = regexp.MustCompile(`(?i)anxiety\s*$`)

// notAnxietyAbout drops "my anxiety about the launch", a feeling, while
// "I have anxiety" stays a condition.
func notAnxietyAbout(text string, loc []int) bool {
	if !anxietyAbout.MatchString(text[loc[0]:loc[1]]) {
		return true
	}
	rest := strings.Fields(strings.ToLower(text[loc[1]:]))
	return len(rest) == 0 || (rest[0] != "about" && rest[0] != "over" && rest[0] != "around")
}

// notOtherUnion drops unions that are not trade unions.
func notOtherUnion(text string, loc []int) bool {
	s := strings.ToLower(text[loc[0]:loc[1]])
	for _, w := range []string{"credit union", "european union", "student union", "soviet union"} {
		if strings.Contains(s, w) {
			return false
		}
	}
	return true
}
