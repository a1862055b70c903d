package memory_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// A forget's optional reason is the model's or an MCP client's words: a
// NUL in it is dropped, and the memory is forgotten. It used to fail the
// whole forget, the memory still active.
func TestForgetWithANulInItsReasonForgets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	m := b.remember(t, alice, dmAlice, memory.ScopePersonal, memory.KindPreference, "Prefers terse PR summaries")
	reg := tools.NewRegistry()
	require.NoError(t, b.store.Register(reg))

	inv := tools.Invocation{Actor: alice, Place: dmAlice, WrittenBy: provenance.ByMCP}
	res := reg.Call(context.Background(), inv, tools.ExecuteToolName, json.RawMessage(`{"tool_name":"memory__forget","arguments":{"memory":"`+m.ID.String()+`","reason":"no longer \u0000 true\u001b[2J"}}`))
	require.False(t, res.IsError, res.Content)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
	require.Equal(t, true, out["ok"], res.Content)

	got, err := b.store.Get(context.Background(), m.ID)
	require.NoError(t, err)
	require.NotNil(t, got.ArchivedAt, "the memory is forgotten")
	require.Equal(t, "no longer  true[2J", got.ArchivedReason)
	_, events, err := b.store.History(context.Background(), memory.ViewerAt(alice, dmAlice), m.ID.String())
	require.NoError(t, err)
	require.Equal(t, "archive", events[len(events)-1].Action)
	require.Equal(t, "no longer  true[2J", events[len(events)-1].Reason)
}

// Control characters and bidirectional overrides in a memory's text, from
// whoever wrote it or from the model's review, are not stored: `mnemo
// memories` would show them to an operator's terminal, which runs them.
func TestControlCharactersAreNotStoredInAMemory(t *testing.T) {
	t.Parallel()
	const want = "Prefers [2J[31mterse PR summaries"
	t.Run("as written", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		m := b.remember(t, user("UA"), dmAlice, memory.ScopePersonal, memory.KindPreference, "Prefers \x1b[2J\x1b[31mterse\x07\x08\x08 PR summaries\u202e")
		require.Equal(t, want, m.Content)
		got, err := b.store.Get(context.Background(), m.ID)
		require.NoError(t, err)
		require.Equal(t, want, got.Content)
	})
	t.Run("as the review wrote it", func(t *testing.T) {
		t.Parallel()
		srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
			return verdict(true, "durable", `Prefers \u001b[2J\u001b[31mterse\u0007 PR \u2066summaries\u2069\u202e`)
		})
		b := setup(t)
		store := memory.New(b.db.DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
		out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer terse PR summaries", WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, want, out.Memory.Content)
	})
}

// Text without such characters keeps its canonical form, and so its
// normalized form and idempotency key: a line break that is a control
// character (vertical tab, form feed, NEL) still parts two words.
func TestOrdinaryMemoryTextIsCanonicalizedAsBefore(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"I prefer terse PR summaries", "Préfère\tles résumés\ncourts 🙂", "يفضل الملخصات القصيرة"} {
		require.Equal(t, s, db.Sanitize(s))
	}
	want := memory.Canonicalize("I prefer terse PR summaries")
	require.Equal(t, "Prefers terse PR summaries", want)
	for _, s := range []string{"I prefer\vterse PR\fsummaries", "I prefer\u0085terse PR summaries"} {
		require.Equal(t, want, memory.Canonicalize(s), "%q", s)
	}
}
