package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Issue 20, defect 4: a secret in a forget reason was stored in
// memory_events and the archive reason, and /mnemo history showed it to
// everyone in the channel. It is redacted before the write; the rest of the
// reason is kept.
func TestForgetReasonIsRedactedBeforeItIsStored(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice, bob := user("UA"), user("UB")
	m := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, "The staging database lives on db-staging-2")
	const reason = "moved to vault, the password is Tr0ub4dor&3 now"
	out, err := b.store.Forget(ctx, memory.ViewerAt(alice, publicThread), m.ShortID(), reason, memory.PathSlash)
	require.NoError(t, err)
	require.NotNil(t, out.Forgotten)

	want := "moved to vault, the password is " + detect.RedactedMarker + " now"
	require.Equal(t, want, mustGet(t, b, m.ID).ArchivedReason)
	_, events, err := b.store.History(ctx, memory.ViewerAt(bob, publicThread), m.ID.String())
	require.NoError(t, err)
	require.Equal(t, []string{"create", "archive"}, actions(events))
	require.Equal(t, want, events[1].Reason, "what /mnemo history shows Bob")
	var stored int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_events WHERE memory_id = $1 AND reason LIKE '%moved to vault%'`, m.ID).Scan(&stored))
	require.Equal(t, 1, stored, "the query finds the event")
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_events WHERE reason LIKE '%Tr0ub4dor%'`).Scan(&stored))
	require.Zero(t, stored)
}

// The model's review reason is shown to the person and logged by passive
// learning: a secret the model quotes in it (one the detectors found only
// in its words, here a password it spelled out) is redacted where the
// verdict enters mnemo.
func TestModelReviewReasonIsRedacted(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
		return verdict(false, "it holds a credential: the password is Tr0ub4dor&3", "")
	})
	store := memory.New(testdb.New(t).DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "The wifi in the Lisbon office is the one spelled like the hobbit", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Rejected, out.Status)
	require.Equal(t, "it holds a credential: the password is "+detect.RedactedMarker, out.Reason)
}
