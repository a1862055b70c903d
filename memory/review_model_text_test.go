package memory_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// reviewSays is a review answer that stores canonical with cues and the
// model's own sensitive category ("none" for none).
func reviewSays(canonical, sensitive string, cues ...string) fakellm.Reply {
	if cues == nil {
		cues = []string{}
	}
	b, _ := json.Marshal(map[string]any{"store": true, "reason": "durable", "canonical": canonical, "sensitive": sensitive, "restated": "", "cues": cues, "expires": ""})
	return fakellm.Reply{JSON: string(b)}
}

// reviewedWrite remembers raw as alice at place, reviewed by a model that
// answers reply; it returns the outcome and the rows stored.
func reviewedWrite(t *testing.T, place provenance.Place, raw string, reply fakellm.Reply) (memory.Outcome, int) {
	t.Helper()
	srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return reply })
	d := testdb.New(t).DB
	store := memory.New(d, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: place, Scope: memory.ScopePersonal, Content: raw, WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 1, "the text the write was given passed the detectors and reached the model")
	var n int
	require.NoError(t, d.Pool().QueryRow(context.Background(), "SELECT count(*) FROM memories").Scan(&n))
	return out, n
}

// detectorsSay is the reason the detectors alone give for text written as
// it is: what the model's sentence or cue must be refused with.
func detectorsSay(t *testing.T, text string) string {
	t.Helper()
	store := memory.New(testdb.New(t).DB, memory.Options{})
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Scope: memory.ScopePersonal, Content: text, WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Rejected, out.Status, "%q is refused when written as it is", text)
	return out.Reason
}

// The review's model rewrites what it is given into the sentence that is
// stored, and writes the cues that are stored and embedded with it. A text
// that spells out a number or a credential in words passes the detectors;
// the model's rewrite of it in digits must not: it is refused for the same
// reason as the same words written by the person, and nothing is stored.
// A special category the rewrite names raises the memory's sensitivity.
func TestReviewModelSentenceGoesThroughTheDetectors(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		raw, canonical, reason string
	}{
		"an SSN in digits": {
			"My social security number is five three six, two two, one two three four",
			"Social security number is 536-22-1234", "looks like personal data (a US Social Security number)",
		},
		"a live secret key": {
			"My deploy token is s k underscore live underscore 4eC39HqLyjWDarjtT1zdp7dc",
			"Deploy token is sk_live_4eC39HqLyjWDarjtT1zdp7dc", "looks like a secret (Stripe key)",
		},
		// The first thing the detectors find is a health statement; the
		// number after it is refused all the same.
		"an SSN after a health statement": {
			"I take insulin daily and my social security number is five three six, two two, one two three four",
			"Takes insulin daily; social security number is 536-22-1234", "looks like personal data (a US Social Security number)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, n := reviewedWrite(t, dmAlice, c.raw, reviewSays(c.canonical, "none"))
			require.Equal(t, memory.Rejected, out.Status, "stored: %q", out.Canonical)
			require.Contains(t, out.Reason, c.reason)
			require.Equal(t, detectorsSay(t, c.canonical), out.Reason, "refused as the same words written by the person are")
			require.NotContains(t, out.Reason, "536-22-1234")
			require.NotContains(t, out.Reason, "4eC39HqLyjWDarjtT1zdp7dc")
			require.Zero(t, n, "nothing stored")
		})
	}

	t.Run("a number after a health statement, with no model", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, detectorsSay(t, "I take insulin daily and my social security number is 536-22-1234"), "looks like personal data (a US Social Security number)")
	})

	t.Run("a sentence that names a health fact", func(t *testing.T) {
		t.Parallel()
		// The model calls it "none"; what its sentence says is health.
		out, n := reviewedWrite(t, dmAlice, "I take the little pink pills every morning", reviewSays("Takes antidepressants every morning", "none"))
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, "Takes antidepressants every morning", out.Memory.Content)
		require.Equal(t, "health", out.Memory.Sensitive)
		require.Equal(t, 1, n)

		// And where health is not kept, it is refused as health.
		out, n = reviewedWrite(t, publicThread, "I take the little pink pills every morning", reviewSays("Takes antidepressants every morning", "none"))
		require.Equal(t, memory.Rejected, out.Status)
		require.Contains(t, out.Reason, "sensitive personal data (health)")
		require.Zero(t, n)
	})

	t.Run("a sentence too short to keep still says what the memory is", func(t *testing.T) {
		t.Parallel()
		// "Takes antidepressants" is too vague to store in place of the
		// text; the text is stored, and it is health all the same.
		out, n := reviewedWrite(t, dmAlice, "I take the little pink pills every morning", reviewSays("Takes antidepressants", "none"))
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, "I take the little pink pills every morning", out.Memory.Content)
		require.Equal(t, "health", out.Memory.Sensitive)
		require.Equal(t, 1, n)
	})

	t.Run("an ordinary sentence is stored", func(t *testing.T) {
		t.Parallel()
		out, n := reviewedWrite(t, dmAlice, "i like green tea in the afternoons", reviewSays("Prefers green tea in the afternoon", "none", "tea", "what do I drink"))
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, "Prefers green tea in the afternoon", out.Memory.Content)
		require.Empty(t, out.Memory.Sensitive)
		require.Equal(t, 1, n)
	})
}

// The review's cues are stored beside the sentence and embedded with it,
// so they are screened as the sentence is. A cue holding a secret or a
// number refuses the memory, with the same reason, rather than being
// dropped: the model wrote it from the memory, so the memory holds it in
// words the detectors did not read, and storing the rest would keep it.
// Nothing is stored, so nothing is embedded. A cue in a special category
// raises the memory's sensitivity.
func TestReviewCuesGoThroughTheDetectors(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		raw, canonical, cue, reason string
	}{
		"a live secret key": {
			"My deploy token is the one ending in dp seven dc", "Knows the production deploy token",
			"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "looks like a secret (Stripe key)",
		},
		"a password": {
			"the office wifi password is hunter two bravo", "Knows the office wifi password",
			"wifi password is hunter2bravo", "looks like a secret (password)",
		},
		"an SSN": {
			"My social security number is five three six, two two, one two three four", "Knows their own social security number by heart",
			"ssn 536-22-1234", "looks like personal data (a US Social Security number)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, n := reviewedWrite(t, dmAlice, c.raw, reviewSays(c.canonical, "none", "deploy", c.cue))
			require.Equal(t, memory.Rejected, out.Status, "stored: %q", out.Canonical)
			require.Contains(t, out.Reason, c.reason)
			require.Equal(t, detectorsSay(t, c.cue), out.Reason, "refused as the same words written by the person are")
			require.Zero(t, n, "nothing stored, nothing embedded")
		})
	}

	t.Run("a cue that names a health fact", func(t *testing.T) {
		t.Parallel()
		out, n := reviewedWrite(t, dmAlice, "I take the little pink pills every morning", reviewSays("Takes the little pink pills every morning", "none", "my antidepressants", "morning routine"))
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, "health", out.Memory.Sensitive)
		require.Equal(t, 1, n)
	})
}

// The merge decision's fields belong to its decision: a target to a
// duplicate or an update, the merged sentence to an update, superseded ids
// to a supersession. An answer whose fields contradict its decision is an
// invalid answer (llm.ErrInvalidAnswer), never read as one of the things
// it says; in a write it fails the write closed as any invalid decision
// does (ErrReviewUnavailable), and nothing is stored or archived.
func TestDecideRejectsContradictoryAnswers(t *testing.T) {
	t.Parallel()
	// answer is the model's answer naming id where it names one.
	type answer func(id string) string
	says := func(decision, target, merged string, supersedes ...string) string {
		if supersedes == nil {
			supersedes = []string{}
		}
		b, _ := json.Marshal(map[string]any{"decision": decision, "target": target, "merged": merged, "supersedes": supersedes})
		return string(b)
	}
	contradictory := map[string]answer{
		"add with a target":          func(id string) string { return says("add", id, "") },
		"add with supersedes":        func(id string) string { return says("add", "", "", id) },
		"add with a merged sentence": func(string) string { return says("add", "", "Prefers detailed PR summaries") },
		"duplicate with supersedes":  func(id string) string { return says("duplicate", id, "", id) },
		"duplicate with merged text": func(id string) string { return says("duplicate", id, "Prefers detailed PR summaries") },
		"duplicate without a target": func(string) string { return says("duplicate", "", "") },
		"update with supersedes":     func(id string) string { return says("update", id, "Prefers PR summaries terse and detailed", id) },
		"update without merged text": func(id string) string { return says("update", id, " ") },
		"update without a target":    func(string) string { return says("update", "", "Prefers PR summaries terse and detailed") },
		"supersede with a target":    func(id string) string { return says("supersede", id, "", id) },
		"supersede with merged text": func(id string) string { return says("supersede", "", "Prefers detailed PR summaries", id) },
		"supersede naming nothing":   func(string) string { return says("supersede", "", "") },
		"a target that is no id":     func(string) string { return says("duplicate", "the first one", "") },
	}
	for name, reply := range contradictory {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var older atomic.Value // the stored memory's id, once it is stored
			older.Store("")
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
				return fakellm.Reply{JSON: reply(older.Load().(string))}
			})
			judge := memory.ModelJudge{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m")}
			d := testdb.New(t)
			store := memory.New(d.DB, memory.Options{Decider: judge})
			ctx := context.Background()
			first, err := store.Remember(ctx, memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer terse PR summaries", WrittenBy: provenance.ByExplicit})
			require.NoError(t, err)
			require.Equal(t, memory.Stored, first.Status, first.Reason)
			older.Store(first.Memory.ID.String())

			// Asked directly, the answer is invalid.
			_, err = judge.Decide(ctx, "Prefers detailed PR summaries", memory.KindPreference, []memory.Memory{*first.Memory})
			require.ErrorIs(t, err, llm.ErrInvalidAnswer)

			// In a write, it fails the write closed.
			asked := len(srv.Requests())
			_, err = store.Remember(ctx, memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer detailed PR summaries", WrittenBy: provenance.ByExplicit})
			require.Greater(t, len(srv.Requests()), asked, "the write was decided")
			require.ErrorIs(t, err, memory.ErrReviewUnavailable)
			var active, all int
			require.NoError(t, d.DB.Pool().QueryRow(ctx, "SELECT count(*) FILTER (WHERE archived_at IS NULL), count(*) FROM memories").Scan(&active, &all))
			require.Equal(t, 1, all, "nothing stored")
			require.Equal(t, 1, active, "nothing archived")
		})
	}

	// Positive controls: each decision with its own fields is valid.
	valid := map[memory.Action]answer{
		memory.ActionAdd:       func(string) string { return says("add", "", "") },
		memory.ActionDuplicate: func(id string) string { return says("duplicate", id, "") },
		memory.ActionUpdate:    func(id string) string { return says("update", id, "Prefers PR summaries terse and detailed") },
		memory.ActionSupersede: func(id string) string { return says("supersede", "", "", id) },
	}
	for action, reply := range valid {
		t.Run("valid "+string(action), func(t *testing.T) {
			t.Parallel()
			older := uuid.New()
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return fakellm.Reply{JSON: reply(older.String())} })
			judge := memory.ModelJudge{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m")}
			d, err := judge.Decide(context.Background(), "Prefers detailed PR summaries", memory.KindPreference, []memory.Memory{{ID: older, Kind: memory.KindPreference, Content: "Prefers terse PR summaries"}})
			require.NoError(t, err)
			require.Equal(t, action, d.Action)
		})
	}
}
