package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/embedding"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// make bench-vector (issue 31): the vector leg of recall over a corpus of
// bench/corpus's memories, one workspace holding a tenth of them, with
// embeddings shaped like a text model's (Clustered) at each dimension.

// SmallTeam is the workspace that holds a tenth of the vector bench's
// rows: every tenth row of the corpus, moved there, so that the vector
// leg's tenancy filter keeps a tenth of the index.
const SmallTeam = "TBENCH10"

// VectorOptions is a run of the vector bench.
type VectorOptions struct {
	Server string
	Rows   int   // memories (default 100,000)
	Dims   []int // embedding dimensions (default 512 and 768)
	// Queries are asked at each dimension, half in the main workspace and
	// half in the small one (default 300).
	Queries int
	// Remember is how many memories are remembered with the embedding
	// job running and as many without it (default 900).
	Remember int
	Database string // default mnemo_bench_vector
	// Keep leaves the database in place after the run, with the last
	// dimension's embeddings and index, for looking at plans by hand (it
	// is dropped at the next run).
	Keep bool
	Log  func(format string, args ...any)
}

// VectorResult is what the vector bench measured.
type VectorResult struct {
	Started   time.Time
	Took      time.Duration
	Machine   Machine
	PGVector  string
	Rows      int // memories loaded
	Active    int64
	SmallRows int64 // active memories of SmallTeam
	Load      time.Duration
	Dims      []VectorDim
	// Visibility sums the property checks of every dimension.
	Visibility VisibilityCheck
	// Remember is remember's latency with the embedding job off (the
	// lexical-only baseline), on as serve schedules it, and on
	// continuously, in blocks taking turns.
	RememberOff, RememberOn, RememberContinuous Latency
	// JobEmbedded and ContinuousEmbedded are how many memories the job
	// embedded while on.
	JobEmbedded, ContinuousEmbedded int64
	RememberDim                     int
}

// VectorDim is one dimension's measurements.
type VectorDim struct {
	Dim int
	// Store is writing every active memory's embedding, through the
	// embedding job's own statement (db.StoreEmbeddings).
	Store time.Duration
	// Build is the HNSW index's build (db.EnsureVectorIndex) over them,
	// with MaintenanceWorkMem.
	Build              time.Duration
	MaintenanceWorkMem string
	IndexBytes         int64
	Indexed            int64 // rows of that dimension
	// PublicBytes and PublicIndexed are the HNSW index of the
	// workspaces' public memories (the split way's).
	PublicBytes, PublicIndexed int64
	TableBytes                 int64 // memory_vectors, without its indexes
	// Recall@10 of the HNSW walk (as recall runs it: iterative, ef_search
	// 100, the leg's VectorK, its first 10) against an exact scan of the
	// same visible rows, per workspace; and as recall runs it, where the
	// asker's partitions that memory.ExactScan allows are
	// scanned exactly.
	IndexRecall, IndexRecallSmall, AsRunRecall float64
	RecallN, RecallSmallN                      int
	ExactShare                                 float64 // queries recall scans exactly
	SplitShare                                 float64 // queries recall reads the split way
	// SplitRecall is recall@10 of the split way against the exact scan,
	// over the questions recall reads that way.
	SplitRecall float64
	SplitN      int
	// Hybrid is auto-recall (ForPrompt) with both legs, its query's
	// embedding excluded (Embed times it); Lexical is the same queries
	// lexical-only, in the same run, alternating with it.
	Hybrid, Lexical Latency
	// Leg is the vector leg alone as recall runs it (the asker's row
	// counts, then the index walk, the exact scan or the two split).
	Leg, LegExact, LegIndex, LegSplit Latency
	// Embed is the query's embedding, through the OpenAI SDK client
	// against the fake embeddings server over HTTP.
	Embed Latency
	// Paths is what the exact scan and the index walk each cost over the
	// same questions, by how many memories the asker's partitions hold.
	Paths []PathCost
	// BruteChecked questions' exact scans were compared with a brute-force
	// scan; BruteDiffered of them differed.
	BruteChecked, BruteDiffered int
	// Found counts auto-recall's memories by the leg that found them.
	Found     map[string]int
	Fallbacks int
}

// VisibilityCheck is the property "the vector leg never returns a memory
// the asker may not see", checked over every query, for Show and Apply,
// through the index and exactly, with the query's embedding and with a
// direction no text has.
type VisibilityCheck struct {
	Calls, Returned, Violations int
	// ByKind counts the memories returned by scope and visibility
	// ("channel/private"), to show the check covered them.
	ByKind   map[string]int
	Examples []string
}

func (o *VectorOptions) defaults() {
	if o.Rows <= 0 {
		o.Rows = 100_000
	}
	if len(o.Dims) == 0 {
		o.Dims = []int{512, 768}
	}
	if o.Queries <= 0 {
		o.Queries = 300
	}
	if o.Remember <= 0 {
		o.Remember = 900
	}
	if o.Database == "" {
		o.Database = "mnemo_bench_vector"
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
}

// vectorModel names the bench's embeddings of dim dimensions.
func vectorModel(dim int) string { return fmt.Sprintf("bench-clustered-%d", dim) }

// vectorRow is the corpus's i-th row, every tenth one moved to SmallTeam.
func vectorRow(spec corpus.Spec, i int) corpus.Row {
	r := spec.Row(i)
	if i%10 != 9 {
		return r
	}
	from := r.Team
	r.Team = SmallTeam
	r.SourceKey = strings.Replace(r.SourceKey, ":"+from+":", ":"+SmallTeam+":", 1)
	if r.SubjectID == from {
		r.SubjectID = SmallTeam
	} else if strings.Contains(r.SubjectID, ":"+from+":") {
		r.SubjectID = strings.Replace(r.SubjectID, ":"+from+":", ":"+SmallTeam+":", 1)
	}
	r.IdempotencyKey = SmallTeam + ":" + r.IdempotencyKey
	return r
}

// vectorQueries are the corpus's questions, every other one asked in
// SmallTeam.
func vectorQueries(spec corpus.Spec, n int) []corpus.Query {
	qs := spec.Queries(n)
	for i := range qs {
		if i%2 == 0 {
			continue
		}
		q := &qs[i]
		from := q.Place.Team
		q.Actor.Team, q.Place.Team = SmallTeam, SmallTeam
		q.Place.SourceKey = strings.Replace(q.Place.SourceKey, ":"+from+":", ":"+SmallTeam+":", 1)
	}
	return qs
}

// cachedEmbedder answers only texts embedded beforehand: the timed
// recalls exclude the query's embedding, which is timed on its own.
type cachedEmbedder map[string][]float32

func (c cachedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := c[t]
		if !ok {
			return nil, fmt.Errorf("bench: %q was not embedded beforehand", t)
		}
		out[i] = v
	}
	return out, nil
}

// RunVector runs the vector bench.
func RunVector(ctx context.Context, o VectorOptions) (*VectorResult, error) {
	o.defaults()
	res := &VectorResult{Started: time.Now(), Rows: o.Rows}
	var err error
	if res.Machine, err = Describe(ctx, o.Server); err != nil {
		return nil, err
	}
	d, err := NewDatabase(ctx, o.Server, o.Database, 8)
	if err != nil {
		return nil, err
	}
	if o.Keep {
		defer d.Pool.Close()
	} else {
		defer d.Close()
	}
	if ok, err := d.DB.HasVectors(ctx); err != nil {
		return nil, err
	} else if !ok {
		return nil, errors.New("the server has no pgvector: run make db, which installs it (scripts/pgvector.sh)")
	}
	if err := d.Pool.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&res.PGVector); err != nil {
		return nil, err
	}

	spec := corpus.Spec{Rows: o.Rows, Seed: 31, Now: time.Now()}
	t := time.Now()
	if err := corpus.LoadRows(ctx, d.Pool, o.Rows, func(i int) corpus.Row { return vectorRow(spec, i) }); err != nil {
		return nil, err
	}
	res.Load = time.Since(t)
	if err := d.Pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE team_id = $1) FROM memories WHERE archived_at IS NULL`, SmallTeam).
		Scan(&res.Active, &res.SmallRows); err != nil {
		return nil, err
	}
	o.Log("vector: %d memories loaded in %s (%d active, %d in %s)", o.Rows, res.Load.Round(time.Millisecond), res.Active, res.SmallRows, SmallTeam)

	run := &harness.Run{}
	defer run.Close()
	fake := fakellm.New(run, nil)
	qs := vectorQueries(spec, o.Queries)
	res.Visibility.ByKind = map[string]int{}
	for _, dim := range o.Dims {
		gen := NewClustered(dim, 31)
		fake.EmbedWith(gen.Text)
		emb := llm.NewEmbedder("bench", fake.URL+"/v1", vectorModel(dim))
		vd, err := measureDim(ctx, d, spec, qs, gen, emb, dim, o, &res.Visibility)
		if err != nil {
			return nil, fmt.Errorf("%d dimensions: %w", dim, err)
		}
		res.Dims = append(res.Dims, vd)
		if dim != o.Dims[len(o.Dims)-1] {
			// Keep only the last dimension's indexes, which remember
			// measures beside.
			for _, ix := range []string{db.VectorIndexName(dim), db.VectorPublicIndexName(dim)} {
				if _, err := d.Pool.Exec(ctx, "DROP INDEX "+pgx.Identifier{ix}.Sanitize()); err != nil {
					return nil, err
				}
			}
		}
	}
	last := o.Dims[len(o.Dims)-1]
	res.RememberDim = last
	emb := llm.NewEmbedder("bench", fake.URL+"/v1", vectorModel(last))
	if err := measureRememberWithJob(ctx, d, spec, emb, last, o, res); err != nil {
		return nil, err
	}
	if res.Machine.LoadEnd, err = loadAverage(); err != nil {
		res.Machine.LoadEnd = "?"
	}
	res.Took = time.Since(res.Started)
	return res, nil
}

// maintenanceWorkMem is enough for the HNSW graph of rows vectors of dim
// dimensions to be built in memory (pgvector builds it on disk, far more
// slowly, past it), at least 256MB and at most 4GB.
func maintenanceWorkMem(rows int64, dim int) string {
	mb := rows * int64(2*dim+400) * 3 / 2 >> 20
	return fmt.Sprintf("%dMB", min(max(mb, 256), 4096))
}

func measureDim(ctx context.Context, d *Database, spec corpus.Spec, qs []corpus.Query, gen *Clustered, emb llm.Embedder,
	dim int, o VectorOptions, vis *VisibilityCheck) (VectorDim, error) {
	vd := VectorDim{Dim: dim, Found: map[string]int{}}
	model := vectorModel(dim)

	// Every active memory's embedding, through the job's own statement,
	// two writers at once.
	t := time.Now()
	const batch = 500
	next := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	for range 2 {
		g.Go(func() error {
			for from := range next {
				es := make([]db.Embedded, 0, batch)
				for i := from; i < min(from+batch, o.Rows); i++ {
					r := vectorRow(spec, i)
					if r.ArchivedAt != nil {
						continue
					}
					es = append(es, db.Embedded{ID: r.ID, Text: db.EmbeddingText(r.Content, r.Cues), Vec: gen.Vector(uint64(i))})
				}
				if _, err := d.DB.Memories().StoreEmbeddings(gctx, model, true, es); err != nil {
					return err
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(next)
		for from := 0; from < o.Rows; from += batch {
			select {
			case next <- from:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return vd, err
	}
	vd.Store = time.Since(t)
	st, err := d.DB.Memories().EmbeddingStatus(ctx, model, true)
	if err != nil {
		return vd, err
	}
	if st.Embedded != st.Active {
		return vd, fmt.Errorf("%d of %d active memories embedded", st.Embedded, st.Active)
	}
	o.Log("vector %d: %d embeddings written in %s", dim, st.Embedded, vd.Store.Round(time.Millisecond))

	// The HNSW index, as the job makes it, on connections whose
	// maintenance_work_mem holds the graph.
	vd.MaintenanceWorkMem = maintenanceWorkMem(st.Embedded, dim)
	if _, err := d.Pool.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s SET maintenance_work_mem = '%s'", pgx.Identifier{d.Name}.Sanitize(), vd.MaintenanceWorkMem)); err != nil {
		return vd, err
	}
	d.Pool.Reset()
	t = time.Now()
	if err := d.DB.EnsureVectorIndex(ctx, dim); err != nil {
		return vd, err
	}
	vd.Build = time.Since(t)
	if _, err := d.Pool.Exec(ctx, "VACUUM (ANALYZE) memories, memory_vectors"); err != nil {
		return vd, err
	}
	ixs, err := d.DB.VectorIndexes(ctx)
	if err != nil {
		return vd, err
	}
	for _, ix := range ixs {
		switch {
		case ix.Dim == dim && ix.Public:
			vd.PublicBytes, vd.PublicIndexed = ix.Bytes, ix.Rows
		case ix.Dim == dim:
			vd.IndexBytes, vd.Indexed = ix.Bytes, ix.Rows
		}
	}
	if err := d.Pool.QueryRow(ctx, "SELECT pg_table_size('memory_vectors')").Scan(&vd.TableBytes); err != nil {
		return vd, err
	}
	o.Log("vector %d: HNSW index built in %s, %s", dim, vd.Build.Round(time.Millisecond), mib(vd.IndexBytes))

	// The queries' embeddings, through the SDK client and the fake server.
	cache := cachedEmbedder{}
	var embed []time.Duration
	for _, q := range qs {
		t := time.Now()
		vs, err := emb.Embed(ctx, []string{q.Message})
		if err != nil {
			return vd, fmt.Errorf("query embedding: %w", err)
		}
		embed = append(embed, time.Since(t))
		if len(vs) != 1 || len(vs[0]) != dim {
			return vd, fmt.Errorf("query embedding: %d vectors", len(vs))
		}
		cache[q.Message] = vs[0]
	}
	vd.Embed = latencyOf(embed)

	// The property and recall@10, on the leg's own reads.
	m := d.DB.Memories()
	paths := make([]struct{ exact, index, split []time.Duration }, len(sizeBuckets))
	var sumBig, sumSmall, sumRun, sumSplit float64
	exactN, splitN := 0, 0
	for qi, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		dirs := [][]float32{cache[q.Message]}
		if qi%3 == 0 {
			dirs = append(dirs, gen.Vector(uint64(1<<40+qi))) // a memory-like direction no query has
		}
		size, err := m.VectorScanSize(ctx, v.Place.Team, v.Actor.ID, v.Place.Channel, v.Place.SourceKey, "")
		if err != nil {
			return vd, err
		}
		for di, qv := range dirs {
			got := map[db.VectorWay][]db.Near{}
			for _, use := range []memory.Use{memory.Show, memory.Apply} {
				for _, way := range []db.VectorWay{db.VectorWalk, db.VectorExact, db.VectorSplit} {
					t := time.Now()
					near, err := m.Nearest(ctx, db.VectorQuery{
						Team: v.Place.Team, Channel: v.Place.Channel, SourceKey: v.Place.SourceKey, Actor: v.Actor.ID,
						PrivateViewer: v.Private, Apply: use == memory.Apply, Model: model, Vec: qv, Limit: memory.VectorK, Way: way,
					})
					took := time.Since(t)
					if err != nil {
						return vd, err
					}
					if use == memory.Apply && di == 0 {
						// Every way over the same questions: where each costs what.
						b := sizeBucket(size.Visible)
						switch way {
						case db.VectorExact:
							paths[b].exact = append(paths[b].exact, took)
						case db.VectorSplit:
							paths[b].split = append(paths[b].split, took)
						default:
							paths[b].index = append(paths[b].index, took)
						}
					}
					vis.Calls++
					vis.Returned += len(near)
					for _, n := range near {
						mm := memory.FromRow(n.Memory)
						vis.ByKind[string(mm.Scope)+"/"+string(mm.Visibility)]++
						if !memory.Visible(v, mm, use) {
							vis.Violations++
							if len(vis.Examples) < 5 {
								vis.Examples = append(vis.Examples, fmt.Sprintf("%s (%s, %s, channel %s) to %s in %s %s", n.ID, mm.Scope, mm.Visibility, mm.ChannelID, v.Actor.ID, v.Place.Team, v.Place.Channel))
							}
						}
					}
					if use == memory.Show {
						got[way] = near
					}
				}
			}
			if di > 0 {
				continue
			}
			if qi%10 == 0 {
				// The exact scan against a brute-force one, on a sample.
				same, err := sameAsBruteForce(ctx, d, dim, model, v, qv, got[db.VectorExact])
				if err != nil {
					return vd, err
				}
				vd.BruteChecked++
				if !same {
					vd.BruteDiffered++
				}
			}
			r, ok := recallAt(10, got[db.VectorWalk], got[db.VectorExact])
			if !ok {
				continue
			}
			runR := r
			switch memory.VectorWayFor(size) {
			case db.VectorExact:
				runR = 1 // recall scans these exactly
				exactN++
			case db.VectorSplit:
				runR, _ = recallAt(10, got[db.VectorSplit], got[db.VectorExact])
				sumSplit += runR
				splitN++
			}
			sumRun += runR
			if q.Place.Team == SmallTeam {
				sumSmall += r
				vd.RecallSmallN++
			} else {
				sumBig += r
				vd.RecallN++
			}
		}
	}
	for b, p := range paths {
		if len(p.exact) > 0 {
			vd.Paths = append(vd.Paths, PathCost{Bucket: sizeBuckets[b].name, Exact: latencyOf(p.exact), Index: latencyOf(p.index), Split: latencyOf(p.split)})
		}
	}
	if vd.RecallN > 0 {
		vd.IndexRecall = sumBig / float64(vd.RecallN)
	}
	if vd.RecallSmallN > 0 {
		vd.IndexRecallSmall = sumSmall / float64(vd.RecallSmallN)
	}
	if n := vd.RecallN + vd.RecallSmallN; n > 0 {
		vd.AsRunRecall = sumRun / float64(n)
		vd.ExactShare = float64(exactN) / float64(n)
		vd.SplitShare = float64(splitN) / float64(n)
	}
	if splitN > 0 {
		vd.SplitRecall, vd.SplitN = sumSplit/float64(splitN), splitN
	}
	o.Log("vector %d: recall@10 of the index walk %.3f (main workspace), %.3f (%s); %d memories returned, %d not visible",
		dim, vd.IndexRecall, vd.IndexRecallSmall, SmallTeam, vis.Returned, vis.Violations)

	// Auto-recall, hybrid and lexical-only, alternating, after a warm-up.
	var fallbacks atomic.Int64
	hybrid := memory.New(d.DB, memory.Options{Embedder: cache, EmbeddingModel: model, Vectors: true, Logger: zerolog.Nop(),
		OnVectorFallback: func(string) { fallbacks.Add(1) }})
	lexical := memory.New(d.DB, memory.Options{Logger: zerolog.Nop()})
	for _, q := range qs[:min(50, len(qs))] {
		v := memory.ViewerAt(q.Actor, q.Place)
		if _, err := hybrid.ForPrompt(ctx, v, q.Message); err != nil {
			return vd, err
		}
		if _, err := lexical.ForPrompt(ctx, v, q.Message); err != nil {
			return vd, err
		}
	}
	var hy, lx, leg, legExact, legIndex, legSplit []time.Duration
	for i, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		order := []*memory.Store{lexical, hybrid}
		if i%2 == 1 {
			order = []*memory.Store{hybrid, lexical}
		}
		for _, s := range order {
			t := time.Now()
			found, err := s.ForPrompt(ctx, v, q.Message)
			took := time.Since(t)
			if err != nil {
				return vd, err
			}
			if s == hybrid {
				hy = append(hy, took)
				for _, mm := range found {
					vd.Found[mm.Leg]++
				}
			} else {
				lx = append(lx, took)
			}
		}
		// The vector leg alone, as recall runs it.
		t := time.Now()
		size, err := m.VectorScanSize(ctx, v.Place.Team, v.Actor.ID, v.Place.Channel, v.Place.SourceKey, "")
		if err != nil {
			return vd, err
		}
		way := memory.VectorWayFor(size)
		if _, err := m.Nearest(ctx, db.VectorQuery{
			Team: v.Place.Team, Channel: v.Place.Channel, SourceKey: v.Place.SourceKey, Actor: v.Actor.ID,
			PrivateViewer: v.Private, Apply: true, Model: model, Vec: cache[q.Message], Limit: memory.VectorK, Way: way,
		}); err != nil {
			return vd, err
		}
		took := time.Since(t)
		leg = append(leg, took)
		switch way {
		case db.VectorExact:
			legExact = append(legExact, took)
		case db.VectorSplit:
			legSplit = append(legSplit, took)
		default:
			legIndex = append(legIndex, took)
		}
	}
	vd.Hybrid, vd.Lexical, vd.Leg = latencyOf(hy), latencyOf(lx), latencyOf(leg)
	vd.LegExact, vd.LegIndex, vd.LegSplit = latencyOf(legExact), latencyOf(legIndex), latencyOf(legSplit)
	vd.Fallbacks = int(fallbacks.Load())
	o.Log("vector %d: auto-recall p95 hybrid %s, lexical %s; query embedding p95 %s", dim, ms(vd.Hybrid.P95), ms(vd.Lexical.P95), ms(vd.Embed.P95))
	return vd, nil
}

// PathCost is the three ways of the vector leg, over the same questions.
type PathCost struct {
	Bucket              string
	Exact, Index, Split Latency
}

var sizeBuckets = []struct {
	name string
	max  int64
}{{"≤ 500", 500}, {"501–1,000", 1000}, {"1,001–2,500", 2500}, {"2,501–5,000", 5000}, {"5,001–20,000", 20000}, {"> 20,000", 1 << 62}}

func sizeBucket(n int64) int {
	for i, b := range sizeBuckets {
		if n <= b.max {
			return i
		}
	}
	return len(sizeBuckets) - 1
}

// sameAsBruteForce compares the exact scan's answer with a scan of every
// vector of the dimension filtered by memory_visible, distance by distance.
func sameAsBruteForce(ctx context.Context, d *Database, dim int, model string, v memory.Viewer, qv []float32, exact []db.Near) (bool, error) {
	rows, err := d.Pool.Query(ctx, fmt.Sprintf(`SELECT (v.embedding <=> $1::halfvec(%d)) + 0 AS dist
		FROM memory_vectors v JOIN memories m ON m.id = v.id
		WHERE v.dim = %d AND v.model = $2 AND memory_visible(m, $3, $4, $5, $6, $7, false)
		ORDER BY dist LIMIT $8`, dim, dim), db.VectorLiteral(qv), model, v.Place.Team, v.Actor.ID, v.Place.Channel, v.Place.SourceKey, v.Private, memory.VectorK)
	if err != nil {
		return false, err
	}
	dists, err := pgx.CollectRows(rows, pgx.RowTo[float64])
	if err != nil {
		return false, err
	}
	if len(dists) != len(exact) {
		return false, nil
	}
	for i := range dists {
		if math.Abs(dists[i]-exact[i].Distance) > 1e-6 {
			return false, nil
		}
	}
	return true, nil
}

// recallAt is the share of the exact top k (at most k, as many as are
// visible) that the approximate top k found. A memory at the same distance
// as the exact k-th counts as found: embeddings of identical text tie.
func recallAt(k int, approx, exact []db.Near) (float64, bool) {
	kk := min(k, len(exact))
	if kk == 0 {
		return 0, false
	}
	limit := exact[kk-1].Distance + 1e-6
	hit := 0
	for _, n := range approx[:min(k, len(approx))] {
		if n.Distance <= limit {
			hit++
		}
	}
	return float64(min(hit, kk)) / float64(kk), true
}

// measureRememberWithJob times remember one at a time, in blocks of
// rememberBlock taking turns: the embedding job off (lexical-only, the
// baseline); on as serve schedules it (a run as it starts, as River's
// RunOnStart does, then every embedding.Every, each run embedding until
// nothing is pending); and on continuously (a run every 100 ms, so that it
// embeds beside nearly every remember). The job embeds through the SDK
// client and the fake server, into the HNSW index, on the same database.
func measureRememberWithJob(ctx context.Context, d *Database, spec corpus.Spec, emb llm.Embedder, dim int, o VectorOptions, res *VectorResult) error {
	store := memory.New(d.DB, memory.Options{Logger: zerolog.Nop()})
	ix := &embedding.Indexer{DB: d.DB, Embedder: emb, Model: vectorModel(dim), Vectors: true, Logger: zerolog.Nop()}
	next := 0
	write := func() (time.Duration, error) {
		req := writeRequest(vectorRow(spec, spec.Rows+next))
		next++
		t := time.Now()
		_, err := store.Remember(ctx, req)
		return time.Since(t), err
	}
	for range rememberBlock { // a warm-up
		if _, err := write(); err != nil {
			return err
		}
	}
	// The job's first run in a process reads every memory once (what has
	// no embedding of its model); serve's does it as it starts, before
	// the turns this measures.
	if _, err := ix.Run(ctx, nil); err != nil {
		return fmt.Errorf("embedding job: %w", err)
	}
	// block writes rememberBlock memories with the job running every
	// `every` (none: 0), and returns their latencies.
	block := func(every time.Duration, embedded *int64) ([]time.Duration, error) {
		// The job's run in progress when the block ends is let finish, as
		// serve's would: stop only ends the schedule.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var jobErr error
		if every > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tick := time.NewTicker(every)
				defer tick.Stop()
				for {
					n, err := ix.Run(ctx, nil)
					*embedded += n
					if err != nil {
						jobErr = err
						return
					}
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()
		}
		var out []time.Duration
		var err error
		for range rememberBlock {
			var took time.Duration
			if took, err = write(); err != nil {
				break
			}
			out = append(out, took)
		}
		close(stop)
		wg.Wait()
		if err == nil && jobErr != nil {
			err = fmt.Errorf("embedding job: %w", jobErr)
		}
		return out, err
	}
	var off, sched, cont []time.Duration
	for len(off) < o.Remember {
		for _, m := range []struct {
			every    time.Duration
			into     *[]time.Duration
			embedded *int64
		}{{0, &off, nil}, {embedding.Every, &sched, &res.JobEmbedded}, {100 * time.Millisecond, &cont, &res.ContinuousEmbedded}} {
			ds, err := block(m.every, m.embedded)
			if err != nil {
				return err
			}
			*m.into = append(*m.into, ds...)
		}
	}
	res.RememberOff, res.RememberOn, res.RememberContinuous = latencyOf(off), latencyOf(sched), latencyOf(cont)
	if res.JobEmbedded == 0 || res.ContinuousEmbedded == 0 {
		return errors.New("the embedding job embedded nothing while on")
	}
	return nil
}

// rememberBlock is how many remembers each turn of measureRememberWithJob
// writes.
const rememberBlock = 50

// VectorMarker and VectorEnd delimit the vector bench's section of
// RESULTS.md, which make bench keeps as it is when it rewrites the rest.
const (
	VectorMarker = "<!-- make bench-vector -->"
	VectorEnd    = "<!-- end make bench-vector -->"
)

// Table is the vector bench's rows.
func (r *VectorResult) Table() *Table {
	t := &Table{}
	rows := count(r.Rows)
	for _, d := range r.Dims {
		perM := func(b int64) string {
			if d.Indexed == 0 {
				return "—"
			}
			return fmt.Sprintf("%.0f MB per million rows", float64(b)/float64(d.Indexed)*1e6/1e6)
		}
		t.Add(Row{Metric: fmt.Sprintf("HNSW build @%s, %d-d halfvec (maintenance_work_mem %s)", rows, d.Dim, d.MaintenanceWorkMem), Target: "reported",
			Measured: d.Build.Round(100 * time.Millisecond).String(), Baseline: fmt.Sprintf("writing the %d embeddings: %s", d.Indexed, d.Store.Round(100*time.Millisecond)), Ratio: "—"})
		t.Add(Row{Metric: fmt.Sprintf("HNSW index bytes @%s, %d-d", rows, d.Dim), Target: "reported",
			Measured: fmt.Sprintf("%s (%s)", mib(d.IndexBytes), perM(d.IndexBytes)), Baseline: fmt.Sprintf("memory_vectors itself %s (%s)", mib(d.TableBytes), perM(d.TableBytes)),
			Ratio: fmt.Sprintf("%.2f×", float64(d.IndexBytes)/float64(max(d.TableBytes, 1)))})
		t.Add(Row{Metric: fmt.Sprintf("HNSW index of the workspaces' public memories (the split way's) @%s, %d-d: rows, bytes", rows, d.Dim), Target: "reported",
			Measured: fmt.Sprintf("%d rows, %s", d.PublicIndexed, mib(d.PublicBytes)), Baseline: fmt.Sprintf("the index of every memory, %s", mib(d.IndexBytes)),
			Ratio: fmt.Sprintf("%.3f×", float64(d.PublicBytes)/float64(max(d.IndexBytes, 1)))})
		t.Add(Row{Metric: fmt.Sprintf("vector leg recall@10, HNSW walk, main workspace @%s, %d-d (%d queries)", rows, d.Dim, d.RecallN), Target: "≥ 0.95",
			Measured: fmt.Sprintf("%.3f", d.IndexRecall), Baseline: "exact scan of the same visible rows", Ratio: "—", Met: met(d.IndexRecall >= 0.95),
			Why: "the index walk under the visibility filter misses near memories the exact scan finds"})
		t.Add(Row{Metric: fmt.Sprintf("vector leg recall@10, HNSW walk, the workspace of a tenth @%s, %d-d (%d queries)", rows, d.Dim, d.RecallSmallN), Target: "≥ 0.95",
			Measured: fmt.Sprintf("%.3f", d.IndexRecallSmall), Baseline: "exact scan of the same visible rows", Ratio: "—", Met: met(d.IndexRecallSmall >= 0.95),
			Why: "the index walk under the tenancy filter misses near memories the exact scan finds"})
		t.Add(Row{Metric: fmt.Sprintf("vector leg recall@10 as recall runs it (the way memory.VectorWayFor chooses) @%s, %d-d", rows, d.Dim), Target: "≥ 0.95",
			Measured: fmt.Sprintf("%.3f (%.0f%% of queries exact, %.0f%% split)", d.AsRunRecall, 100*d.ExactShare, 100*d.SplitShare), Baseline: "exact scan", Ratio: "—", Met: met(d.AsRunRecall >= 0.95)})
		if d.SplitN > 0 {
			t.Add(Row{Metric: fmt.Sprintf("vector leg recall@10, split way (public memories' HNSW walk + exact scan of the rest) where recall takes it @%s, %d-d (%d queries)", rows, d.Dim, d.SplitN), Target: "≥ 0.95",
				Measured: fmt.Sprintf("%.3f", d.SplitRecall), Baseline: "exact scan of the same visible rows", Ratio: "—", Met: met(d.SplitRecall >= 0.95),
				Why: "the public memories' index walk misses near memories the exact scan finds"})
		}
		t.Add(Row{Metric: fmt.Sprintf("hybrid auto-recall (ForPrompt) p50 / p95 @%s, %d-d, query embedding excluded", rows, d.Dim), Target: "p95 ≤ 20 ms at 1M",
			Measured: ms(d.Hybrid.P50) + " / " + ms(d.Hybrid.P95), Baseline: ms(d.Lexical.P50) + " / " + ms(d.Lexical.P95) + " lexical-only, same queries",
			Ratio: fmt.Sprintf("%.2f× at p95", float64(d.Hybrid.P95)/float64(max(d.Lexical.P95, 1))),
			Met: func() *bool {
				if r.Rows < 1_000_000 {
					return nil
				}
				return met(d.Hybrid.P95 <= 20*time.Millisecond)
			}(),
			Why: "the vector leg's read adds to the lexical leg's"})
		t.Add(Row{Metric: fmt.Sprintf("vector leg alone p50 / p95 @%s, %d-d: all; exact scans; split; HNSW walks", rows, d.Dim), Target: "—",
			Measured: fmt.Sprintf("%s / %s; %s / %s (%d); %s / %s (%d); %s / %s (%d)", ms(d.Leg.P50), ms(d.Leg.P95), ms(d.LegExact.P50), ms(d.LegExact.P95), d.LegExact.N,
				ms(d.LegSplit.P50), ms(d.LegSplit.P95), d.LegSplit.N, ms(d.LegIndex.P50), ms(d.LegIndex.P95), d.LegIndex.N), Baseline: "—", Ratio: "—"})
		for _, p := range d.Paths {
			t.Add(Row{Metric: fmt.Sprintf("vector leg p50 / p95 @%s, %d-d, askers whose partitions hold %s memories (%d questions): exact scan; split", rows, d.Dim, p.Bucket, p.Exact.N), Target: "—",
				Measured: ms(p.Exact.P50) + " / " + ms(p.Exact.P95) + "; " + ms(p.Split.P50) + " / " + ms(p.Split.P95), Baseline: ms(p.Index.P50) + " / " + ms(p.Index.P95) + " HNSW walk, same questions",
				Ratio: fmt.Sprintf("%.2f×, %.2f× at p50", float64(p.Exact.P50)/float64(max(p.Index.P50, 1)), float64(p.Split.P50)/float64(max(p.Index.P50, 1)))})
		}
		t.Add(Row{Metric: fmt.Sprintf("exact scan against a brute-force scan of every vector @%s, %d-d (%d questions)", rows, d.Dim, d.BruteChecked), Target: "0 differ",
			Measured: fmt.Sprintf("%d differ", d.BruteDiffered), Baseline: "—", Ratio: "—", Met: met(d.BruteDiffered == 0 && d.BruteChecked > 0)})
		t.Add(Row{Metric: fmt.Sprintf("query embedding p50 / p95, %d-d, OpenAI SDK client → fake server over HTTP", d.Dim), Target: "—",
			Measured: ms(d.Embed.P50) + " / " + ms(d.Embed.P95), Baseline: "—", Ratio: "—"})
	}
	v := r.Visibility
	t.Add(Row{Metric: fmt.Sprintf("vector leg: memories returned that the asker may not see (%d reads, %d memories returned)", v.Calls, v.Returned), Target: "0",
		Measured: fmt.Sprint(v.Violations), Baseline: "memory.Visible", Ratio: "—", Met: met(v.Violations == 0 && v.Returned > 0),
		Why: strings.Join(v.Examples, "; ")})
	ratio := float64(r.RememberOn.P50) / float64(max(r.RememberOff.P50, 1))
	t.Add(Row{Metric: fmt.Sprintf("remember p50 / p95 @%s, embedding job on as serve schedules it (%d-d, at start and every %s)", rows, r.RememberDim, embedding.Every), Target: "p50 within 10% of lexical-only",
		Measured: ms(r.RememberOn.P50) + " / " + ms(r.RememberOn.P95), Baseline: ms(r.RememberOff.P50) + " / " + ms(r.RememberOff.P95) + " job off (lexical-only)",
		Ratio: fmt.Sprintf("%+.1f%% at p50", 100*(ratio-1)), Met: met(ratio <= 1.10),
		Why: "nothing is embedded on the write path, and the job writes each memory's vector (memory_vectors and its HNSW index) and takes it out of its queue, leaving the memory's row as it is; the HNSW inserts and here the fake embeddings server in the bench's own process share this machine's two cores with remember"})
	cr := float64(r.RememberContinuous.P50) / float64(max(r.RememberOff.P50, 1))
	t.Add(Row{Metric: fmt.Sprintf("remember p50 / p95 @%s, embedding job on continuously (%d-d, every 100 ms)", rows, r.RememberDim), Target: "—",
		Measured: ms(r.RememberContinuous.P50) + " / " + ms(r.RememberContinuous.P95), Baseline: ms(r.RememberOff.P50) + " / " + ms(r.RememberOff.P95) + " job off (lexical-only)",
		Ratio: fmt.Sprintf("%+.1f%% at p50", 100*(cr-1))})
	return t
}

// Markdown is the vector bench's section of RESULTS.md.
func (r *VectorResult) Markdown(commit string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Recall by meaning (make bench-vector)\n\n", VectorMarker)
	fmt.Fprintf(&b, "Run %s at commit %s; took %s. `make bench-vector` writes this section; `make bench` keeps it.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), commit, r.Took.Round(time.Second))
	m := r.Machine
	fmt.Fprintf(&b, "Machine: %d CPUs (%s), %s of memory, shared with other work (load average %s at the start, %s at the end); %s (%s); pgvector %s; %s. Every baseline was measured in the same run.\n\n",
		m.CPUs, m.CPU, m.Memory, m.LoadStart, m.LoadEnd, m.Postgres, m.Settings, r.PGVector, m.Go)
	fmt.Fprintf(&b, "%s memories of the synthetic corpus (bench/corpus: every scope and visibility, 2,000 people, 420 channels, DMs), %d active; every tenth in a second workspace (%s, %d active), so the tenancy filter keeps a tenth of the index. Embeddings are clustered like a text model's (bench/vector_gen.go: %d topics of skewed sizes, variation along %d directions of each topic, a shared direction, a little noise; memories of one topic at cosine ≈ 0.65, of two ≈ 0.12), halfvec, one HNSW index per dimension (m 16, ef_construction 64; recall reads with ef_search 100 and iterative scans). Half the queries are asked in each workspace.\n\n",
		count(r.Rows), r.Active, SmallTeam, r.SmallRows, Topics, TopicDirections)
	b.WriteString(r.Table().Markdown())
	b.WriteString("\n")
	var notes []string
	for _, d := range r.Dims {
		legs := make([]string, 0, len(d.Found))
		for _, k := range slices.Sorted(maps.Keys(d.Found)) {
			legs = append(legs, fmt.Sprintf("%s %d", k, d.Found[k]))
		}
		notes = append(notes, fmt.Sprintf("%d-d: auto-recall's memories by the leg that found them: %s; lexical fallbacks %d.", d.Dim, strings.Join(legs, ", "), d.Fallbacks))
	}
	kinds := make([]string, 0, len(r.Visibility.ByKind))
	for _, k := range slices.Sorted(maps.Keys(r.Visibility.ByKind)) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, r.Visibility.ByKind[k]))
	}
	notes = append(notes,
		"The visibility property: every question, asked for Show and for Apply, through the index and exactly, with its own embedding and (one in three) a memory-like direction no question has; each memory returned is checked against memory.Visible. Returned, by scope/visibility: "+strings.Join(kinds, ", ")+".",
		"Recall@10 is the share of the exact scan's top 10 (over the same visible rows) that the HNSW walk's first 10 found, a memory at the exact 10th's distance counting as found. As recall runs it, where memory.ExactScan says so (the asker's partitions hold at most "+fmt.Sprint(memory.ExactScanMin)+" memories, or at most √("+fmt.Sprint(memory.ExactScanRatio)+" × the vectors indexed) up to "+fmt.Sprint(memory.ExactScanMax)+"), the memories are scanned exactly, which is exact by definition (and checked against a brute-force scan on every tenth question); where memory.VectorWayFor takes the split way (the rest, past the workspace's public memories, few enough for ExactScan), recall@10 is the split way's against the exact scan.",
		"Auto-recall times ForPrompt with the query's embedding already made (a cache of the fake server's answers), hybrid and lexical-only alternating query by query after a warm-up of 50; the query's embedding is timed on its own, through the OpenAI SDK client against the fake server, so a real endpoint's time is to be added (MNEMO_EMBEDDING_QUERY_DEADLINE bounds it, default 300 ms).",
		fmt.Sprintf("Remember (no model review): blocks of %d one at a time taking turns, after a warm-up: the embedding job off; on as serve schedules it (a run as the block starts, as River's RunOnStart does, then every %s, each embedding until nothing is pending: here the previous blocks' memories); on continuously (a run every 100 ms); %d of each. The job embedded %d and %d memories meanwhile, through the OpenAI SDK client against the fake server, which runs in the bench's own process (a real endpoint's work is elsewhere).", rememberBlock, embedding.Every, r.RememberOn.N, r.JobEmbedded, r.ContinuousEmbedded),
	)
	if r.Rows < 1_000_000 {
		notes = append(notes, "The p95 target of 20 ms is at a million memories (make bench-vector MILLION=1), not measured in this run.")
	}
	b.WriteString("Notes:\n\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if miss := r.Table().Misses(); len(miss) > 0 {
		b.WriteString("\nMissed:\n\n")
		for _, s := range miss {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", VectorEnd)
	return b.String()
}

// WithVectorSection returns results with its vector section replaced by
// section (or, with section "", the section of old kept): make bench and
// make bench-vector each rewrite their own part of RESULTS.md.
func WithVectorSection(results, old, section string) string {
	if section == "" {
		section = vectorSection(old)
	}
	rest := results
	if s := vectorSection(results); s != "" {
		rest = strings.Replace(results, s, "", 1)
	}
	if section == "" {
		return rest
	}
	// Before the notes on how to read the main table, after the tables.
	if i := strings.Index(rest, "\n## Missed targets"); i >= 0 {
		return rest[:i+1] + section + "\n" + rest[i+1:]
	}
	if i := strings.Index(rest, "\n## How to read the table"); i >= 0 {
		return rest[:i+1] + section + "\n" + rest[i+1:]
	}
	return strings.TrimRight(rest, "\n") + "\n\n" + section
}

func vectorSection(s string) string {
	i := strings.Index(s, VectorMarker)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], VectorEnd)
	if j < 0 {
		return ""
	}
	return s[i : i+j+len(VectorEnd)+1]
}
