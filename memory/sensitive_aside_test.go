package memory_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// appliedAt reports whether the prompt before a turn of alice's in place
// holds the memory id.
func appliedAt(t *testing.T, store *memory.Store, place provenance.Place, id uuid.UUID) bool {
	t.Helper()
	applied, err := store.ForPrompt(context.Background(), memory.ViewerAt(user("UA"), place), "")
	require.NoError(t, err)
	for _, m := range applied {
		if m.ID == id {
			return true
		}
	}
	return false
}

// Audit, defect 1: a reason set beside a preference rather than joined to
// it by a word (in parentheses, after a dash, a colon, a semicolon or a
// comma) was not read, so the preference was stored as ordinary and, a
// preference being applied everywhere, put in the prompt in public
// channels. Remembered in Alice's DM with the review model answering
// "none", each is kept as sensitive: applied in her DM, never in public.
// Control: an ordinary preference of the same shape, said in the same DM,
// is applied in public.
func TestAReasonSetAsideIsNotAppliedInPublic(t *testing.T) {
	t.Parallel()
	r := &reviewScript{}
	store, _ := r.store(t, nil)
	alice := user("UA")
	ctx := context.Background()
	remember := func(content string) *memory.Memory {
		t.Helper()
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Scope: memory.ScopePersonal, Kind: memory.KindPreference, Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, "%q: %s", content, out.Reason)
		r.mu.Lock()
		reviewed := append([]string(nil), r.reviewed...)
		r.mu.Unlock()
		require.Contains(t, reviewed, content, "the model reviewed it and named nothing")
		return out.Memory
	}
	for _, c := range []struct{ content, category string }{
		{"Prefers no meetings on Tuesday mornings (therapy)", "health"},
		{"Prefers remote Fridays — chemo days", "health"},
		{"Prefers late starts on Mondays: therapy appointments", "health"},
		{"Prefers no meetings Friday 1-2pm (Jummah)", "religion"},
	} {
		m := remember(c.content)
		for _, place := range []provenance.Place{publicThread, otherPublic} {
			require.False(t, appliedAt(t, store, place, m.ID), "%q: applied in public %s", c.content, place.Channel)
		}
		require.True(t, appliedAt(t, store, dmAlice, m.ID), "%q: applied where it was said", c.content)
		require.Equal(t, c.category, m.Sensitive, c.content)
	}
	ordinary := remember("Prefers no meetings on Thursday mornings (standup)")
	require.Empty(t, ordinary.Sensitive)
	require.True(t, appliedAt(t, store, publicThread, ordinary.ID), "control: an ordinary preference said in a DM is applied in public")
}

// Audit, defect 2: a restatement was taken whenever any check found the
// memory sensitive, even when the model itself called it "none" and the
// category was the detectors' alone; the restatement, which the
// detectors did not read as sensitive, was stored as ordinary and applied
// in public. A restatement is taken only when the model named the
// category it leaves out, and only when it passes every check itself.
// Control: a model that names the category and restates cleanly still
// has the restatement stored.
func TestARestatementIsTheModelsOnlyWhenItNamedTheCategory(t *testing.T) {
	t.Parallel()
	r := &reviewScript{answer: func(content string) (string, string) {
		switch content {
		case "Prefers no Tuesday morning meetings for therapy":
			return "none", "Prefers no Tuesday morning meetings"
		case "Prefers no Monday morning meetings for therapy":
			return "none", "Prefers no Monday morning meetings (therapy)"
		case "Prefers no Wednesday morning meetings for therapy":
			return "health", "Prefers no Wednesday morning meetings (therapy)"
		case "Prefers no Thursday morning meetings for therapy":
			return "health", "Prefers no Thursday morning meetings"
		}
		return "none", ""
	}}
	store, _ := r.store(t, nil)
	alice := user("UA")
	ctx := context.Background()
	write := func(place provenance.Place, content string) memory.Outcome {
		t.Helper()
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: place, Kind: memory.KindPreference, Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		return out
	}
	for _, content := range []string{
		"Prefers no Tuesday morning meetings for therapy",   // the model said none
		"Prefers no Monday morning meetings for therapy",    // the model said none, and its restatement is sensitive
		"Prefers no Wednesday morning meetings for therapy", // the model named it, and its restatement is sensitive
	} {
		out := write(publicThread, content)
		require.Equal(t, memory.Rejected, out.Status, "%q in public: stored as %q", content, contentOf(out))
		require.Contains(t, out.Reason, "sensitive personal data (health)")

		out = write(dmAlice, content)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, content, out.Memory.Content, "the original is judged")
		require.Equal(t, "health", out.Memory.Sensitive)
		require.Empty(t, out.Note)
		require.False(t, appliedAt(t, store, publicThread, out.Memory.ID), "%q: applied in public", content)
	}

	out := write(publicThread, "Prefers no Thursday morning meetings for therapy")
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "Prefers no Thursday morning meetings", out.Memory.Content, "control: the model's clean restatement")
	require.Empty(t, out.Memory.Sensitive)
	require.Contains(t, out.Note, "without the part that is sensitive personal data (health)")
}

// contentOf is what an outcome stored, for a failure's message.
func contentOf(out memory.Outcome) string {
	if out.Memory == nil {
		return ""
	}
	return out.Memory.Content
}
