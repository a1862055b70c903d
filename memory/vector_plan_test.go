package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// The vector leg's plans, as recall runs them (prepared, with the
// transaction's settings): where the asker's partitions hold more than
// memory.ExactScan allows, the HNSW index is walked (iteratively, so
// the visibility filter does not starve it); where they hold fewer (a
// small workspace), the visible rows are found through memories' indexes
// and compared exactly. Neither reads memories or memory_vectors whole.
// The vector leg's way by size: exact for few memories, the walk for
// many, the crossing growing as the square root of the index.
func TestExactScanBySize(t *testing.T) {
	for _, c := range []struct {
		visible, vectors int64
		exact            bool
	}{
		{10, 0, true}, {memory.ExactScanMin, 1 << 40, true},
		{2000, 100_000, true}, {3000, 100_000, false},
		{7500, 1_000_000, true}, {9000, 1_000_000, false},
		{memory.ExactScanMax + 1, 1 << 40, false}, {1500, 0, false},
	} {
		require.Equal(t, c.exact, memory.ExactScan(c.visible, c.vectors), "%d visible of %d vectors", c.visible, c.vectors)
	}
	// Past the exact scan, the split way where the workspace's public
	// memories are nearly all the asker sees, the walk otherwise.
	for _, c := range []struct {
		size db.VectorSize
		way  db.VectorWay
	}{
		{db.VectorSize{Visible: 900, Public: 800, Vectors: 1 << 20}, db.VectorExact},
		{db.VectorSize{Visible: 25_000, Public: 24_000, Vectors: 1_000_000}, db.VectorSplit},
		{db.VectorSize{Visible: 21_000, Public: 18_500, Vectors: 1_000_000}, db.VectorSplit},
		{db.VectorSize{Visible: 21_000, Public: 17_500, Vectors: 1_000_000}, db.VectorWalk},
		{db.VectorSize{Visible: 25_000, Public: 10_000, Vectors: 1_000_000}, db.VectorWalk},
		{db.VectorSize{Visible: 25_000, Public: 0, Vectors: 1_000_000}, db.VectorWalk},
	} {
		require.Equal(t, c.way, memory.VectorWayFor(c.size), "%+v", c.size)
	}
}

func TestVectorLegPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	spec := corpus.Spec{Rows: 20_000, Seed: 7, Now: time.Now()}
	require.NoError(t, corpus.Load(ctx, d.Pool, spec))
	const dim = 64
	// Clustered vectors, as the bench makes them, written in SQL: the plan
	// depends on counts and sizes, not on what the vectors say.
	_, err := d.Pool.Exec(ctx, fmt.Sprintf(`INSERT INTO memory_vectors (id, model, dim, embedding, part, public_team)
		SELECT m.id, 'm', %d, ARRAY(SELECT (hashint4(g + 100 * (hashtext(m.content) %% 7)) %% 1000) / 1000.0 + random() / 10
		                            FROM generate_series(1, %d) g)::real[]::halfvec, memory_part_of(m), memory_public_team(m)
		FROM memories m`, dim, dim))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, "UPDATE memories SET embedding_model = 'm', embedding_dim = $1", dim)
	require.NoError(t, err)
	require.NoError(t, d.DB.EnsureVectorIndex(ctx, dim))
	_, err = d.Pool.Exec(ctx, "VACUUM (ANALYZE) memories, memory_vectors")
	require.NoError(t, err)

	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(i%7) / 7
	}
	plan := func(v memory.Viewer, way db.VectorWay) string {
		s := testdb.Statement{Name: "vector", Settings: db.VectorSettings, SQL: db.VectorSQL(dim, way),
			Args: []any{db.VectorLiteral(q), "m", v.Place.Team, v.Actor.ID, v.Place.Channel, v.Place.SourceKey, v.Private, false, memory.VectorK, ""}}
		return explain(t, d.Pool, s)
	}
	visible := func(v memory.Viewer) int64 {
		z, err := d.DB.Memories().VectorScanSize(ctx, v.Place.Team, v.Actor.ID, v.Place.Channel, v.Place.SourceKey, "")
		require.NoError(t, err)
		return z.Visible
	}
	wholeReads := func(p string) []string {
		var out []string
		walk(root(t, p), func(n map[string]any) {
			if rel := fmt.Sprint(n["Relation Name"]); n["Node Type"] == "Seq Scan" && (rel == "memories" || rel == "memory_vectors") {
				out = append(out, rel)
			}
		})
		return out
	}

	// The busiest place of the main workspace: the index.
	var big memory.Viewer
	for _, qu := range spec.Queries(100) {
		if v := memory.ViewerAt(qu.Actor, qu.Place); visible(v) > visible(big) || big.Actor.ID == "" {
			big = v
		}
	}
	// (Here its partitions hold few enough for ExactScan, so recall would
	// scan them exactly; at make bench's million memories, many places
	// hold more. The plan of the index walk is what is checked here.)
	p := plan(big, db.VectorWalk)
	require.Contains(t, p, db.VectorIndexName(dim), "the HNSW index is walked:\n%s", p)
	require.Empty(t, wholeReads(p), p)
	// Split: the public memories' own index is walked, the asker's other
	// partitions scanned through their branches; the whole index is not.
	p = plan(big, db.VectorSplit)
	require.Contains(t, p, db.VectorPublicIndexName(dim), "the public memories' HNSW index is walked:\n%s", p)
	require.NotContains(t, p, db.VectorIndexName(dim), p)
	require.Contains(t, p, "memory_vectors_part", "the asker's other partitions' vectors by their partition:\n%s", p)
	// The public memories are left out of that read by its index's
	// condition, not read and then dropped.
	walk(root(t, p), func(n map[string]any) {
		cond := fmt.Sprint(n["Recheck Cond"], n["Index Cond"])
		if n["Relation Name"] == "memory_vectors" && strings.Contains(cond, "part = ANY") {
			removed, _ := n["Rows Removed by Filter"].(float64)
			require.Zero(t, removed, "the split way reads vectors it then drops:\n%s", p)
		}
	})
	require.Empty(t, wholeReads(p), p)

	// A small workspace (a hundredth of the corpus): an exact scan of what
	// the asker may see.
	person := corpus.PersonAt(1)
	small := memory.ViewerAt(provenance.Actor{Kind: provenance.KindUser, Team: corpus.OtherTeam, ID: person.ID, Name: person.Name},
		provenance.Place{Team: corpus.OtherTeam, Channel: "C0", SourceKey: "slack:" + corpus.OtherTeam + ":C0:1", Visibility: provenance.Public})
	require.LessOrEqual(t, visible(small), int64(memory.ExactScanMin))
	p = plan(small, db.VectorExact)
	require.NotContains(t, p, db.VectorIndexName(dim), "an exact scan:\n%s", p)
	require.Empty(t, wholeReads(p), p)
	require.NotContains(t, p, "memory_vectors_pkey", "no vector is read by key:\n%s", p)
	// The partitions' vectors are read once each, through their partition,
	// not each by its key; and a memory's row is read only to decide the
	// nearest ones' visibility, in turn, as far as needed: not every
	// candidate's. (The busiest place's partitions, scanned exactly, hold
	// many more than the leg returns.)
	p = plan(big, db.VectorExact)
	require.NotContains(t, p, db.VectorIndexName(dim), "an exact scan:\n%s", p)
	require.Empty(t, wholeReads(p), p)
	require.NotContains(t, p, "memory_vectors_pkey", "no vector is read by key:\n%s", p)
	candidates, pkeyReads, returned := 0, 0, 0
	walk(root(t, p), func(n map[string]any) {
		loops, _ := n["Actual Loops"].(float64)
		rows, _ := n["Actual Rows"].(float64)
		switch {
		case n["Index Name"] == "memory_vectors_part":
			candidates += int(rows * max1(loops))
		case n["Index Name"] == "memories_pkey":
			pkeyReads += int(loops)
		case n["CTE Name"] == "near":
			returned = int(rows)
		}
	})
	require.Positive(t, returned, p)
	require.Greater(t, candidates, 4*returned, "the scan compares more vectors than it returns:\n%s", p)
	// Each returned memory is read twice (its visibility, its row), and a
	// few near ones the asker may not see here once.
	require.Less(t, pkeyReads, candidates/2, "memories read by key only near the top:\n%s", p)
	require.GreaterOrEqual(t, pkeyReads, 2*returned, p)
}
