package detect

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 30, finding 3: Redact stopped at the first secret, so a forget
// reason "old password was X, new one is Y" kept Y. Every secret in a text
// is redacted, whatever introduces it and whatever kinds sit beside it.
func TestRedactFindsEverySecret(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		secrets  []string
		kept     []string
	}{
		{"a second password by reference", "old password was Tr0ub4dor&3, new one is Hunter2!xyz",
			[]string{"Tr0ub4dor&3", "Hunter2!xyz"}, []string{"old password was", "new one is"}},
		{"'and the new one:'", "the wifi password is Tr0ub4dor&3 and the new one: Kx9#mQ2vLp",
			[]string{"Tr0ub4dor&3", "Kx9#mQ2vLp"}, []string{"and the new one:"}},
		{"'then changed it to'", "password was hunter2hunter2, then changed it to Zq8$wN3rTy",
			[]string{"hunter2hunter2", "Zq8$wN3rTy"}, []string{"then changed it to"}},
		{"a password and a token", "pw is hunter2hunter2 and the bot uses xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
			[]string{"hunter2hunter2", "xoxb-123456789012"}, []string{"the bot uses"}},
		{"a URL password and a provider key", "db is postgres://app:S3cretPw9@db.internal:5432/prod, mail uses 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",
			[]string{"S3cretPw9", "SG.ngeVfQ"}, []string{"postgres://app:", "@db.internal:5432/prod", "mail uses"}},
		{"three kinds", "rotated: passwd Kx9#mQ2vLp, DB_PASSWORD=Tr0ub4dor&3 and creds: YWRtaW46aHVudGVyMg==",
			[]string{"Kx9#mQ2vLp", "Tr0ub4dor&3", "YWRtaW46aHVudGVyMg=="}, []string{"rotated:", "DB_PASSWORD=", "creds:"}},
		{"three kinds across lines", "new deploy key: 7f3a-91bc-44de-0a2f-9e81\nredis://:hunter2pass@redis.internal:6379/0\ntoken ghp_abcdefghijklmnopqrstuvwxyzABCDEF012345",
			[]string{"7f3a-91bc", "hunter2pass", "ghp_abcdef"}, []string{"@redis.internal:6379/0", "new deploy key:"}},
		{"three passwords, old to new", "the root password was Tr0ub4dor&3, then changed it to Zq8$wN3rTy, and the new one is Kx9#mQ2vLp; the password policy stays",
			[]string{"Tr0ub4dor&3", "Zq8$wN3rTy", "Kx9#mQ2vLp"}, []string{"the password policy stays"}},
	} {
		got := Redact(tc.in)
		for _, s := range tc.secrets {
			require.NotContains(t, got, s, "%s: %q redacted to %q", tc.name, tc.in, got)
		}
		for _, k := range tc.kept {
			require.Contains(t, got, k, "%s: the context is kept", tc.name)
		}
		require.GreaterOrEqual(t, strings.Count(got, RedactedMarker), len(tc.secrets), "%s: %q", tc.name, got)
		require.Empty(t, DetectSecret(got), tc.name)
	}
}

// Over-redaction is a failure too: a URL's options, host and path are kept,
// only its password goes.
func TestRedactKeepsURLOptions(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mongodb+srv://user:pw@host/db?retryWrites=true&w=majority":                                "mongodb+srv://user:" + RedactedMarker + "@host/db?retryWrites=true&w=majority",
		"mongodb+srv://admin:S3cretPw@cluster0.abcde.mongodb.net/prod?retryWrites=true&w=majority": "mongodb+srv://admin:" + RedactedMarker + "@cluster0.abcde.mongodb.net/prod?retryWrites=true&w=majority",
		"redis://:hunter2pass@redis.internal:6379/0":                                               "redis://:" + RedactedMarker + "@redis.internal:6379/0",
		"postgres://db.internal:5432/app?sslmode=require&application_name=mnemo":                   "postgres://db.internal:5432/app?sslmode=require&application_name=mnemo",
		// Audit, defect 2: a query parameter named as a credential loses
		// its value and keeps its name and the parameters around it.
		"GET https://api.tavily.com/search?tavilyApiKey=tvly-AbCdEf0123456789XyZ&query=weather":               "GET https://api.tavily.com/search?tavilyApiKey=" + RedactedMarker + "&query=weather",
		"https://maps.example.com/api/geocode?address=Leeds&key=9f8e7d6c5b4a39281706f5e4d3c2b1a0":             "https://maps.example.com/api/geocode?address=Leeds&key=" + RedactedMarker,
		"https://app.example.com/cb?access_token=ya29a0AfH6SMBx3kQ&state=1":                                   "https://app.example.com/cb?access_token=" + RedactedMarker + "&state=1",
		"https://app.example.com/cb#access_token=ya29a0AfH6SMBx3kQ&token_type=bearer":                         "https://app.example.com/cb#access_token=" + RedactedMarker + "&token_type=bearer",
		"https://x.example.com/feed?token=abcd1234efgh&page=2":                                                "https://x.example.com/feed?token=" + RedactedMarker + "&page=2",
		"https://x.example.com/v1?apikey=abcd1234efgh":                                                        "https://x.example.com/v1?apikey=" + RedactedMarker,
		"see https://x.example.com/hook?secret=Zk1pY0rN8sT2.":                                                 "see https://x.example.com/hook?secret=" + RedactedMarker + ".",
		"<https://x.example.com/dl?file=a.csv&signature=abcd1234efgh5678|the export>":                         "<https://x.example.com/dl?file=a.csv&signature=" + RedactedMarker + "|the export>",
		"https://x.example.com/dl?expires=1700000000&sig=Qm9vYmF6cXV4MTIz":                                    "https://x.example.com/dl?expires=1700000000&sig=" + RedactedMarker,
		"https://x.example.com/db?db_password=abc1&ssl=on":                                                    "https://x.example.com/db?db_password=" + RedactedMarker + "&ssl=on",
		"https://b.s3.amazonaws.com/o.csv?X-Amz-Expires=900&X-Amz-Signature=9f8e7d6c5b4a39281706f5e4d3c2b1a0": "https://b.s3.amazonaws.com/o.csv?X-Amz-Expires=900&X-Amz-Signature=" + RedactedMarker,
		// Parameters that only mention a key or a token stay.
		"https://example.com/search?q=api+key&sort_key=relevance&page=2":    "https://example.com/search?q=api+key&sort_key=relevance&page=2",
		"https://shop.example.com/items?cache_key=v2_products_2024&lang=en": "https://shop.example.com/items?cache_key=v2_products_2024&lang=en",
		"https://api.example.com/v1/users?access_token=${TOKEN}&limit=10":   "https://api.example.com/v1/users?access_token=${TOKEN}&limit=10",
		"https://app.example.com/login?auth=sso&next=/dashboard":            "https://app.example.com/login?auth=sso&next=/dashboard",
		"https://example.com/search?q=token&page=2":                         "https://example.com/search?q=token&page=2",
	} {
		require.Equal(t, want, Redact(in), in)
	}
}

// Issue 30, finding 4: the strings that were missed, one per class. Each
// is found now, as the kind of datum it is.
func TestIssue30DetectorMisses(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"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":                                 "SendGrid key",
		"VAULT_TOKEN hvs.CAESIJ2kqbxJkEzYq4RkVhxjvHqLpYRnZcW8gX0mL9tB3aKGh4KHGh2cy5YV1F6Y0hVZ2RQWkhLM3JsZWlNS3": "Vault token",
		"deploy key: 7f3a-91bc-44de-0a2f-9e81":                                                                  "dash-separated key",
		"creds: YWRtaW46aHVudGVyMg==":                                                                           "base64 credential",
		"redis://:hunter2pass@redis.internal:6379/0":                                                            "credential in URL",
		"the pass is Tr0ub4dor&3":                                                                               "password",
		"passwd Kx9#mQ2vLp":                                                                                     "password",
		"PASSWORD - Zq8$wN3rTy":                                                                                 "password",
	} {
		require.Equal(t, want, DetectSecret(text), text)
	}
	for text, want := range map[string]string{
		"123 45 6789 is my social security": "a US Social Security number",
		"my Steuer-ID is 86095742719":       "a German tax identification number (Steuer-ID)",
		"DNI 12345678Z":                     "a Spanish DNI or NIE number",
		"RSSMRA85T10A562S":                  "an Italian codice fiscale",
		"aadhaar 2345 6789 0124":            "an Indian Aadhaar number",
		"NIR 1 84 12 76 451 089 46":         "a French social security number (NIR)",
		"BSN 111222333":                     "a Dutch citizen service number (BSN)",
		"529.982.247-25":                    "a Brazilian CPF number",
	} {
		cat, reason := Sensitive(text)
		require.Equal(t, CategoryGovernmentID, cat, text)
		require.Equal(t, want, reason, text)
	}
	// Control: the same numbers with a wrong check digit are not ids.
	for _, text := range []string{"my Steuer-ID is 86095742718", "DNI 12345678A", "RSSMRA85T10A562T", "aadhaar 2345 6789 0123", "NIR 1 84 12 76 451 089 47", "BSN 111222334", "529.982.247-26"} {
		cat, _ := Sensitive(text)
		require.Empty(t, cat, text)
	}
}

// Issue 30, finding 1: the same fact is sensitive however it is written.
func TestSensitiveWhateverTheGrammaticalPerson(t *testing.T) {
	t.Parallel()
	for _, fact := range []struct {
		want  Category
		forms []string
	}{
		{CategoryHealth, []string{"I take antidepressants every morning", "She takes antidepressants every morning", "Alice takes antidepressants every morning", "The user takes antidepressants every morning", "Takes antidepressants every morning"}},
		{CategoryHealth, []string{"I have type 2 diabetes", "He has type 2 diabetes", "Has type 2 diabetes", "Prefers sugar-free snacks because of diabetes"}},
		{CategorySexuality, []string{"I'm gay", "He is gay", "Sam is gay", "Is gay"}},
		{CategoryReligion, []string{"I attend mosque on Fridays", "She attends mosque on Fridays", "Attends mosque on Fridays", "Wants no meetings on Fridays during Ramadan"}},
		{CategoryPolitics, []string{"I'm a registered Democrat", "They are a registered Democrat", "Is a registered Democrat"}},
		{CategoryFinances, []string{"I earn $140k a year", "She earns $140k a year", "Earns $140k a year", "Is in debt on student loans"}},
		// A longer alternative that shares its start with a shorter one the
		// validator drops: "Republican" alone is followed by a domain noun.
		{CategoryPolitics, []string{"Volunteers for the Republican campaign", "Works for the Labour candidate in Leeds"}},
		{CategoryUnion, []string{"She is in the union of the metal workers", "Is in the union of the rail workers since 2019"}},
	} {
		for _, text := range fact.forms {
			cat, reason := Sensitive(text)
			require.Equal(t, fact.want, cat, text)
			require.NotEmpty(t, reason, text)
		}
	}
	for _, text := range []string{"Takes the 8:15 train", "Is the release manager", "Prefers dark mode", "Has a standing 1:1 on Thursdays",
		"Owns the diabetes-risk dashboard", "Is on the payments team", "Runs the oncology data pipeline", "Takes notes in the retro"} {
		cat, _ := Sensitive(text)
		require.Empty(t, cat, text)
	}
}
