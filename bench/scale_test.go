package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// TestIndexBytesCountsTheIndexBesideTheGIN: the postings' bytes per memory
// are read from the tables the triggers fill, beside the GIN index of the
// same rows, and grow with the corpus.
func TestIndexBytesCountsTheIndexBesideTheGIN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	empty, err := MeasureIndexBytes(ctx, d.Pool)
	require.NoError(t, err)
	require.Zero(t, empty.Memories)
	require.NoError(t, corpus.Load(ctx, d.Pool, corpus.Spec{Rows: 2000, Seed: 1, Now: time.Now()}))
	ib, err := MeasureIndexBytes(ctx, d.Pool)
	require.NoError(t, err)
	var active int64
	require.NoError(t, d.Pool.QueryRow(ctx, "SELECT count(*) FROM memories WHERE archived_at IS NULL").Scan(&active))
	require.Positive(t, active, "positive control: the corpus has active memories")
	require.Equal(t, active, ib.Memories)
	require.Greater(t, ib.Postings, empty.Postings)
	require.Positive(t, ib.GIN)
	var tab Table
	addIndexBytes(&tab, 2000, ib)
	require.Len(t, tab.Rows, 1)
	require.Contains(t, tab.Rows[0].Metric, "@2k")
	require.Contains(t, tab.Rows[0].Baseline, "GIN tsvector")
}

func TestSlopesComparePairsATenfoldApart(t *testing.T) {
	t.Parallel()
	var tab Table
	addSlopes(&tab, []RecallResult{
		{Rows: 10_000, Auto: Latency{P95: 2 * time.Millisecond}, Tool: Latency{P95: 3 * time.Millisecond}},
		{Rows: 100_000, Auto: Latency{P95: 4 * time.Millisecond}, Tool: Latency{P95: 3 * time.Millisecond}},
		{Rows: 300_000, Auto: Latency{P95: 9 * time.Millisecond}},
	})
	require.Len(t, tab.Rows, 2, "10k → 100k only: 300k is not a tenfold")
	require.True(t, strings.HasPrefix(tab.Rows[0].Measured, "×2.00"), tab.Rows[0].Measured)
	require.Contains(t, tab.Rows[0].Why, "0.30")
	require.True(t, strings.HasPrefix(tab.Rows[1].Measured, "×1.00"), tab.Rows[1].Measured)
}
