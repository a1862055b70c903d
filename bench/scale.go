package bench

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// IndexBytes is what recall's index costs on disk beside the memories it
// indexes: the postings and statistics that the write triggers keep
// (db/definitions/30_recall_index.sql), and, as the baseline, a GIN
// index of the memories' text vectors alone over the same rows, which the
// bench builds to measure it (the schema's own, memories_subject_search,
// holds each memory's subject too).
type IndexBytes struct {
	Memories int64 // active memories indexed
	// Postings is memory_postings,
	// memory_term_stats, memory_part_stats and memory_vocab, indexes and
	// TOAST included.
	Postings int64
	GIN      int64 // a GIN index of memories.search
	Table    int64 // memories, its own indexes included
}

// recallIndexTables are the tables of recall's index.
var recallIndexTables = []string{"memory_postings", "memory_term_stats", "memory_part_stats", "memory_vocab"}

// MeasureIndexBytes reads the sizes after a VACUUM, as a loaded corpus
// leaves them. The baseline's GIN is built as memories_search once was,
// measured and dropped.
func MeasureIndexBytes(ctx context.Context, pool *pgxpool.Pool) (IndexBytes, error) {
	var ib IndexBytes
	if _, err := pool.Exec(ctx, "CREATE INDEX bench_gin_baseline ON memories USING gin (search) WITH (fastupdate = off)"); err != nil {
		return ib, fmt.Errorf("index bytes: the baseline's GIN: %w", err)
	}
	defer pool.Exec(context.WithoutCancel(ctx), "DROP INDEX IF EXISTS bench_gin_baseline") //nolint:errcheck
	err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories WHERE archived_at IS NULL),
		(SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest($1::text[]) AS t)::bigint,
		pg_relation_size('bench_gin_baseline'), pg_total_relation_size('memories') - pg_relation_size('bench_gin_baseline')`, recallIndexTables).
		Scan(&ib.Memories, &ib.Postings, &ib.GIN, &ib.Table)
	if err != nil {
		return ib, fmt.Errorf("index bytes: %w", err)
	}
	return ib, nil
}

func addIndexBytes(t *Table, rows int, ib IndexBytes) {
	if ib.Memories == 0 {
		return
	}
	per := float64(ib.Postings) / float64(ib.Memories)
	gin := float64(ib.GIN) / float64(ib.Memories)
	t.Add(Row{Metric: fmt.Sprintf("recall index bytes per memory @%s (postings, statistics, vocabulary)", count(rows)),
		Target: "≤ 3× the GIN", Measured: fmt.Sprintf("%.0f B (%s in all)", per, mib(ib.Postings)),
		Baseline: fmt.Sprintf("%.0f B GIN tsvector (of memories.search, %s)", gin, mib(ib.GIN)),
		Ratio:    fmt.Sprintf("%.1f×", per/gin), Met: met(per <= 3*gin),
		Why: fmt.Sprintf("memories itself, with its indexes: %.0f B per memory", float64(ib.Table)/float64(ib.Memories))})
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// addSlopes adds, for each pair of corpus sizes a tenfold apart, how many
// times recall's p95 grew: the slope per tenfold that docs/scale.md
// extrapolates from.
func addSlopes(t *Table, rs []RecallResult) {
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		if a.Rows*10 != b.Rows {
			continue
		}
		for _, s := range []struct {
			name string
			x, y time.Duration
		}{{"auto-recall (ForPrompt)", a.Auto.P95, b.Auto.P95}, {"recall tool (Search)", a.Tool.P95, b.Tool.P95}} {
			if s.x <= 0 {
				continue
			}
			k := float64(s.y) / float64(s.x)
			t.Add(Row{Metric: fmt.Sprintf("%s p95 slope per tenfold, %s → %s", s.name, count(a.Rows), count(b.Rows)), Target: "—",
				Measured: fmt.Sprintf("×%.2f (%s → %s)", k, ms(s.x), ms(s.y)), Baseline: "—", Ratio: "—",
				Why: fmt.Sprintf("as a power of the size: %.2f", math.Log10(k))})
		}
	}
}
