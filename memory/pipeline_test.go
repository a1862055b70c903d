package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// mcpAlice is a private place of Alice's other than her DM: her MCP
// session, which only she sees.
var mcpAlice = provenance.Place{Team: team, Channel: "MCPUA", SourceKey: "slack:T1:MCPUA:1800000000.000100", Visibility: provenance.DM}

// Issue 30, item 2: the detectors read the words that led to a write, from
// the live event, not only the sentence the model passed. Alice's message
// names her therapist; the model's sentence does not, and the review calls
// it "none". Said in her DM it is kept there as sensitive; said in public
// it is refused. Control: the same sentence from words that name nothing
// sensitive is an ordinary memory.
func TestTheWordsThatLedToARememberAreRead(t *testing.T) {
	t.Parallel()
	r := &reviewScript{}
	store, _ := r.store(t, nil)
	alice := user("UA")
	const args = `{"content": "Has a standing appointment every Tuesday at four", "kind": "knowledge", "scope": "personal"}`
	said := "remember that I see my therapist every Tuesday at four"

	res := callTool(t, store, memory.ToolRemember, tools.Invocation{Actor: alice, Place: dmAlice, Said: said}, args)
	require.Equal(t, true, res["stored"], "%v", res)
	ms, err := store.ListAll(context.Background(), memory.Filter{SubjectUser: "UA"})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "health", ms[0].Sensitive, "marked by the words that led to it")
	require.Contains(t, r.reviewed, "Has a standing appointment every Tuesday at four", "the model reviewed it and named nothing")

	res = callTool(t, store, memory.ToolRemember, tools.Invocation{Actor: alice, Place: publicThread, Said: "<@U0MNEMO> " + said}, args)
	require.Equal(t, false, res["stored"], "%v", res)
	require.Contains(t, res["reason"], "sensitive personal data (health)")

	res = callTool(t, store, memory.ToolRemember, tools.Invocation{Actor: alice, Place: publicThread, Said: "remember that I have a standing appointment every Tuesday at four"}, args)
	require.Equal(t, true, res["stored"], "control: %v", res)
	ms, err = store.ListAll(context.Background(), memory.Filter{SubjectUser: "UA"})
	require.NoError(t, err)
	require.Len(t, ms, 2)
	for _, m := range ms {
		if m.Visibility == provenance.Public {
			require.Empty(t, m.Sensitive, "control: an ordinary memory")
		}
	}
}

// Issue 30, item 2: the canonical text of a memory about a person is read
// as that person's own statement. With no review model (as in `mnemo mcp`
// without a provider), a health fact or a preference with a health reason,
// in the third person, is kept only in the DM it was said in and refused
// in public. Controls: look-alikes are ordinary memories, and a channel's
// knowledge is not read as anyone's statement.
func TestACanonicalMemoryIsReadAsItsSubjectSaysIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	ctx := context.Background()
	for _, c := range []struct {
		kind    memory.Kind
		content string
	}{
		{memory.KindKnowledge, "Takes antidepressants every morning at nine"},
		{memory.KindPreference, "Prefers remote Fridays for chemotherapy"},
		{memory.KindPreference, "Prefers sugar-free snacks because of diabetes"},
		{memory.KindKnowledge, "Also takes insulin before lunch"},
		{memory.KindKnowledge, "Is pregnant and due in May"},
	} {
		out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Scope: memory.ScopePersonal, Kind: c.kind, Content: c.content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, "%q: %s", c.content, out.Reason)
		require.Equal(t, "health", out.Memory.Sensitive, c.content)
		out, err = b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopePersonal, Kind: c.kind, Content: c.content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Rejected, out.Status, "%q in public", c.content)
		require.Contains(t, out.Reason, "sensitive personal data (health)")
	}
	for _, c := range []struct {
		scope   memory.Scope
		kind    memory.Kind
		content string
	}{
		{memory.ScopePersonal, memory.KindKnowledge, "Takes the 8:15 train"},
		{memory.ScopePersonal, memory.KindKnowledge, "Is the release manager"},
		{memory.ScopePersonal, memory.KindPreference, "Prefers dark mode"},
		{memory.ScopePersonal, memory.KindKnowledge, "Has a standing 1:1 on Thursdays"},
		{memory.ScopePersonal, memory.KindPreference, "Prefers quiet rooms for focus work"},
		{memory.ScopeChannel, memory.KindKnowledge, "The clinic team owns the health dashboard"},
		{memory.ScopeChannel, memory.KindKnowledge, "Runs the insulin pump firmware tests nightly"},
	} {
		out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: c.scope, Kind: c.kind, Content: c.content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, "%q: %s", c.content, out.Reason)
		require.Empty(t, out.Memory.Sensitive, c.content)
	}
}

// Issue 30, item 2: the most sensitive verdict of every check wins: the
// detectors' category (on the canonical text or the words behind it)
// before the model's, and third_party, which no one but its subject may
// store, before any other.
func TestTheMostSensitiveVerdictWins(t *testing.T) {
	t.Parallel()
	r := &reviewScript{answer: func(content string) (string, string) {
		switch {
		case strings.Contains(content, "lawyer"):
			return "legal", ""
		case strings.Contains(content, "sister"):
			return "third_party", ""
		}
		return "finances", ""
	}}
	store, _ := r.store(t, nil)
	alice := user("UA")
	write := func(content, said string) memory.Outcome {
		t.Helper()
		out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: alice, Place: dmAlice, Scope: memory.ScopePersonal, Kind: memory.KindKnowledge, Content: content, Said: []string{said}, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		return out
	}
	out := write("Has a standing appointment every Tuesday at four", "remember I see my therapist every Tuesday at four")
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "health", out.Memory.Sensitive, "the detectors' category before the model's finances")

	out = write("Meets the lawyer every Monday", "remember that I meet the lawyer every Monday")
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "legal", out.Memory.Sensitive, "the model's category when the detectors find none")

	out = write("Takes antidepressants every morning, like her sister", "remember that I take antidepressants every morning like my sister")
	require.Equal(t, memory.Rejected, out.Status, "third_party outranks the detectors' health")
	require.Contains(t, out.Reason, "someone else")
}

// Issue 30, item 4: a preference sensitive only for its reason may be
// stored without it, when the model restates it so and the restatement
// passes every check clean: an ordinary memory, and the note says so.
// Otherwise the sensitive policy applies to the original.
func TestAPreferenceIsKeptWithoutItsSensitiveReason(t *testing.T) {
	t.Parallel()
	r := &reviewScript{answer: func(content string) (string, string) {
		switch content {
		case "Prefers remote Fridays for chemotherapy":
			return "health", "Prefers remote Fridays"
		case "Prefers no meetings on Friday evenings for Shabbat":
			return "religion", "Prefers no meetings on Friday evenings"
		case "Prefers afternoon standups because of morning therapy":
			return "health", "Prefers afternoon standups because of my chemo" // the model calls it none, the detectors do not
		case "Prefers a quiet desk because of migraines":
			return "health", ""
		}
		return "none", ""
	}}
	store, d := r.store(t, nil)
	alice := user("UA")
	ctx := context.Background()
	write := func(place provenance.Place, content string) memory.Outcome {
		t.Helper()
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: place, Kind: memory.KindPreference, Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		return out
	}
	for _, c := range []struct{ said, stored, category string }{
		{"Prefers remote Fridays for chemotherapy", "Prefers remote Fridays", "health"},
		{"Prefers no meetings on Friday evenings for Shabbat", "Prefers no meetings on Friday evenings", "religion"},
	} {
		out := write(publicThread, c.said)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, c.stored, out.Memory.Content)
		require.Empty(t, out.Memory.Sensitive, "an ordinary memory")
		require.Contains(t, out.Note, "without the part that is sensitive personal data ("+c.category+")")
		require.Contains(t, r.reviewed, c.stored, "the restatement was reviewed too")
	}
	var n int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE content LIKE '%Fridays%'`).Scan(&n))
	require.Equal(t, 1, n, "control: the query finds the stored restatement")
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE content LIKE '%chemo%' OR content LIKE '%Shabbat%'`).Scan(&n))
	require.Zero(t, n, "the reason is stored nowhere")

	// A restatement that a check still finds sensitive, or none: the
	// original is judged.
	for _, content := range []string{"Prefers afternoon standups because of morning therapy", "Prefers a quiet desk because of migraines"} {
		out := write(publicThread, content)
		require.Equal(t, memory.Rejected, out.Status, content)
		require.Contains(t, out.Reason, "sensitive personal data (health)")
		out = write(dmAlice, content)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, content, out.Memory.Content)
		require.Equal(t, "health", out.Memory.Sensitive)
		require.Empty(t, out.Note)
	}
}

// Issue 30, item 3: a fact learned in a DM that any check marks sensitive
// stays in that DM and reaches no model request elsewhere. Here the model
// wrote the memory in the third person, as a preference, and only the
// detectors reading it as Alice's own statement mark it. Every
// path a model is given memories by is checked in public, in a private
// channel and in another private place of Alice's own (her MCP session):
// the prompt before a turn (Apply), the recall and list tools' results,
// and the candidates of a write's update decision. Controls: in the DM
// each path has it, and Alice alone is shown it in her private place.
func TestAFactAnyCheckMarksSensitiveStaysInItsDM(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	ctx := context.Background()
	res := callTool(t, b.store, memory.ToolRemember, tools.Invocation{Actor: alice, Place: dmAlice},
		`{"content": "Takes antidepressants every morning at nine", "kind": "preference"}`)
	require.Equal(t, true, res["stored"], "%v", res)
	ms, err := b.store.ListAll(ctx, memory.Filter{SubjectUser: "UA"})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	fact := ms[0]
	require.Equal(t, "health", fact.Sensitive)

	has := func(ms []memory.Memory) bool {
		for _, m := range ms {
			if m.ID == fact.ID {
				return true
			}
		}
		return false
	}
	offered := func(place provenance.Place) bool {
		t.Helper()
		var seen []uuid.UUID
		b.adj.decide = func(_ string, cands []memory.Memory) memory.Decision {
			for _, c := range cands {
				seen = append(seen, c.ID)
			}
			return memory.Decision{Action: memory.ActionAdd}
		}
		out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: place, Scope: memory.ScopePersonal, Kind: memory.KindPreference, Content: "Takes vitamins every morning at nine in " + place.Channel, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.NotEqual(t, memory.Rejected, out.Status, out.Reason)
		return slices.Contains(seen, fact.ID)
	}
	for _, place := range []provenance.Place{publicThread, privateChan, mcpAlice} {
		applied, err := b.store.ForPrompt(ctx, memory.ViewerAt(alice, place), "what should my morning routine look like")
		require.NoError(t, err)
		require.False(t, has(applied), "applied in the prompt in %s", place.Channel)
		for _, tool := range []struct{ name, args string }{{memory.ToolRecall, `{"query": "morning antidepressants"}`}, {memory.ToolList, `{}`}} {
			require.NotContains(t, callToolRaw(t, b.store, tool.name, tools.Invocation{Actor: alice, Place: place}, tool.args), "antidepressants", "%s in %s", tool.name, place.Channel)
		}
		require.False(t, offered(place), "an update candidate in %s", place.Channel)
	}
	shown, err := b.store.Search(ctx, memory.ViewerAt(alice, mcpAlice), "antidepressants", 10, true)
	require.NoError(t, err)
	require.True(t, has(shown), "control: shown to her alone, not through a model")

	// Controls, in the DM.
	applied, err := b.store.ForPrompt(ctx, memory.ViewerAt(alice, dmAlice), "what should my morning routine look like")
	require.NoError(t, err)
	require.True(t, has(applied))
	require.Contains(t, callToolRaw(t, b.store, memory.ToolRecall, tools.Invocation{Actor: alice, Place: dmAlice}, `{"query": "morning antidepressants"}`), "antidepressants")
	require.Contains(t, callToolRaw(t, b.store, memory.ToolList, tools.Invocation{Actor: alice, Place: dmAlice}, `{}`), "antidepressants")
	require.True(t, offered(dmAlice), "a candidate where it was said")
}
