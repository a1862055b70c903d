package memory

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The write path reads a memory's special category as categoryIn over
// readings: the text, its canonical form and, for a memory about a
// person, that person's own words (asSaidBySubject). A state or an
// identity with no verb ("Pregnant with twins", "Dan, a practising
// Muslim, is off for Eid") is found whoever the memory is about, a person
// or a channel, as its twin with a verb is; a hard negative is found in
// neither.
func TestCategoryWithoutAVerbWhateverTheSubject(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../detect/testdata/verbless_statements.json")
	require.NoError(t, err)
	var entries []struct{ Text, Category, Twin string }
	require.NoError(t, json.Unmarshal(raw, &entries))
	require.NotEmpty(t, entries)
	for _, e := range entries {
		want := e.Category
		if want == "none" {
			want = ""
		}
		for _, subject := range []SubjectType{SubjectUser, SubjectChannel} {
			w := write{subjectType: subject}
			for _, text := range []string{e.Text, e.Twin} {
				if text == "" {
					continue
				}
				require.Equal(t, want, categoryIn(readings(w, text, Canonicalize(text), nil)), "%q about a %s", text, subject)
			}
		}
	}
}
