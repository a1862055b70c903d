package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// The shared memories a person wrote (the App Home's second list, the
// self-service export) go through the one visibility rule, each judged
// where it was said, instead of a rule of their own that showed an author
// everything they wrote. A thread-only instruction is its subject's alone:
// one whose row names another person (as a learned attribution or an
// import could leave it) is not its writer's to see. Before, the list
// skipped the rule and showed it.
func TestTheSharedMemoriesSomeoneWroteAreJudgedByTheOneRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := user("UA")
	own := b.remember(t, alice, publicThread, memory.ScopeConversation, memory.KindProcedure, "Answer in bullet points in this thread")
	chan1 := b.remember(t, alice, privateChan, memory.ScopeChannel, memory.KindProcedure, "Releases are tagged by the on-call engineer")
	aboutBob := b.remember(t, alice, publicThread2, memory.ScopeConversation, memory.KindProcedure, "Reply to this thread in French")
	_, err := b.db.Pool.Exec(ctx, "UPDATE memories SET subject_type = 'user', subject_id = 'UB' WHERE id = $1", aboutBob.ID)
	require.NoError(t, err)

	home := memory.Viewer{Actor: alice, Place: provenance.Place{Team: team}, Private: true}
	authored, err := b.store.Mine(ctx, home, memory.MineQuery{Authored: true})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, m := range authored {
		got[m.ID.String()] = true
	}
	require.True(t, got[own.ID.String()], "the control: her own thread's instruction")
	require.True(t, got[chan1.ID.String()], "the control: a private channel's memory she wrote, judged where it was said")
	require.False(t, got[aboutBob.ID.String()], "a thread-only instruction about Bob is his alone")
}
