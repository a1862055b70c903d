package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// maxTripsToRemember is the most database round trips a remember of a new
// memory makes without the model's review: the duplicate check before the
// transaction (with its BEGIN and COMMIT), then the transaction that takes
// the subject's lock, checks again, and inserts the memory with its
// history's first event in one statement. Raise it only with a reason:
// passive learning pays it for every memory it writes, beside the turns.
const maxTripsToRemember = 9

// A remember of a new memory makes at most maxTripsToRemember round trips,
// in steady state (after a warm-up, so no statement is prepared for the
// first time), and its history still begins with its creation.
func TestRememberRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	trips := &testdb.RoundTrips{}
	store := memory.New(db.New(d.Traced(t, trips)), memory.Options{})
	alice := user("UA")
	remember := func(content string) memory.Outcome {
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopeChannel,
			Kind: memory.KindProcedure, Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		return out
	}
	for i := range 3 {
		remember(fmt.Sprintf("Warm-up note number %d about the staging deploys", i))
	}
	trips.Reset()
	out := remember("Deploys to staging need a green build on main first")
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.LessOrEqual(t, len(trips.Trips()), maxTripsToRemember, "%q", trips.Trips())
	require.Zero(t, trips.Prepares())

	history, err := d.DB.Memories().History(ctx, out.Memory.ID)
	require.NoError(t, err)
	require.Len(t, history, 1)
	require.Equal(t, "create", history[0].Action)
	require.Equal(t, alice.ID, history[0].ActorID)
	require.Equal(t, string(memory.PathOf(provenance.ByExplicit)), history[0].Path)
}
