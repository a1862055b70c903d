package detect

import (
	"regexp"
	"strings"
)

const (
	iAm   = `(?:i['’]m|i\s+am)`
	money = `(?:about\s+|around\s+|roughly\s+|over\s+|under\s+|~\s*)?[$€£]?\s?\d[\d,.]*(?:\s*(?:k|m|bn|thousand|million|grand|usd|eur|gbp|chf|dollars|euros|pounds)\b)?`
	// healthTerms are conditions and treatments that, after "I have", "I'm",
	// "my" and the like, make a statement about the speaker's health. Words
	// that are also engineering talk ("disabled", "diagnosis") are left out.
	healthTerms = `(?:adhd|autism|autistic|asperger['’]?s|diabetes|diabetic|depression|depressed|anxiety|bipolar|ptsd|ocd|cancer|chemo(?:therapy)?|radiotherapy|tumou?r|hiv|epilepsy|epileptic|seizures|asthma|migraines?|dyslexi[ac]|schizophreni[ac]|eating\s+disorder|anorexi[ac]|bulimi[ac]|insomnia|long\s+covid|multiple\s+sclerosis|crohn['’]?s|c[o]?eliac|arthritis|hypertension|high\s+blood\s+pressure|heart\s+(?:condition|disease|attack)|disability|chronic\s+(?:pain|illness|fatigue)|pregnant|pregnancy|expecting\s+a\s+baby|miscarriage|ivf|fertility\s+treatment|panic\s+attacks?|addiction|alcoholism|alcoholic|therapy|therapist|psychiatrist|psychologist|counsell?ing|counsell?or|antidepressants?|insulin|medication|meds|prescription|surgery|medical\s+leave|sick\s+leave|disability\s+leave|rehab)`
	// careTerms follow "I take", "I see": treatment and the people who give
	// it, not "I see cancer data in staging".
	careTerms = `(?:therapy|therapist|psychiatrist|psychologist|counsell?or|antidepressants?|insulin|medication|meds|chemo(?:therapy)?|ssris?|adderall|ritalin|prozac|lithium|methadone)`
)

// personalDetectors find statements in GDPR's special categories and their
// neighbours: health, finances, legal matters, sexuality, religion,
// politics and union membership.
var personalDetectors = []detector{
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
