package detect

import (
	"encoding/base64"
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
	{name: "Slack webhook", category: CategorySecret, gate: gate{words: []string{"hooks.slack.com/"}}, re: regexp.MustCompile(`hooks\.slack\.com/(?:services|commands|actions|triggers|workflows)/[A-Za-z0-9/_-]+`)},
	{name: "GitHub token", category: CategorySecret, gate: gate{words: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}}, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{name: "GitLab token", category: CategorySecret, gate: gate{words: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glsoat-", "glagent-", "glimt-", "glffct-"}},
		re: regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|soat|agent|imt|ffct)-[A-Za-z0-9_-]{20,}`)},
	{name: "AWS access key", category: CategorySecret, gate: gate{words: []string{"akia", "asia", "agpa", "aida", "aroa"}}, re: regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`)},
	{name: "AWS secret key", category: CategorySecret, gate: gate{words: []string{"aws"}}, group: 1, re: regexp.MustCompile(`(?i)aws.{0,20}(?:secret|key).{0,10}[:=\s]\s*([A-Za-z0-9/+]{40})\b`)},
	{name: "Google API key", category: CategorySecret, gate: gate{words: []string{"aiza"}}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{name: "Stripe key", category: CategorySecret, gate: gate{words: []string{"k_live_", "k_test_", "whsec_"}}, re: regexp.MustCompile(`\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})`)},
	{name: "npm token", category: CategorySecret, gate: gate{words: []string{"npm_"}}, re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{name: "Anthropic key", category: CategorySecret, gate: gate{words: []string{"sk-ant-"}}, re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{name: "OpenAI key", category: CategorySecret, gate: gate{words: []string{"sk-"}}, re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
	{name: "JWT", category: CategorySecret, gate: gate{words: []string{"eyj"}}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{name: "private key", category: CategorySecret, gate: gate{words: []string{"-----begin"}}, re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s\\:,-]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?`)},
	// A key pasted without its BEGIN line: DER in base64 starts with MII/MIG
	// (an ASN.1 SEQUENCE), an OpenSSH key with "openssh-key-v1" encoded; any
	// other run of full 64-character base64 lines is a PEM body too.
	{name: "private key body", category: CategorySecret, gate: gate{words: []string{"mig", "mii", "mij", "mhccaq", "b3blbnnzac1rzxktdje"}}, valid: mixedCase,
		re: regexp.MustCompile(`(?m)\b(?:MI[GIJ]|MHcCAQ|b3BlbnNzaC1rZXktdjE)` + b64 + `{58,}={0,2}(?:\r?\n` + b64 + `{64})*(?:\r?\n` + pemLast + `$)?`)},
	// A run of full 64-character base64 lines, each alone on its line,
	// is a PEM body; its first line alone is one when it looks random
	// (pemLine), so a streamed answer never shows it before the second
	// line comes. A code block's fence may open the first line.
	{name: "PEM body", category: CategorySecret, gate: gate{minLen: 64, minDigits: 1}, group: 1, valid: pemBody,
		re: regexp.MustCompile("(?m)^(?:```)?(" + b64 + `{64}(?:\r?\n(?:` + b64 + `{64}\r?\n)*(?:` + b64 + `{64}|` + pemLast + `))?)\r?$`)},
	// An encryption key's value as MNEMO_ENCRYPTION_KEY holds it
	// (install.ParseKeyring): an id, a colon and 32 bytes in standard
	// base64, alone or as a keyring's entry, wherever it is written. The
	// id is kept; a digest (go.sum's h1:, sha256:) or a public key of the
	// same shape is not a key (encryptionKey).
	{name: "encryption key", category: CategorySecret, gate: gate{words: []string{":"}, minToken: 46}, group: 2, valid: encryptionKey,
		re: regexp.MustCompile(`\b([A-Za-z0-9_.-]{1,32}):([A-Za-z0-9+/]{43}=)(?:[^A-Za-z0-9+/=]|$)`)},
	// A password after its keyword, in any casing, after any separator: "is",
	// "was", "is now", "set to", ":", "=", "-", "->", "'s", or only a space
	// ("passwd Tr0ub4dor&3"), where the value must look like a password.
	{name: "password", category: CategorySecret, gate: gate{words: []string{"pass", "pw", "pin", "wachtwoord", "contrase", "senha", "mot de passe"}}, group: 3, valid: keywordCredential,
		re: regexp.MustCompile(`(?i)\b(password|passwd|passwort|passphrase|passcode|pass|pwd|pw|pin(?:\s+(?:code|number))?|wachtwoord|contrase(?:ñ|n)a|senha|mot\s+de\s+passe)\b["']?(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w.@-]+(?:\s+[\w.@-]+)?)?(\s*(?:is\s+now|is|was|now|will\s+be|(?:is\s+|was\s+)?(?:set|changed|reset)\s+to|:|=|->|=>|[-–—]|['’]s)\s*|\s+)(\S+)`)},
	// A secret named only by reference to one before it: "old password was
	// X, new one is Y", "and the new one: Y", "then changed it to Y". The
	// gate has a word of every alternative, "set" and "new" alone among
	// them: with "new one" and no "set", "I set it to Y" was found only
	// where another gate word happened to be in the text.
	{name: "password by reference", category: CategorySecret, gate: gate{words: []string{"new", "changed", "rotated", "set", "updated", "switched", "now", "replaced"}}, group: 1, valid: referencedCredential,
		re: regexp.MustCompile(`(?i)\b(?:(?:the\s+)?new\s+(?:one|value)|(?:changed|rotated|reset|updated|switched|set)\s+(?:it\s+|them\s+)?to|(?:it['’]?s|it\s+is)\s+now|now\s+(?:it['’]?s|it\s+is)|replaced\s+(?:it\s+)?with)\b\s*(?:is|was|will\s+be|:|=|-|->)?\s*(\S+)`)},
	// DB_PASSWORD=…, SLACK_BOT_TOKEN: …, as in an .env file or a config:
	// the value is a credential whatever it looks like, unless it is a
	// reference to one (${DB_PASSWORD}, os.environ["X"]). Any other X_KEY
	// (MNEMO_ENCRYPTION_KEY, MASTER_KEY) holds one only when its value
	// looks like a key (keySettingValue), so PRIMARY_KEY=id is a column. A
	// keyring's "id:base64, id:base64" is one value, spaces and all.
	{name: "credential setting", category: CategorySecret, gate: gate{words: []string{"_"}}, group: 2, valid: credentialSetting,
		re: regexp.MustCompile(`(?i)\b((?:[a-z][a-z0-9]*_)+(?:` + settingSuffixes + `))["']?\s*[:=]\s*["']?((?:[^\s"'` + "`" + `]*,[ \t]+[A-Za-z0-9_.-]{1,32}:[A-Za-z0-9+/]{16})*[^\s"'` + "`" + `]+)`)},
	{name: "credentials before a host", category: CategorySecret, gate: gate{words: []string{"@"}}, group: 2, valid: hostCredential,
		re: regexp.MustCompile(`(?i)(?:^|[\s(<"'])([a-z][a-z0-9._%+-]{0,63}):([^\s/@:<>()\[\]{}"'` + "`" + `,;]{1,128})@((?:[a-z0-9-]+\.)+[a-z]{2,}|[a-z][a-z0-9-]{1,62}|\d{1,3}(?:\.\d{1,3}){3})\b`)},
	{name: "HTTP authorization", category: CategorySecret, gate: gate{words: []string{"authorization"}}, group: 1,
		re: regexp.MustCompile(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:basic|bearer|token|digest)\s+([A-Za-z0-9+/._~-]{8,}={0,2})`)},
	{name: "password on a command line", category: CategorySecret, gate: gate{words: []string{"-u", "--user"}}, group: 1, valid: credentialValue(1),
		re: regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ =]["']?[^\s:"']+:([^\s"']+)`)},
	{name: "username and password", category: CategorySecret, gate: gate{words: []string{"user", "login"}}, group: 1, valid: all(credentialValue(1), notInURL),
		re: regexp.MustCompile(`(?i)\b(?:user(?:name)?|login)\s*[:=]?\s*\S+?\s*[,;/]?\s*(?:and\s+)?(?:pass(?:word)?|pw|pwd)\b\s*[:=]?\s*(\S+)`)},
	{name: "username / password", category: CategorySecret, gate: gate{words: []string{"/", ":"}}, group: 3, valid: all(slashPair, notInURL),
		re: regexp.MustCompile(`([A-Za-z0-9._%+@-]{2,64})(\s*[/:]\s*)(\S{6,64})`)},
	{name: "credential in URL", category: CategorySecret, gate: gate{words: []string{"://"}}, group: 1, valid: notURLPlaceholder, re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]*:([^/\s@]+)@`)},
	{name: "API key", category: CategorySecret, gate: gate{words: []string{"api", "secret", "access", "auth", "client", "bearer"}, minDigits: 1}, group: 1, valid: hasLetterAndDigit(1),
		re: regexp.MustCompile(`(?i)\b(?:api[_ -]?key|secret[_ -]?key|access[_ -]?token|auth[_ -]?token|client[_ -]?secret|bearer)\b\s*(?:is|was|:|=|-|->|=>)?\s*["']?([A-Za-z0-9_\-.]{16,})`)},
	{name: "secret token", category: CategorySecret, gate: gate{words: []string{"token", "secret", "signing"}, minDigits: 1}, group: 1, valid: hasLetterAndDigit(1),
		re: regexp.MustCompile(`(?i)\b(?:token|secret|signing[_ -]?key|webhook[_ -]?secret)\b\s*(?:is|was|:|=|-|->|=>)\s*["']?([A-Za-z0-9_\-./+=]{20,})`)},
	// Base64 after a credential keyword: "creds: YWRtaW46aHVudGVyMg==".
	{name: "base64 credential", category: CategorySecret, gate: gate{words: []string{"cred", "auth", "basic", "token", "secret", "pass", "pw", "key"}, minLen: 16, minToken: 12}, group: 1, valid: base64Credential,
		re: regexp.MustCompile(`(?i)\b(?:creds|credentials?|basic(?:\s+auth)?|auth|token|secret|password|passwd|pass|pw|key|api\s*key)\b["']?\s*(?:is|was|:|=|-|->)?\s*["']?([A-Za-z0-9+/]+={0,2})`)},
	// A key in dash-separated groups after its keyword: "deploy key:
	// 7f3a-91bc-44de-0a2f-9e81", "license key ABCDE-12345-FGHIJ".
	{name: "dash-separated key", category: CategorySecret, gate: gate{words: []string{"key", "token", "secret", "code"}, minDigits: 1, minToken: 14}, group: 1, valid: dashedKey,
		re: regexp.MustCompile(`(?i)\b(?:key|token|secret|(?:recovery|backup|activation|license|licence)\s+code)s?\b["']?\s*(?:is|was|:|=|-|->)?\s*["']?([A-Za-z0-9]{3,}(?:-[A-Za-z0-9]{3,}){2,})\b`)},
	// Azure: a storage account key or SAS signature in a connection
	// string, and an Entra ID client secret (gitleaks azure-ad-client-secret).
	{name: "Azure storage key", category: CategorySecret, gate: gate{words: []string{"accountkey", "sharedaccesskey", "sig="}}, group: 1,
		re: regexp.MustCompile(`(?:(?i:\b(?:AccountKey|SharedAccessKey)\s*=\s*)|[?&;](?i:sig)=)([A-Za-z0-9%+/]{20,}={0,2})`)},
	{name: "Azure client secret", category: CategorySecret, gate: gate{words: []string{"q~"}}, group: 1,
		re: regexp.MustCompile(`(?:^|[\s'"=:(,>])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})`)},
	// A Google Cloud service account key file; its private_key is the
	// private key detector's.
	{name: "GCP service account key", category: CategorySecret, gate: gate{words: []string{"private_key_id"}}, group: 1,
		re: regexp.MustCompile(`"private_key_id"\s*:\s*"([a-f0-9]{40})"`)},
	// ?access_token=…, &tavilyApiKey=…, #token=… in a URL: only the value
	// goes, and the rest of the URL stays (queryCredential). It comes last,
	// so a rule that knows the kind of credential names it.
	{name: "credential in URL query", category: CategorySecret, gate: gate{words: []string{"="}, minToken: 11}, group: 2, valid: queryCredential, re: queryParam},
}

// providerKeys are credentials whose prefix and length their provider
// documents, so the prefix names them wherever they appear. The formats
// are those of gitleaks' default rules (gitleaks/gitleaks
// config/gitleaks.toml at b58d3f1, rule ids in the comments), which cite
// each provider's documentation, and SonarSource's secrets rules where
// gitleaks has none (S6782 Docker Hub, S6765 Figma). A body must look
// random (randomBody), so "SG.example.placeholder" is not a key.
var providerKeys = []struct {
	name  string
	gates []string
	re    string
}{
	{"SendGrid key", []string{"sg."}, `\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{20,64}`},                                      // sendgrid-api-token
	{"Vault token", []string{"hvs.", "hvb.", "hvr."}, `\bhv[sbr]\.[A-Za-z0-9_-]{24,}`},                                         // vault-service-token, vault-batch-token; hvr. is a recovery token
	{"Terraform Cloud token", []string{"atlasv1"}, `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`},                        // hashicorp-tf-api-token
	{"Twilio key", []string{"sk"}, `\bSK[0-9a-fA-F]{32}\b`},                                                                    // twilio-api-key
	{"Mailgun key", []string{"key-"}, `\bkey-[0-9a-f]{32}\b`},                                                                  // mailgun-private-api-token
	{"DigitalOcean token", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `\bdo[opr]_v1_[a-f0-9]{64}\b`},                           // digitalocean-pat, -access-token, -refresh-token
	{"Shopify token", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`},              // shopify-*
	{"PyPI token", []string{"pypi-"}, `\bpypi-AgE[A-Za-z0-9_-]{40,}`},                                                          // pypi-upload-token (a macaroon: AgEIcHlwaS5vcmc…)
	{"Docker Hub token", []string{"dckr_"}, `\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`},                                           // SonarSource S6782
	{"Hugging Face token", []string{"hf_", "api_org_"}, `\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b`},                                // huggingface-access-token, -organization-api-token
	{"Databricks token", []string{"dapi"}, `\bdapi[a-f0-9]{32}(?:-\d)?\b`},                                                     // databricks-api-token
	{"Grafana token", []string{"glsa_", "glc_"}, `\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,3})`},     // grafana-service-account-token, grafana-cloud-api-token
	{"Grafana API key", []string{"eyjrijoi"}, `\beyJrIjoi[A-Za-z0-9]{40,}={0,3}`},                                              // grafana-api-key
	{"New Relic key", []string{"nrak-", "nrii-", "nrjs-"}, `\bNR(?:AK-[A-Za-z0-9]{27}|II-[A-Za-z0-9-]{32}|JS-[a-f0-9]{19})\b`}, // new-relic-user-api-key, -insert-key, -browser-api-token
	{"Sentry token", []string{"sntry"}, `\bsntry[us]_[A-Za-z0-9+/=_]{40,}`},                                                    // sentry-user-token, sentry-org-token
	{"Linear key", []string{"lin_api_"}, `\blin_api_[A-Za-z0-9]{40}\b`},                                                        // linear-api-key
	{"Postman key", []string{"pmak-"}, `\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b`},                                             // postman-api-token
	{"Doppler token", []string{"dp."}, `\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b`},                               // doppler-api-token
	{"Atlassian token", []string{"atatt"}, `\bATATT3[A-Za-z0-9_=-]{40,}`},                                                      // atlassian-api-token
	{"Figma token", []string{"figd_"}, `\bfigd_[A-Za-z0-9_-]{40,}`},                                                            // SonarSource S6765
	{"Notion token", []string{"ntn_", "secret_"}, `\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b`},               // notion-api-token
	{"Heroku key", []string{"hrku-"}, `\bHRKU-AA[A-Za-z0-9_-]{58}`},                                                            // heroku-api-key-v2
	{"Age secret key", []string{"age-secret-key-1"}, `\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`},               // age-secret-key
	{"1Password token", []string{"ops_eyj"}, `\bops_eyJ[A-Za-z0-9+/]{40,}={0,3}`},                                              // 1password-service-account-token
	{"Pulumi token", []string{"pul-"}, `\bpul-[a-f0-9]{40}\b`},                                                                 // pulumi-api-token
	{"PlanetScale token", []string{"pscale_"}, `\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}`},                             // planetscale-*
	{"Prefect key", []string{"pnu_"}, `\bpnu_[A-Za-z0-9]{36}\b`},                                                               // prefect-api-token
	{"RubyGems key", []string{"rubygems_"}, `\brubygems_[a-f0-9]{48}\b`},                                                       // rubygems-api-token
	{"Perplexity key", []string{"pplx-"}, `\bpplx-[A-Za-z0-9]{48}\b`},                                                          // perplexity-api-key
	{"Square token", []string{"sq0atp-", "sq0csp-"}, `\b(?:sq0atp|sq0csp)-[A-Za-z0-9_-]{22,60}`},                               // square-access-token
	{"Dynatrace token", []string{"dt0c01."}, `\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b`},                                   // dynatrace-api-token
	{"Alibaba key", []string{"ltai"}, `\bLTAI[A-Za-z0-9]{20}\b`},                                                               // alibaba-access-key-id
	{"Artifactory key", []string{"akcp"}, `\bAKCp[A-Za-z0-9]{69}\b`},                                                           // artifactory-api-key
	{"Fly.io token", []string{"fo1_", "fm1", "fm2"}, `\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{40,}={0,3})`},       // flyio-access-token
	{"Scalingo token", []string{"tk-us-"}, `\btk-us-[A-Za-z0-9_-]{48}\b`},                                                      // scalingo-api-token
	{"Sourcegraph token", []string{"sgp_"}, `\bsgp_(?:[a-fA-F0-9]{16}_)?[a-fA-F0-9]{40}\b`},                                    // sourcegraph-access-token
	{"Infracost key", []string{"ico-"}, `\bico-[A-Za-z0-9]{32}\b`},                                                             // infracost-api-token
	{"Adobe secret", []string{"p8e-"}, `\bp8e-[A-Za-z0-9]{32}\b`},                                                              // adobe-client-secret
	// Honeycomb documents an ingest key (docs.honeycomb.io/api/authentication)
	// as its key id, prefixed hc[x]ik_, and its secret concatenated: 26 + 32
	// characters. A configuration key has no prefix, and a management key's
	// hc[x]mk_ id is a label, not the secret.
	{"Honeycomb ingest key", []string{"ik_"}, `\bhc[a-z]ik_[A-Za-z0-9]{58}\b`},
}

// providerDetectors are providerKeys' detectors. They come before the
// other secrets, so a key after "api key is" is named by its provider.
// Every key is twenty characters or more without a space, which most
// messages do not hold, so their gates rarely look further.
var providerDetectors = func() []detector {
	ds := make([]detector, len(providerKeys))
	for i, p := range providerKeys {
		ds[i] = detector{name: p.name, category: CategorySecret, gate: gate{words: p.gates, minToken: 20}, valid: randomBody, re: regexp.MustCompile(p.re)}
	}
	return ds
}()

// mixedCase tells base64 from hex digests and words: random base64 of this
// length has both cases and a digit.
func mixedCase(text string, loc []int) bool {
	s := group(text, loc, 0)
	return strings.ContainsFunc(s, unicode.IsUpper) && strings.ContainsFunc(s, unicode.IsLower) && strings.ContainsFunc(s, unicode.IsDigit)
}

// pemBody accepts a run of base64 lines as a PEM body: mixed case and a
// digit, as random base64 of this length has (mixedCase), and for a first
// line alone, the look of random base64 (pemLine) and no digest named
// just before it ("the sha384 digest is" on the line above).
func pemBody(text string, loc []int) bool {
	s := group(text, loc, 1)
	if lower, upper, digit, _ := classes(s); !lower || !upper || !digit {
		return false
	}
	if strings.Contains(s, "\n") {
		return true
	}
	if digestNamed.MatchString(text[max(0, loc[2]-64):loc[2]]) {
		return false
	}
	return pemLine(s)
}

// digestNamed is a word that names a digest: SHA-384 in base64 is a line
// of 64 characters too.
var digestNamed = regexp.MustCompile(`(?i)\b(?:sha(?:-?\d+)?|hash\w*|digests?|checksums?|integrity|fingerprints?)\b`)

// pemLine tells a line of random base64 from an identifier or a path of
// the same length: random base64 changes between capitals, small letters,
// digits and symbols at about two characters in three (40 of 63 on
// average, under 22 about once in a million lines), an identifier at its
// humps (AbstractSingletonProxyFactoryBean…: 19).
func pemLine(s string) bool {
	kind := func(c byte) int {
		switch {
		case c >= 'A' && c <= 'Z':
			return 0
		case c >= 'a' && c <= 'z':
			return 1
		case c >= '0' && c <= '9':
			return 2
		}
		return 3
	}
	n := 0
	for i := 1; i < len(s); i++ {
		if kind(s[i]) != kind(s[i-1]) {
			n++
		}
	}
	return n >= 22
}

// encryptionKey accepts an id:base64 key of MNEMO_ENCRYPTION_KEY's shape
// unless its id names a digest, a signature or a public key (h1: in
// go.sum, sha256:, pubkey:) or its value is a placeholder: a key has both
// cases, as 43 random base64 characters all but always do.
func encryptionKey(text string, loc []int) bool {
	id := strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(group(text, loc, 1)))
	if notKeyIDs[id] || digestID.MatchString(id) {
		return false
	}
	v := group(text, loc, 2)
	lower, upper, _, _ := classes(strings.TrimRight(v, "="))
	return lower && upper && randomBody(text, []int{loc[4], loc[5]})
}

// notKeyIDs and digestID name what else is written id:base64 of 32 bytes.
var (
	notKeyIDs = wordSet(`hash digest checksum sum etag integrity fingerprint fp sig signature mac hmac
		pub pubkey public publickey pk nonce iv salt`)
	digestID = regexp.MustCompile(`^(?:h\d+|sha\d*|md\d|blake\w*|b3|xxh\w*|crc\d*|keccak\d*|sm3|ripemd\d*)$`)
)

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
		if len(v) < 4 || strings.ContainsRune("$<{%", rune(v[0])) || strings.Trim(v, "*xX•") == "" || strings.Contains(v, "://") || masked(v) {
			return false // a reference, a mask, or where it is kept
		}
		if quoted {
			return true
		}
		lower, upper, digit, symbol := classes(v)
		return digit || symbol || upper && (lower && !unicode.IsUpper(rune(v[0])) || strings.ContainsFunc(v[1:], unicode.IsUpper))
	}
}

// masked reports a value with a masked run in it: "hf_xxxxxxxx",
// "sk-****abcd".
func masked(v string) bool {
	low := strings.ToLower(v)
	return strings.Contains(low, "xxxx") || strings.Contains(v, "****") || strings.Contains(v, "••••")
}

// settingValue accepts the value of a credential setting unless it is a
// reference to one (${X}, $X, <your-token>, %X%, os.environ["X"],
// process.env.X), masked, or too short to be a credential.
func settingValue(v string) bool {
	v = strings.TrimRight(v, ".,;:!?)}]")
	if len(v) < 4 || strings.ContainsRune("$<{%", rune(v[0])) || strings.Trim(v, "*xX•.") == "" || strings.ContainsAny(v, "()[]") || masked(v) {
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

// settingSuffixes end a credential setting's name: DB_PASSWORD,
// SLACK_BOT_TOKEN, OPENAI_API_KEY, MNEMO_ENCRYPTION_KEY.
const settingSuffixes = `password|passwd|pass|pwd|passphrase|secret|token|api_?key|access_?key|private_?key|secret_?key|client_?secret|credentials?|key`

var (
	// settingName is a query parameter name the credential setting rule
	// reads as a setting (?db_password=, &access_token=).
	settingName = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])(?:[a-z][a-z0-9]*_)+(?:` + settingSuffixes + `)$`)
	// queryParam is one name=value of a URL's query or fragment (after ?,
	// &, ; or #). The value stops at the next parameter, a space, a quote,
	// or the end of a Slack link (<url|label>), and does not end on
	// sentence punctuation or a closing bracket.
	queryParam = regexp.MustCompile(`[?&#;]([A-Za-z0-9_.-]+)=([^&#;?\s"'` + "`" + `<>|]*[^&#;?\s"'` + "`" + `<>|.,:!)\]}])`)
	// keyringID is the id before a key in a keyring (k2:BASE64,k1:BASE64).
	keyringID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)
	keyChars  = regexp.MustCompile(`^[A-Za-z0-9+/_~.-]+={0,2}$`)
	fileExt   = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,4}$`)
)

// strongKeyLabels name a key that is a credential whatever its value
// looks like: X_API_KEY, X_SECRET_KEY.
var strongKeyLabels = wordSet(`api access private secret`)

// publicKeyLabels name keys that are published: a Stripe publishable key,
// a reCAPTCHA site key.
var publicKeyLabels = wordSet(`publishable site pub`)

// credentialSetting accepts a credential setting's value (settingAccepts)
// unless it is a URL query parameter that "credential in URL query"
// redacts, which keeps the parameters after it.
func credentialSetting(text string, loc []int) bool {
	if q := queryParamAt(text, loc[2]); q != nil && q[3] == loc[3] && queryCredential(text, q) {
		return false
	}
	return settingAccepts(group(text, loc, 1), group(text, loc, 2))
}

// settingAccepts reports whether a setting named name holds a credential
// in v: any value that is not a reference (settingValue), and for a key
// named by nothing stronger than "key" (MASTER_KEY, not X_API_KEY), a
// value that looks like one (keySettingValue).
func settingAccepts(name, v string) bool {
	if !settingValue(v) {
		return false
	}
	words := nameWords(name)
	if n := len(words); n >= 2 && words[n-1] == "key" && !strongKeyLabels[words[n-2]] {
		return keySettingValue(words[n-2], v)
	}
	return true
}

// keySettingValue accepts the value of an X_KEY setting when it looks like
// a key: twenty characters or more of base64, hex or a token's alphabet
// that look random (randomLooking), alone or as a keyring's comma-separated
// id:key entries. An identifier (PRIMARY_KEY, SORT_KEY, PUBLIC_KEY), a path
// (SSH_KEY=~/.ssh/id_ed25519) or a placeholder is not a credential.
func keySettingValue(label, v string) bool {
	if notKeyLabels[label] || publicKeyLabels[label] {
		return false
	}
	v = strings.TrimRight(v, ".,;:!?)}]")
	if filePath(v) || placeholder(v) {
		return false
	}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if id, key, ok := strings.Cut(part, ":"); ok && keyringID.MatchString(id) {
			part = key
		}
		if len(part) >= 20 && keyChars.MatchString(part) && randomLooking(part) {
			return true
		}
	}
	return false
}

// randomLooking tells a random key from an identifier or a word: both
// cases and a digit (base64, most tokens), hex with a digit and a letter,
// or letters with a digit in every five characters or more.
func randomLooking(s string) bool {
	body := strings.TrimRight(s, "=")
	lower, upper, digit, _ := classes(body)
	if lower && upper && digit {
		return true
	}
	hex := strings.Trim(body, "0123456789abcdef") == "" || strings.Trim(body, "0123456789ABCDEF") == ""
	return digit && (lower || upper) && (hex || len(digitsOf(body))*5 >= len(body))
}

// filePath reports a value that says where a key is kept, not the key.
func filePath(v string) bool {
	if strings.HasPrefix(v, "~") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || fileExt.MatchString(v) {
		return true
	}
	return strings.HasPrefix(v, "/") && strings.Count(v, "/") > 1 && !strings.ContainsFunc(v, unicode.IsUpper)
}

// notURLPlaceholder drops a URL's password that stands for one, as a
// connection string's form is written in documentation and in mnemo's own
// errors: postgres://user:pass@host, :password@, :<password>@,
// :${DB_PASSWORD}@, :$PGPASSWORD@.
func notURLPlaceholder(text string, loc []int) bool {
	v := group(text, loc, 1)
	switch strings.ToLower(v) {
	case "pass", "password", "passwd", "pwd":
		return false
	}
	return !(strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">")) && !envReference.MatchString(v) && !placeholder(v)
}

// envReference is a value that names an environment variable holding a
// credential rather than the credential: ${DB_PASSWORD}, $PGPASSWORD.
var envReference = regexp.MustCompile(`^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Z_][A-Z0-9_]*)$`)

// placeholder reports a value written in place of a credential.
func placeholder(v string) bool {
	low := strings.ToLower(v)
	for _, w := range []string{"your", "example", "placeholder", "redacted", "dummy"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return masked(v)
}

// queryParamAt returns queryParam's submatch indexes, into text, for the
// query parameter whose name holds byte i, or nil when that name is not
// one. No other queryParam match can cover the parameter's separator, so
// it is the match Detect sees.
func queryParamAt(text string, i int) []int {
	for i > 0 && (isAlnum(text[i-1]) || strings.IndexByte("_.-", text[i-1]) >= 0) {
		i--
	}
	if i == 0 || strings.IndexByte("?&#;", text[i-1]) < 0 {
		return nil
	}
	loc := queryParam.FindStringSubmatchIndex(text[i-1:])
	if loc == nil || loc[0] != 0 {
		return nil
	}
	for k := range loc {
		if loc[k] >= 0 {
			loc[k] += i - 1
		}
	}
	return loc
}

// queryCredential accepts a URL query parameter that holds a credential.
// A name the credential setting rule knows (access_token, db_password)
// is judged as that rule would; any other counts when its last word
// (tavilyApiKey: key; X-Amz-Signature: signature) names a credential
// (credentialParam) and its value is eight characters or more, with a
// digit or both cases, and no reference, path or placeholder, so
// ?q=token and ?sort_key=name stay.
func queryCredential(text string, loc []int) bool {
	name, v := group(text, loc, 1), group(text, loc, 2)
	if settingName.MatchString(name) {
		return settingAccepts(name, v)
	}
	if !credentialParam(name) || len(v) < 8 || !settingValue(v) || filePath(v) || placeholder(v) {
		return false
	}
	lower, upper, digit, _ := classes(v)
	return digit || lower && upper
}

// credentialParam reports a query parameter name whose last word names a
// credential: a key (not a sort, cache or public key), a token, a secret,
// a password, a signature, sig or auth.
func credentialParam(name string) bool {
	words := nameWords(name)
	last, prev := words[len(words)-1], ""
	if len(words) > 1 {
		prev = words[len(words)-2]
	}
	switch last {
	case "key":
		return !notKeyLabels[prev] && !publicKeyLabels[prev]
	case "sig", "auth", "pwd":
		return true
	}
	for _, s := range []string{"token", "secret", "password", "passwd", "passphrase", "signature",
		"apikey", "accesskey", "secretkey", "privatekey", "authkey", "signingkey", "masterkey", "encryptionkey", "subscriptionkey"} {
		if strings.HasSuffix(last, s) {
			return true
		}
	}
	return false
}

// nameWords splits a setting or parameter name into lower-case words at
// punctuation and camelCase humps: "tavilyApiKey" is tavily, api, key.
func nameWords(name string) []string {
	var words []string
	start := -1
	for i := 0; i <= len(name); i++ {
		if i == len(name) || !isAlnum(name[i]) {
			if start >= 0 {
				words = append(words, strings.ToLower(name[start:i]))
			}
			start = -1
			continue
		}
		if start >= 0 && name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
			words = append(words, strings.ToLower(name[start:i]))
			start = i
		}
		if start < 0 {
			start = i
		}
	}
	if len(words) == 0 {
		return []string{""}
	}
	return words
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

// keywordCredential accepts the value after a password keyword
// (credentialValue), with more proof where the keyword is weak: after only
// a space it must look like a password (eight characters or more, three
// kinds of character) or be quoted; after a bare "pin" it must be four to
// eight digits, so "pin: v1.2.3" is a dependency pinned.
func keywordCredential(text string, loc []int) bool {
	if !credentialValue(3)(text, loc) {
		return false
	}
	kw, sep, v := strings.ToLower(group(text, loc, 1)), group(text, loc, 2), group(text, loc, 3)
	v = strings.TrimRight(v, ".,;:!?)")
	if kw == "pin" {
		d := digitsOf(v)
		return d == v && len(d) >= 4 && len(d) <= 8
	}
	if strings.TrimSpace(sep) == "" {
		return strings.ContainsAny(v[:1], `"'`+"`") || strongPassword(v)
	}
	return true
}

// strongPassword reports a value of eight characters or more with three
// kinds of character (lower, upper, digit, symbol).
func strongPassword(v string) bool {
	n := 0
	lower, upper, digit, symbol := classes(v)
	for _, ok := range []bool{lower, upper, digit, symbol} {
		if ok {
			n++
		}
	}
	return len(v) >= 8 && n >= 3
}

var (
	credentialKeyword = regexp.MustCompile(`(?i)\b(?:password|passwd|passwort|passphrase|passcode|pass|pwd|pw|pin|token|secret|key|credentials?|creds)\b`)
	numericKeyword    = regexp.MustCompile(`(?i)\b(?:pin|passcode|code)\b`)
	algorithmName     = regexp.MustCompile(`(?i)^(?:rsa|aes|sha|hs|rs|es|ps|p|ed|ecdsa|dsa|hmac|gcm|cbc|tls|v)[-_]?\d+$`)
)

// referenceLookback is how far before "the new one is Y" referencedCredential
// looks for the credential it refers to. Redactor keeps more context than
// this before the text it redacts again (cutBytes).
const referenceLookback = 240

// referencedCredential accepts a value named by reference ("the new one
// is Y") when a credential keyword comes before it in the text, and the
// value looks like one (credentialValue): an algorithm ("RSA-4096") is
// not, and digits alone are only after "pin" or "passcode".
func referencedCredential(text string, loc []int) bool {
	before := text[max(0, loc[0]-referenceLookback):loc[0]]
	if !credentialKeyword.MatchString(before) || !credentialValue(1)(text, loc) {
		return false
	}
	v := strings.Trim(strings.TrimRight(group(text, loc, 1), ".,;:!?)"), `"'`+"`")
	if algorithmName.MatchString(v) {
		return false
	}
	if digitsOf(v) == v {
		return numericKeyword.MatchString(before)
	}
	return true
}

// base64Credential accepts base64 after a credential keyword when it
// decodes to user:password, or when it is long and random-looking (both
// cases and a digit, and padding, a + or a / or 32 characters), so "auth:
// OAuth2" or a lower-case word is not one.
func base64Credential(text string, loc []int) bool {
	v := group(text, loc, 1)
	body := strings.TrimRight(v, "=")
	if len(body) < 12 {
		return false
	}
	if dec, err := base64.RawStdEncoding.DecodeString(body); err == nil {
		if i := strings.IndexByte(string(dec), ':'); i > 0 && i < len(dec)-1 && printable(dec) {
			return true
		}
	}
	lower, upper, digit, _ := classes(body)
	return len(v) >= 20 && lower && upper && digit && (len(v) != len(body) || strings.ContainsAny(v, "+/") || len(v) >= 32)
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// notKeyLabels name keys that are identifiers, not credentials.
var notKeyLabels = wordSet(`idempotency cache primary foreign partition sort routing object issue jira dedup dedupe
	lookup hash shard row composite unique natural surrogate public request trace correlation message event order
	map dictionary registry license-plate group tracking`)

var labelSeparators = strings.NewReplacer("_", " ", "-", " ")

// dashedKey accepts dash-separated groups after a key keyword: twelve or
// more letters and digits, a letter somewhere, and a digit in at least
// half the groups, as random keys and UUIDs have ("team-alpha-2024" is a
// name). A key whose label names an identifier ("idempotency key",
// "public key", "cache key") is not a credential.
func dashedKey(text string, loc []int) bool {
	label := strings.Fields(strings.ToLower(labelSeparators.Replace(text[max(0, loc[0]-32):loc[0]])))
	if len(label) > 0 && notKeyLabels[label[len(label)-1]] {
		return false
	}
	v := group(text, loc, 1)
	parts := strings.Split(v, "-")
	withDigit := 0
	for _, p := range parts {
		if strings.ContainsFunc(p, unicode.IsDigit) {
			withDigit++
		}
	}
	return len(strings.ReplaceAll(v, "-", "")) >= 12 && strings.ContainsFunc(v, unicode.IsLetter) && withDigit*2 >= len(parts)
}

// notInURL drops a match that starts inside a URL, whose credentials are
// "credential in URL"'s: "user:pw@host/db?x=y" holds no "user … pw" pair.
// A RedactedMarker in the URL is read as part of it. It reads only the
// word the match starts in: a pass over the whole text for each match
// made Redact of a long text cost the square of its length.
func notInURL(text string, loc []int) bool {
	// wordBreak is a white space that ends a word: the space inside a
	// marker does not.
	wordBreak := func(i int) bool {
		if !strings.ContainsRune(" \t\r\n", rune(text[i])) {
			return false
		}
		j := i - strings.IndexByte(RedactedMarker, ' ')
		return j < 0 || !strings.HasPrefix(text[j:], RedactedMarker)
	}
	start := loc[0]
	for start > 0 && !wordBreak(start-1) {
		start--
	}
	end := loc[0]
	for end < len(text) && !wordBreak(end) {
		end++
	}
	return !strings.Contains(text[start:end], "://")
}

// randomBody drops a provider key that is a placeholder: a run of one
// character ("SK000000…", "xxxx"), or a word such as "example" or "your".
func randomBody(text string, loc []int) bool {
	s := group(text, loc, 0)
	low := strings.ToLower(s)
	for _, w := range []string{"xxxx", "****", "example", "your", "placeholder", "redacted", "dummy"} {
		if strings.Contains(low, w) {
			return false
		}
	}
	run := 1
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			run++
			if run >= 6 {
				return false
			}
		} else {
			run = 1
		}
	}
	return true
}
