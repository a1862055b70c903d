package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
)

// A turn's recall record is written in one round trip, however many
// memories recall chose: the turn waits for it before its model request.
// A retry of the turn replaces what its earlier attempt recorded, and a
// memory deleted since recall chose it is left out; each record adds the
// recall's step.
func TestRecordRecallIsOneRoundTripAndReplacesAnEarlierAttempt(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	trips := &testdb.RoundTrips{}
	pool := d.Traced(t, trips)
	usage := db.New(pool).Usage()

	turn, _, err := d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public},
		MessageTS: "1800000000.000100", ActorID: "UA"})
	require.NoError(t, err)
	var chosen []db.Recalled
	for i := range 12 {
		m, err := d.DB.Memories().Insert(ctx, db.MemoryInsert{
			Team: "T1", Scope: "channel", SubjectType: "channel", SubjectID: "C1", Kind: "knowledge",
			Content: fmt.Sprintf("Fact number %d about the deploys", i), SourceKey: "slack:T1:C1:1800000000.000100",
			ChannelID: "C1", Visibility: "public", ActorID: "UA", WrittenBy: "explicit", ObservedAt: time.Now(),
			IdempotencyKey: fmt.Sprint("fact-", i),
		})
		require.NoError(t, err)
		chosen = append(chosen, db.Recalled{Rank: i + 1, MemoryID: m.ID, Score: float64(12 - i), Leg: "lexical"})
	}
	step := db.Step{Kind: db.StepRecall, Name: "recall", Outcome: "ok", Duration: 7 * time.Millisecond, At: time.Now()}

	// Warmed up once, so the count is of the steady state (no statement
	// prepared for the first time).
	require.NoError(t, usage.RecordRecall(ctx, turn.ID, chosen[:1], step))
	trips.Reset()
	require.NoError(t, usage.RecordRecall(ctx, turn.ID, chosen, step))
	require.Len(t, trips.Trips(), 1, "one round trip for %d memories: %v", len(chosen), trips.Trips())
	got, err := d.DB.Usage().Recalls(ctx, turn.ID)
	require.NoError(t, err)
	require.Equal(t, chosen, got)

	// The retry recalls three, one of them deleted since it was chosen.
	_, err = d.Pool.Exec(ctx, "DELETE FROM memories WHERE id = $1", chosen[11].MemoryID)
	require.NoError(t, err)
	retry := []db.Recalled{
		{Rank: 1, MemoryID: chosen[5].MemoryID, Score: 3, Leg: "both"},
		{Rank: 2, MemoryID: chosen[11].MemoryID, Score: 2, Leg: "vector"},
		{Rank: 3, MemoryID: chosen[0].MemoryID, Score: 1, Leg: "lexical"},
	}
	require.NoError(t, usage.RecordRecall(ctx, turn.ID, retry, step))
	got, err = d.DB.Usage().Recalls(ctx, turn.ID)
	require.NoError(t, err)
	require.Equal(t, []db.Recalled{retry[0], retry[2]}, got, "the earlier attempt's ranks are gone, and the deleted memory is left out")

	// And a retry that recalled nothing leaves nothing.
	require.NoError(t, usage.RecordRecall(ctx, turn.ID, nil, db.Step{Kind: db.StepRecall, Name: "recall", Outcome: "error", At: time.Now()}))
	got, err = d.DB.Usage().Recalls(ctx, turn.ID)
	require.NoError(t, err)
	require.Empty(t, got)

	steps, err := d.DB.Usage().Steps(ctx, turn.ID)
	require.NoError(t, err)
	require.Len(t, steps, 4, "each record adds the recall's step")
	require.Equal(t, db.StepRecall, steps[1].Kind)
	require.Equal(t, 7*time.Millisecond, steps[1].Duration)
	require.Equal(t, "error", steps[3].Outcome)
}
