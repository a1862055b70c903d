package detect

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type corpusEntry struct {
	Text string   `json:"text"`
	Want Category `json:"want"`
	Note string   `json:"note"`
}

// loadCorpus reads memory's labelled corpus, which memory also runs
// through its write path, and then detect's own secret corpus: entries for
// secret rules written here (an X_KEY setting, a URL query credential, a
// Honeycomb key) and the ordinary text beside them that must stay.
func loadCorpus(tb testing.TB) []corpusEntry {
	tb.Helper()
	var entries []corpusEntry
	for _, path := range []string{"../memory/testdata/detectors.json", "testdata/secret_corpus.json"} {
		raw, err := os.ReadFile(path)
		require.NoError(tb, err)
		var some []corpusEntry
		require.NoError(tb, json.Unmarshal(raw, &some), path)
		entries = append(entries, some...)
	}
	return entries
}

// loadStatements reads memory's sensitivity corpus and its blind set's
// dev half: statements about people, where the personal-category rules and
// their gates are busiest. Only the gate test and the fuzz seeds use them
// here. The blind set's held-out half is scored in memory alone, and
// never used here, not even as inputs.
func loadStatements(tb testing.TB) []string {
	tb.Helper()
	var texts []string
	for _, f := range []string{"sensitive_statements.json", "sensitive_statements_blind.json"} {
		raw, err := os.ReadFile("../memory/testdata/" + f)
		require.NoError(tb, err)
		var entries []struct{ Text, Split string }
		require.NoError(tb, json.Unmarshal(raw, &entries))
		for _, e := range entries {
			if e.Split != "held-out" {
				texts = append(texts, e.Text)
			}
		}
	}
	return texts
}

// Every corpus entry is checked: its first finding has the wanted category
// (none for a negative), and DetectSecret, Sensitive and Redact agree.
func TestDetectCorpus(t *testing.T) {
	t.Parallel()
	entries := loadCorpus(t)
	fired := map[string]bool{}
	positives, negatives := 0, 0
	for i, e := range entries {
		if e.Want == "" {
			negatives++
		} else {
			positives++
		}
		for _, f := range Detect(e.Text) {
			fired[f.Detector] = true
		}
		t.Run(fmt.Sprintf("%03d %s", i, e.Note), func(t *testing.T) {
			name := fmt.Sprintf("entry %d (%s): %q", i, e.Note, e.Text)
			fs := Detect(e.Text)
			var got Category
			if len(fs) > 0 {
				got = fs[0].Category
			}
			require.Equal(t, e.Want, got, "%s: findings %+v", name, fs)
			secret := DetectSecret(e.Text)
			cat, reason := Sensitive(e.Text)
			switch e.Want {
			case "":
				require.Empty(t, secret, name)
				require.Empty(t, cat, name)
				require.Equal(t, e.Text, Redact(e.Text), name)
			case CategorySecret:
				require.Equal(t, fs[0].Detector, secret, name)
				redacted := Redact(e.Text)
				require.Contains(t, redacted, RedactedMarker, name)
				require.NotContains(t, redacted, e.Text[fs[0].Start:fs[0].End], name)
			default:
				require.Equal(t, e.Want, cat, name)
				require.NotEmpty(t, reason, name)
				require.Empty(t, secret, name)
				require.Equal(t, e.Text, Redact(e.Text), "%s: only secrets are redacted", name)
			}
		})
	}
	require.GreaterOrEqual(t, positives, 35)
	require.GreaterOrEqual(t, negatives, 35)
	for _, d := range detectors {
		require.True(t, fired[d.name], "detector %q has no positive in the corpus", d.name)
	}
}

// Gates only skip detectors that could not match: on the corpus, and in
// FuzzDetect on anything, the findings are the same without them.
func TestDetectGates(t *testing.T) {
	t.Parallel()
	for i, e := range loadCorpus(t) {
		require.Equal(t, scan(e.Text, nil, false), Detect(e.Text), "entry %d (%s)", i, e.Note)
	}
	for _, text := range loadStatements(t) {
		require.Equal(t, scan(text, nil, false), Detect(text), text)
	}
	// A term is a whole word in any case, as \b bounds it; a text with the
	// Kelvin sign or the long s, which (?i) folds to k and s, opens every
	// gate.
	bits := func(text string) uint64 { f := factsOf(text); return f.termsHeld() }
	require.NotZero(t, bits("ANTIDEPRESSANTS."))
	require.Zero(t, bits("antidepressantsX"), "not a whole word")
	require.Zero(t, bits("x9hrt2 aa_1"), "beside a digit or an underscore")
	require.NotZero(t, bits("-hrt-"))
	require.NotZero(t, bits("\u212aeeps \u212aosher"))
	require.NotZero(t, bits("chri\u017ftian"))
	require.Equal(t, "ssn", factsOf("ſſn").folded, "regexp's (?i) folds the long s")
}

// Detector names are shown to people and key Sensitive's reasons, so each
// is unique, and every personal-data detector has a reason.
func TestDetectorNames(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, d := range detectors {
		require.False(t, seen[d.name], "duplicate detector %q", d.name)
		seen[d.name] = true
		if d.category != CategorySecret {
			require.NotEmpty(t, d.reason, d.name)
		}
	}
}

func TestDetectFindingsOrderedAndBounded(t *testing.T) {
	t.Parallel()
	text := "call me on +44 20 7946 0958, card 4111 1111 1111 1111, pw is hunter2hunter2 and My SSN is 123-45-6789"
	fs := Detect(text)
	require.Equal(t, []Category{CategoryPhone, CategoryPaymentCard, CategorySecret, CategoryGovernmentID},
		[]Category{fs[0].Category, fs[1].Category, fs[2].Category, fs[3].Category}, "%+v", fs)
	require.Len(t, fs, 4)
	require.Equal(t, "+44 20 7946 0958", text[fs[0].Start:fs[0].End])
	require.Equal(t, "4111 1111 1111 1111", text[fs[1].Start:fs[1].End])
	require.Equal(t, "hunter2hunter2", text[fs[2].Start:fs[2].End])
	require.Equal(t, "123-45-6789", text[fs[3].Start:fs[3].End])

	cat, reason := Sensitive(text)
	require.Equal(t, CategoryPhone, cat, "the first personal datum, secrets skipped")
	require.Equal(t, "a phone number", reason)
	require.Equal(t, "password", DetectSecret(text))
}

// A secret wins an overlap, so Redact removes all of it.
func TestDetectSecretWinsOverlap(t *testing.T) {
	t.Parallel()
	text := "password: 4111111111111111"
	fs := Detect(text)
	require.Len(t, fs, 1)
	require.Equal(t, CategorySecret, fs[0].Category)
	require.Equal(t, "password: "+RedactedMarker, Redact(text))
	// The same number alone is a card.
	require.Equal(t, CategoryPaymentCard, Detect("4111111111111111")[0].Category)
}

func TestLuhn(t *testing.T) {
	t.Parallel()
	for digits, want := range map[string]bool{
		"4111111111111111":    true,
		"4111111111111112":    false,
		"5555555555554444":    true,
		"378282246310005":     true,
		"6011111111111117":    true,
		"4012888888881881":    true,
		"79927398713":         true,
		"79927398710":         false,
		"0":                   true,
		"":                    false,
		"4111-1111-1111-1111": false, // digits only; separators are removed by the caller
	} {
		require.Equal(t, want, luhnValid(digits), digits)
	}
}

func TestIBAN(t *testing.T) {
	t.Parallel()
	for iban, want := range map[string]bool{
		"DE89 3704 0044 0532 0130 00":       true,
		"DE89370400440532013000":            true,
		"DE89370400440532013001":            false, // check digits fail
		"DE8937040044053201300":             false, // one short for DE
		"GB82 WEST 1234 5698 7654 32":       true,
		"GB82 WEST 1234 5698 7654 33":       false,
		"FR14 2004 1010 0505 0001 3M02 606": true,
		"NL91ABNA0417164300":                true,
		"NO9386011117947":                   true,
		"XX82WEST12345698765432":            false, // no such country
		"gb82west12345698765432":            true,  // people type it in lower case
		"GB82-WEST-1234-5698-7654-32":       true,  // and with dashes
		"de89.3704.0044.0532.0130.00":       true,  // or dots
		"gb82-west-1234-5698-7654-33":       false,
		"DE89 3704 0044 0532 0130 00 12":    false, // too long for DE
	} {
		require.Equal(t, want, ibanValid(iban), iban)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"password keeps its label", "my password is Tr0ub4dor&3, thanks", "my password is " + RedactedMarker + " thanks"},
		{"token in a sentence", "use xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx for the bot", "use " + RedactedMarker + " for the bot"},
		{"URL keeps host and user", "postgres://admin:hunter2@db.internal:5432/prod", "postgres://admin:" + RedactedMarker + "@db.internal:5432/prod"},
		{"pair keeps the user", "admin / S3cr3t!Pass2024", "admin / " + RedactedMarker},
		{"two secrets", "pw is hunter2hunter2 and ghp_abcdefghijklmnopqrstuvwxyzABCDEF012345", "pw is " + RedactedMarker + " and " + RedactedMarker},
		{"phone and card stay", "call +44 20 7946 0958 or pay with 4111 1111 1111 1111", "call +44 20 7946 0958 or pay with 4111 1111 1111 1111"},
		{"health stays", "I have ADHD and take my medication at noon", "I have ADHD and take my medication at noon"},
		{"ordinary text", "rotate the API key monthly", "rotate the API key monthly"},
		{"already redacted", "pw is " + RedactedMarker, "pw is " + RedactedMarker},
		// Audit, defect 1: an X_KEY setting with a key's value, the
		// keyring's rotation form included, as in a pasted .env.
		{"encryption key setting", "MNEMO_ENCRYPTION_KEY=ruJh9TsmFS0mO6g7A3zUli5DSAEla4henJBR8yCw24M=", "MNEMO_ENCRYPTION_KEY=" + RedactedMarker},
		{"keyring in rotation", "MNEMO_ENCRYPTION_KEY=k2:856nrb0NdObex/PfrsyPZGVmZBp7omYPMBH8NXApHFc=,k1:ruJh9TsmFS0mO6g7A3zUli5DSAEla4henJBR8yCw24M=",
			"MNEMO_ENCRYPTION_KEY=" + RedactedMarker},
		{"spaced keyring in a pasted .env", "SLACK_CLIENT_ID=1234567890.1234567890\nMNEMO_ENCRYPTION_KEY=\"new:mQ0aAJEmiRnyXZ0GEt81nWAmokD0WJpdeR8d2Xz++nc=, old:ruJh9TsmFS0mO6g7A3zUli5DSAEla4henJBR8yCw24M=\"\nLOG_LEVEL=debug",
			"SLACK_CLIENT_ID=1234567890.1234567890\nMNEMO_ENCRYPTION_KEY=\"" + RedactedMarker + "\"\nLOG_LEVEL=debug"},
		{"master key in hex", "export MASTER_KEY=ff9243a8f506b40928b5b7a767c76fb008f86bebb2737f6a6f0fb23c6f5da2ce", "export MASTER_KEY=" + RedactedMarker},
		{"signing key in YAML", "  webhook_hmac_key: 856nrb0NdObex/PfrsyPZGVmZBp7omYPMBH8NXApHFc=", "  webhook_hmac_key: " + RedactedMarker},
		{"API key setting", "TAVILY_API_KEY=tvly-AbCdEf0123456789XyZ", "TAVILY_API_KEY=" + RedactedMarker},
		// Audit, defect 3: a Honeycomb ingest key, wherever it appears.
		{"Honeycomb ingest key", "X-Honeycomb-Team: hcaik_01m9s346q3d25vt4f5v37e3s3ec9is0j8ht9lgmxg9edn581u33xtplpft", "X-Honeycomb-Team: " + RedactedMarker},
		{"Honeycomb key in prose", "the EU ingest key is hcbik_01znwj47tan9zt24mnpzx45hy4dt2sywb3wkh5dnsipzz5fk2z9ri19r0w, rotate it", "the EU ingest key is " + RedactedMarker + ", rotate it"},
		// Ordinary text about keys stays.
		{"KEY=value in prose", "the KEY=value pairs in the config are read at startup", "the KEY=value pairs in the config are read at startup"},
		{"a column setting", "PRIMARY_KEY=id", "PRIMARY_KEY=id"},
		{"identifier keys", "SORT_KEY=created_at and PARTITION_KEY=customer_id_2024_region", "SORT_KEY=created_at and PARTITION_KEY=customer_id_2024_region"},
		{"where a key is kept", "SSH_KEY=~/.ssh/id_ed25519 and TLS_KEY=/etc/mnemo/tls/server.key", "SSH_KEY=~/.ssh/id_ed25519 and TLS_KEY=/etc/mnemo/tls/server.key"},
		{"a flag name", "FEATURE_KEY=enable_new_onboarding_v2", "FEATURE_KEY=enable_new_onboarding_v2"},
		{"a key by reference", "MNEMO_ENCRYPTION_KEY=${MNEMO_ENCRYPTION_KEY}", "MNEMO_ENCRYPTION_KEY=${MNEMO_ENCRYPTION_KEY}"},
		{"how to make a key", "set MNEMO_ENCRYPTION_KEY to the output of openssl rand -base64 32", "set MNEMO_ENCRYPTION_KEY to the output of openssl rand -base64 32"},
		{"the Honeycomb prefix named", "Honeycomb ingest keys start with hcaik_ and are 64 characters long", "Honeycomb ingest keys start with hcaik_ and are 64 characters long"},
	} {
		got := Redact(tc.in)
		require.Equal(t, tc.want, got, tc.name)
		require.Empty(t, DetectSecret(got), tc.name)
	}
}

// The PEM body is multi-line: Redact removes every line of it.
func TestRedactPEMBody(t *testing.T) {
	t.Parallel()
	var body string
	for _, e := range loadCorpus(t) {
		if strings.HasPrefix(e.Text, "the key is\nMII") {
			body = strings.TrimPrefix(e.Text, "the key is\n")
		}
	}
	require.NotEmpty(t, body, "the corpus has the bare PEM body")
	require.Equal(t, "private key body", DetectSecret(body))
	got := Redact("the key is\n" + body + "\nkeep it safe")
	require.Equal(t, "the key is\n"+RedactedMarker+"\nkeep it safe", got)
	for _, line := range strings.Split(body, "\n") {
		require.NotContains(t, got, line)
	}
}

func FuzzDetect(f *testing.F) {
	for _, e := range loadCorpus(f) {
		f.Add(e.Text)
	}
	for _, text := range loadStatements(f) {
		f.Add(text)
	}
	for _, fact := range casingFacts {
		for _, text := range fact.forms {
			f.Add(text)
		}
	}
	for _, text := range casingNegatives {
		f.Add(text)
	}
	f.Add("pw is " + RedactedMarker + " x")
	f.Add("aws key = " + RedactedMarker + strings.Repeat("A", 40))
	f.Fuzz(func(t *testing.T, text string) {
		fs := Detect(text)
		end := 0
		for _, fd := range fs {
			require.True(t, fd.Start >= end && fd.Start < fd.End && fd.End <= len(text), "%+v in %q", fs, text)
			require.NotEmpty(t, fd.Category)
			require.NotEmpty(t, fd.Detector)
			end = fd.End
		}
		require.Equal(t, scan(text, nil, false), fs, "gates changed the findings of %q", text)
		redacted := Redact(text)
		for _, fd := range Detect(redacted) {
			require.NotEqual(t, CategorySecret, fd.Category, "%q redacted to %q still holds %+v", text, redacted, fd)
		}
		if DetectSecret(text) == "" {
			require.Equal(t, text, redacted)
		}
	})
}

// legacySecretPatterns is the detector set before Detect, kept here as the
// benchmark's baseline.
var legacySecretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\bxapp-\d-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`hooks\.slack\.com/services/[A-Za-z0-9/]+`),
	regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`),
	regexp.MustCompile(`\b(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`(?i)aws.{0,20}(secret|key).{0,10}[:=\s]\s*[A-Za-z0-9/+]{40}\b`),
	regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\bsk-(proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	regexp.MustCompile(`-----BEGIN ([A-Z]+ )*PRIVATE KEY( BLOCK)?-----`),
	regexp.MustCompile(`(?i)\b(password|passwd|passphrase|pwd|pin code)\b\s*(is|was|:|=)\s*\S+`),
	regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`),
	regexp.MustCompile(`(?i)\b(api[_ -]?key|secret[_ -]?key|access[_ -]?token|bearer)\b\s*(is|:|=)?\s*[A-Za-z0-9_\-.]{16,}`),
}

// BenchmarkDetect runs over the whole corpus per op. The baseline is the
// old secret-only pattern list on the same texts, in the same run.
func BenchmarkDetect(b *testing.B) {
	entries := loadCorpus(b)
	b.Run("baseline=legacySecretPatterns", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for _, e := range entries {
				for _, re := range legacySecretPatterns {
					if re.MatchString(e.Text) {
						n++
						break
					}
				}
			}
		}
		require.Positive(b, n)
	})
	b.Run("DetectSecret", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for _, e := range entries {
				if DetectSecret(e.Text) != "" {
					n++
				}
			}
		}
		require.Positive(b, n)
	})
	b.Run("Detect", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for _, e := range entries {
				n += len(Detect(e.Text))
			}
		}
		require.Positive(b, n)
	})
}

// BenchmarkDetectStatements runs Detect over memory's sensitivity corpus
// per op: ordinary statements about people, as most messages are, rather
// than the detector corpus's secrets and numbers.
func BenchmarkDetectStatements(b *testing.B) {
	texts := loadStatements(b)
	n := 0
	for b.Loop() {
		for _, text := range texts {
			n += len(Detect(text))
		}
	}
	require.GreaterOrEqual(b, n, 0)
}
