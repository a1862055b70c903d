package detect

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 20, defect 5: the detectors missed ordinary obfuscation and
// refused ordinary numbers. Each form below was stored as written (and a
// secret stayed in the session log, since Redact missed it too); each
// number below was refused as a phone number or an SSN.
func TestDetectorsReadHowPeopleType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text   string
		want   Category
		secret string // for a secret: the part Redact removes
	}{
		{"My social is 123 45 6789", CategoryGovernmentID, ""},
		{"SSN 078.05.1120", CategoryGovernmentID, ""},
		{"my SIN is 046 454 286", CategoryGovernmentID, ""},
		{"my NI number is ab-12-34-56-c", CategoryGovernmentID, ""},
		{"NI no: jg.10.37.59.a", CategoryGovernmentID, ""},
		{"My card is 4111.1111.1111.1111", CategoryPaymentCard, ""},
		{"card 5555 5555-5555 4444", CategoryPaymentCard, ""},
		{"my iban is de89 3704 0044 0532 0130 00", CategoryBankAccount, ""},
		{"iban gb29-nwbk-6016-1331-9268-19", CategoryBankAccount, ""},
		{"DB_PASSWORD=Tr0ub4dor&3", CategorySecret, "Tr0ub4dor&3"},
		{"My password's Hunter2!", CategorySecret, "Hunter2!"},
		{"the password for the wifi is Tr0ub4dor&3", CategorySecret, "Tr0ub4dor&3"},
		{"user:pass@host", CategorySecret, ":pass@"},
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", CategorySecret, "dXNlcjpwYXNzd29yZA=="},
		{"curl -u admin:Hunter2! https://api.internal", CategorySecret, "Hunter2!"},
	} {
		fs := Detect(tc.text)
		require.NotEmpty(t, fs, tc.text)
		require.Equal(t, tc.want, fs[0].Category, "%q: %+v", tc.text, fs)
		if tc.want == CategorySecret {
			require.NotEmpty(t, DetectSecret(tc.text), tc.text)
			red := Redact(tc.text)
			require.Contains(t, red, RedactedMarker, tc.text)
			require.NotContains(t, red, tc.secret, tc.text)
			continue
		}
		cat, reason := Sensitive(tc.text)
		require.Equal(t, tc.want, cat, tc.text)
		require.NotEmpty(t, reason, tc.text)
	}
	for _, text := range []string{
		"Zoom meeting id 345 678 9012",
		"cell 1048576",
		"part number 512-34-5678",
		"order number 4111 1111 1111 1111 was refunded",
		"ts 1712345678.123456",
		"Chrome 124.0.6367.207 fixed it",
		"2024-06-01 14:30:00.123456 UTC",
	} {
		require.Empty(t, Detect(text), text)
	}
	// Control: the same digits where they are what they look like.
	for text, want := range map[string]Category{
		"call me at 345 678 9012":  CategoryPhone,
		"my cell is 415 555 0132":  CategoryPhone,
		"my SSN is 512-34-5678":    CategoryGovernmentID,
		"card 4111 1111 1111 1111": CategoryPaymentCard,
	} {
		fs := Detect(text)
		require.NotEmpty(t, fs, text)
		require.Equal(t, want, fs[0].Category, text)
	}
}
