package detect

import (
	"regexp"
	"strings"
	"unicode"
)

const (
	b64 = `[A-Za-z0-9+/]`
	// pemLast is the short last line of a PEM body. It must hold a digit, +,
	// / or padding, so "thanks" on the line after a key is left alone.
	pemLast = `(?:[A-Za-z0-9+/]*[0-9+/][A-Za-z0-9+/]*={0,2}|[A-Za-z0-9+/]+={1,2})`
)

// secretDetectors find credentials, which are refused and redacted.
var secretDetectors = []detector{
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
