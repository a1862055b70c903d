package detect

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// verblessStatement is one entry of testdata/verbless_statements.json: a
// state or an identity said with no verb before it, or after a qualifier
// ("Type 1 diabetic since childhood", "Dan, a practising Muslim, is off
// for Eid"), labelled with its category ("none" for a hard negative), and
// for a positive the twin the detectors already found: the same fact with
// a verb ("Has type 1 diabetes").
type verblessStatement struct {
	Text     string `json:"text"`
	Category string `json:"category"`
	Twin     string `json:"twin"`
	Note     string `json:"note"`
}

func loadVerbless(tb testing.TB) []verblessStatement {
	tb.Helper()
	raw, err := os.ReadFile("testdata/verbless_statements.json")
	require.NoError(tb, err)
	var entries []verblessStatement
	require.NoError(tb, json.Unmarshal(raw, &entries))
	return entries
}

// Sensitivity is judged on what a fact means, not its grammar: a state or
// an identity that opens a sentence or a clause, sits in an appositive or
// follows a qualifier is found as its twin with a verb is, in the same
// category; and the same word modifying a thing, in a list or as a name
// is not.
func TestSensitiveWithoutAVerb(t *testing.T) {
	t.Parallel()
	entries := loadVerbless(t)
	positives, negatives := 0, 0
	for _, e := range entries {
		want := Category(e.Category)
		if e.Category == "none" {
			want = ""
			negatives++
		} else {
			positives++
			require.NotEmpty(t, e.Twin, e.Text)
			twin, _ := Sensitive(e.Twin)
			require.Equal(t, want, twin, "twin %q of %q", e.Twin, e.Text)
		}
		got, reason := Sensitive(e.Text)
		require.Equal(t, want, got, "%q (%s): findings %+v", e.Text, e.Note, Detect(e.Text))
		if want != "" {
			require.NotEmpty(t, reason, e.Text)
		}
		require.Equal(t, scan(e.Text, nil, false), Detect(e.Text), "gates changed the findings of %q", e.Text)
	}
	require.GreaterOrEqual(t, positives, 13)
	require.GreaterOrEqual(t, negatives, 15)
}
