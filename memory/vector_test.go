package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/embedding"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

const embedModel = "text-embedding-3-small"

// embedAll runs the background embedding job once, through the fake
// embeddings server over HTTP, and checks that it left nothing pending.
func embedAll(t *testing.T, d *db.DB, url string, vectors bool) int64 {
	t.Helper()
	ctx := context.Background()
	ix := &embedding.Indexer{DB: d, Embedder: embedder(t, url), Model: embedModel, Vectors: vectors, Logger: zerolog.Nop(), Batch: 256}
	n, err := ix.Run(ctx, nil)
	require.NoError(t, err)
	st, err := d.Memories().EmbeddingStatus(ctx, embedModel, vectors)
	require.NoError(t, err)
	require.Equal(t, st.Active, st.Embedded, "nothing left to embed")
	require.Zero(t, st.Queued, "nothing left in the queue")
	return n
}

// Issue 31: a memory that shares no word with its question, older than the
// newest 10,000 memories the asker can see, is recalled by meaning. The
// reranker (without pgvector) looks only at the lexical matches and the
// newest 100, so it does not find it; the vector leg searches them all.
func TestVectorLegRecallsAnOldParaphrase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	vec, err := d.DB.HasVectors(ctx)
	require.NoError(t, err)
	require.True(t, vec, "make db installs pgvector")

	now := time.Now()
	alice := user("UA")
	target := uuid.New()
	const newer = 10_050
	require.NoError(t, corpus.LoadRows(ctx, d.Pool, newer+1, func(i int) corpus.Row {
		// Varied text, as a channel's memories are: five of 5,000 made-up
		// words, none the question's.
		wr := rand.New(rand.NewPCG(9, uint64(i)))
		content := fmt.Sprintf("Noted w%d w%d w%d w%d w%d", wr.IntN(5000), wr.IntN(5000), wr.IntN(5000), wr.IntN(5000), wr.IntN(5000))
		r := corpus.Row{
			ID: uuid.New(), Team: team, Scope: "channel", SubjectType: "channel", SubjectID: "C1", Kind: "knowledge",
			Content: content, Normalized: content, SourceKey: publicThread.SourceKey, ChannelID: "C1", Visibility: "public",
			ActorID: "UB", ActorName: "Bob", WrittenBy: "explicit", MessageTS: "1800000001.000100",
			ObservedAt: now.Add(-time.Duration(newer-i) * time.Minute), CreatedAt: now.Add(-time.Duration(newer-i) * time.Minute),
			IdempotencyKey: fmt.Sprintf("k%d", i),
		}
		if i == 0 {
			// A channel memory like the others: not the asker's own, which
			// the newest-first listing would rank first whatever its age.
			r.ID, r.Content, r.Normalized = target, "Prefers Neovim", "prefers neovim"
			r.ObservedAt, r.CreatedAt = now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour)
		}
		return r
	}))
	model := fakellm.New(t, nil)
	require.EqualValues(t, newer+1, embedAll(t, d.DB, model.URL, true))

	v := memory.ViewerAt(alice, publicThread)
	// Past FuzzyQueryWords, so no typo correction stretches a word to it.
	const q = "which IDE do I like most"
	// Controls: by text it shares nothing; today's recall, the reranker
	// over the lexical matches and the newest 100, misses it.
	got, err := memory.New(d.DB, memory.Options{}).Search(ctx, v, q, 5, true)
	require.NoError(t, err)
	require.Empty(t, got, "no word in common")
	rerank := memory.New(d.DB, memory.Options{Embedder: embedder(t, model.URL), EmbeddingModel: embedModel})
	got, err = rerank.Search(ctx, v, q, 5, true)
	require.NoError(t, err)
	require.Empty(t, got, "the reranker sees only the newest 100")

	hybrid := memory.New(d.DB, memory.Options{Embedder: embedder(t, model.URL), EmbeddingModel: embedModel, Vectors: true})
	got, err = hybrid.Search(ctx, v, q, 5, true)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, target, got[0].ID)
	require.Equal(t, memory.LegVector, got[0].Leg)

	// Auto-recall uses the same legs.
	ps, err := hybrid.ForPrompt(ctx, v, q)
	require.NoError(t, err)
	require.Contains(t, ids(ps), target)

	// A row embedded by another model is lexical-only until redone.
	other := memory.New(d.DB, memory.Options{Embedder: embedder(t, model.URL), EmbeddingModel: "another-model", Vectors: true})
	got, err = other.Search(ctx, v, q, 5, true)
	require.NoError(t, err)
	require.Empty(t, got, "no row is of another-model yet")
}

func ids(ms []memory.Memory) []uuid.UUID {
	out := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// Visibility holds on the vector leg exactly as on the lexical one: over
// a corpus with every scope, visibility and sensitivity, two teams, many
// people and places, every memory the vector leg returns, through the
// HNSW index, an exact scan or the two split, for Show or Apply, in public or in private,
// is one memory.Visible lets the asker see; and the leg does return
// memories (so the check is not vacuous).
func TestVectorLegNeverReturnsWhatTheAskerMayNotSee(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	spec := corpus.Spec{Rows: 4000, Seed: 11, Now: time.Now()}
	require.NoError(t, corpus.Load(ctx, d.Pool, spec))
	model := fakellm.New(t, nil)
	embedAll(t, d.DB, model.URL, true)

	r := rand.New(rand.NewPCG(3, 4))
	returned := 0
	for _, q := range spec.Queries(60) {
		for _, use := range []memory.Use{memory.Show, memory.Apply} {
			for _, way := range []db.VectorWay{db.VectorWalk, db.VectorExact, db.VectorSplit} {
				v := memory.ViewerAt(q.Actor, q.Place)
				qv := fakellm.Embed(q.Message)
				if r.IntN(3) == 0 {
					// Also a direction no text has: visibility may not depend
					// on what is near.
					for i := range qv {
						qv[i] = float32(r.NormFloat64())
					}
				}
				near, err := d.DB.Memories().Nearest(ctx, db.VectorQuery{
					Team: v.Place.Team, Channel: v.Place.Channel, SourceKey: v.Place.SourceKey, Actor: v.Actor.ID,
					PrivateViewer: v.Private, Apply: use == memory.Apply, Model: embedModel, Vec: qv, Limit: 40, Way: way,
				})
				require.NoError(t, err)
				for _, n := range near {
					require.True(t, memory.Visible(v, memory.FromRow(n.Memory), use),
						"the vector leg returned %s (%s, %s, sensitive %q, channel %s) to %s in %s", n.ID, n.Scope, n.Visibility, n.Sensitive, n.ChannelID, v.Actor.ID, v.Place.Channel)
				}
				returned += len(near)
			}
		}
	}
	require.Positive(t, returned, "the vector leg returned memories")
}

// The exact scan reads the asker's candidates through memories' recall
// indexes, one branch per partition they may see from here; those
// branches must hold every memory memory_visible lets them see, and so
// must the split way's (those branches but the public memories', which it
// reads through their own HNSW index). So over
// every scope and visibility, for Show and Apply, in public and in
// private, the exact scan finds what a brute-force scan of every vector
// filtered by memory_visible finds, at the same distances.
func TestVectorLegExactScanIsBruteForce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	spec := corpus.Spec{Rows: 4000, Seed: 13, Now: time.Now()}
	require.NoError(t, corpus.Load(ctx, d.Pool, spec))
	model := fakellm.New(t, nil)
	embedAll(t, d.DB, model.URL, true)
	brute := fmt.Sprintf(`SELECT v.id, (v.embedding <=> $1::halfvec(%d)) + 0 AS dist
		FROM memory_vectors v JOIN memories m ON m.id = v.id
		WHERE v.dim = %d AND v.model = $2 AND memory_visible(m, $3, $4, $5, $6, $7, $8)
		ORDER BY dist LIMIT $9`, fakellm.Dim, fakellm.Dim)
	compared := 0
	for _, q := range spec.Queries(40) {
		for _, use := range []memory.Use{memory.Show, memory.Apply} {
			v := memory.ViewerAt(q.Actor, q.Place)
			qv := fakellm.Embed(q.Message)
			near, err := d.DB.Memories().Nearest(ctx, db.VectorQuery{
				Team: v.Place.Team, Channel: v.Place.Channel, SourceKey: v.Place.SourceKey, Actor: v.Actor.ID,
				PrivateViewer: v.Private, Apply: use == memory.Apply, Model: embedModel, Vec: qv, Limit: 40, Way: db.VectorExact,
			})
			require.NoError(t, err)
			// The split way's branches and public memories, together, are
			// what the asker may see too: where its walk of the public
			// memories' index (a few hundred here) misses nothing, it finds
			// what the exact scan finds.
			split, err := d.DB.Memories().Nearest(ctx, db.VectorQuery{
				Team: v.Place.Team, Channel: v.Place.Channel, SourceKey: v.Place.SourceKey, Actor: v.Actor.ID,
				PrivateViewer: v.Private, Apply: use == memory.Apply, Model: embedModel, Vec: qv, Limit: 40, Way: db.VectorSplit,
			})
			require.NoError(t, err)
			require.Len(t, split, len(near), "%s in %s: the split way", v.Actor.ID, v.Place.Channel)
			for i := range split {
				require.InDelta(t, near[i].Distance, split[i].Distance, 1e-6, "%s in %s: the split way's rank %d", v.Actor.ID, v.Place.Channel, i)
			}
			rows, err := d.Pool.Query(ctx, brute, db.VectorLiteral(qv), embedModel, v.Place.Team, v.Actor.ID, v.Place.Channel, v.Place.SourceKey, v.Private, use == memory.Apply, 40)
			require.NoError(t, err)
			var want []float64
			wantIDs := map[uuid.UUID]bool{}
			for rows.Next() {
				var id uuid.UUID
				var dist float64
				require.NoError(t, rows.Scan(&id, &dist))
				want = append(want, dist)
				wantIDs[id] = true
			}
			require.NoError(t, rows.Err())
			require.Len(t, near, len(want), "%s in %s", v.Actor.ID, v.Place.Channel)
			for i, n := range near {
				require.InDelta(t, want[i], n.Distance, 1e-6, "%s in %s: rank %d", v.Actor.ID, v.Place.Channel, i)
				if i < len(near)-1 && n.Distance < want[len(want)-1]-1e-6 {
					require.True(t, wantIDs[n.ID], "%s in %s: %s not in the brute-force answer", v.Actor.ID, v.Place.Channel, n.ID)
				}
			}
			compared += len(near)
		}
	}
	require.Positive(t, compared, "the exact scan found memories")
}

// With embeddings off, or without pgvector, recall is exactly today's:
// the same memories in the same order, by the same path. The extension is
// dropped from a migrated database, as on a server that lacks it.
func TestRecallWithoutPGVectorIsToday(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	spec := corpus.Spec{Rows: 3000, Seed: 5, Now: time.Now()}
	require.NoError(t, corpus.Load(ctx, d.Pool, spec))
	model := fakellm.New(t, nil)

	// Control: with pgvector the leg is there.
	vec, err := d.DB.HasVectors(ctx)
	require.NoError(t, err)
	require.True(t, vec)
	_, err = d.Pool.Exec(ctx, "DROP EXTENSION vector CASCADE")
	require.NoError(t, err)
	vec, err = d.DB.HasVectors(ctx)
	require.NoError(t, err)
	require.False(t, vec, "without the extension there is no vector leg")

	// The job still embeds, as real[], for the reranker.
	embedAll(t, d.DB, model.URL, false)

	for _, withEmbedder := range []bool{false, true} {
		opts := memory.Options{}
		if withEmbedder {
			opts = memory.Options{Embedder: embedder(t, model.URL), EmbeddingModel: embedModel}
		}
		today := memory.New(d.DB, opts)
		opts.Vectors = vec
		now := memory.New(d.DB, opts)
		for _, q := range spec.Queries(20) {
			v := memory.ViewerAt(q.Actor, q.Place)
			a, err := today.ForPrompt(ctx, v, q.Message)
			require.NoError(t, err)
			b, err := now.ForPrompt(ctx, v, q.Message)
			require.NoError(t, err)
			// The same memories in the same order (scores are sums of
			// floats, equal to their last bits or so).
			require.Equal(t, ids(a), ids(b))
			for i := range a {
				require.InDelta(t, a[i].Score, b[i].Score, 1e-6)
			}
			for _, m := range b {
				require.Empty(t, m.Leg, "no hybrid recall")
			}
		}
	}
}

// The background job embeds what is new, stores model and dimension, and
// after a model change redoes every row; remember itself makes no
// embeddings request.
func TestEmbeddingJobEmbedsInTheBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	model := fakellm.New(t, nil)
	s := memory.New(b.db.DB, memory.Options{Decider: b.adj, Embedder: embedder(t, model.URL), EmbeddingModel: embedModel, Vectors: true})
	alice := user("UA")
	out, err := s.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopePersonal, Kind: memory.KindPreference,
		Content: "Prefers Neovim for writing code", WrittenBy: provenance.ByExplicit, MessageTS: "1800000001.000100"})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Empty(t, model.EmbedRequests(), "remember makes no embeddings request")

	st, err := b.db.DB.Memories().EmbeddingStatus(ctx, embedModel, true)
	require.NoError(t, err)
	require.EqualValues(t, 1, st.Active)
	require.EqualValues(t, 0, st.Embedded)
	// The control for embedAll's "nothing left in the queue": before the
	// job runs, the status counts the new memory as queued.
	require.EqualValues(t, 1, st.Queued, "the new memory waits in the queue")

	// The memory's row version before the job: the job writes the vector
	// alone, not a new version of the memory (in every one of memories'
	// indexes, as costly as the remember was).
	var before string
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT xmin::text FROM memories WHERE id = $1", out.Memory.ID).Scan(&before))

	require.EqualValues(t, 1, embedAll(t, b.db.DB, model.URL, true))
	var m, after string
	var dim int
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT model, dim FROM memory_vectors WHERE id = $1", out.Memory.ID).Scan(&m, &dim))
	require.Equal(t, embedModel, m)
	require.Equal(t, fakellm.Dim, dim)
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT xmin::text FROM memories WHERE id = $1", out.Memory.ID).Scan(&after))
	require.Equal(t, before, after, "storing the embedding leaves the memory's row as it was")
	var idx bool
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", db.VectorIndexName(fakellm.Dim)).Scan(&idx))
	require.True(t, idx, "the HNSW index of the dimension is made")
	require.EqualValues(t, 0, embedAll(t, b.db.DB, model.URL, true), "nothing twice")

	// Another model: every row is pending again, and redone.
	ix := &embedding.Indexer{DB: b.db.DB, Embedder: embedder(t, model.URL), Model: "other-model", Vectors: true, Logger: zerolog.Nop()}
	n, err := ix.Run(ctx, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// The embedding job's queue follows what a memory goes through: written,
// it is queued; archived, it leaves the queue (there is nothing to embed);
// restored, it is queued again; embedded, it leaves it. Emptied (serve
// with no embedding model), the job's first run queues again every memory
// with no embedding of its model, and a new Indexer of another model
// queues the ones embedded by the old.
func TestEmbedQueueFollowsTheMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	model := fakellm.New(t, nil)
	s := memory.New(b.db.DB, memory.Options{Decider: b.adj})
	queued := func(id uuid.UUID) bool {
		var ok bool
		require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM memory_embed_queue WHERE id = $1)", id).Scan(&ok))
		return ok
	}
	alice := user("UA")
	write := func(content, ts string) uuid.UUID {
		out, err := s.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopePersonal, Kind: memory.KindPreference,
			Content: content, WrittenBy: provenance.ByExplicit, MessageTS: ts})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		return out.Memory.ID
	}
	kept := write("Prefers Neovim for writing code", "1800000001.000100")
	gone := write("Drinks oat milk in the afternoon", "1800000002.000100")
	require.True(t, queued(kept), "a new memory is queued")
	require.True(t, queued(gone))

	_, err := b.db.DB.Memories().Archive(ctx, gone, "forgotten", alice.ID, nil)
	require.NoError(t, err)
	require.False(t, queued(gone), "an archived memory leaves the queue")
	require.True(t, queued(kept), "the other stays")
	_, err = b.db.DB.Memories().Restore(ctx, gone)
	require.NoError(t, err)
	require.True(t, queued(gone), "a restored memory is queued again")

	// serve with no embedding model empties the queue; a model configured
	// later finds both by their missing embeddings.
	n, err := b.db.DB.Memories().ClearEmbedQueue(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.False(t, queued(kept))
	require.EqualValues(t, 2, embedAll(t, b.db.DB, model.URL, true))
	require.False(t, queued(kept), "an embedded memory leaves the queue")

	// Another model: the requeue finds both, embedded by the old one.
	ix := &embedding.Indexer{DB: b.db.DB, Embedder: embedder(t, model.URL), Model: "other-model", Vectors: true, Logger: zerolog.Nop()}
	n, err = ix.Run(ctx, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	st, err := b.db.DB.Memories().EmbeddingStatus(ctx, "other-model", true)
	require.NoError(t, err)
	require.EqualValues(t, 2, st.Embedded)
	require.Zero(t, st.Queued)
}

// memory_vectors.part, by which the exact scan reads the asker's
// partitions' vectors, and public_team, by which the split way walks the
// public memories' index, follow the memory: the job writes them with the
// vector, and a memory made public, or private again, carries them to its
// vector, so that each way finds it where the asker may see it.
func TestVectorPartFollowsTheMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	model := fakellm.New(t, nil)
	alice := adminUser("UA")
	place := provenance.Place{Team: alice.Team, Channel: "C1", SourceKey: "slack:" + alice.Team + ":C1:1.000001", Visibility: provenance.Public}
	st := memory.New(d.DB, memory.Options{Logger: zerolog.Nop()})
	out, err := st.Remember(ctx, memory.WriteRequest{Actor: alice, Place: place, Scope: memory.ScopeWorkspace, Kind: memory.KindKnowledge,
		Content: "The quarterly planning offsite is in Porto", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	embedAll(t, d.DB, model.URL, true)

	publicTeam := func() *string {
		var p *string
		require.NoError(t, d.Pool.QueryRow(ctx, "SELECT public_team FROM memory_vectors WHERE id = $1", out.Memory.ID).Scan(&p))
		return p
	}
	part := func() string {
		var p *string
		require.NoError(t, d.Pool.QueryRow(ctx, "SELECT part FROM memory_vectors WHERE id = $1", out.Memory.ID).Scan(&p))
		require.NotNil(t, p, "every vector has its partition")
		return *p
	}
	found := func(channel string, way db.VectorWay) int {
		near, err := d.DB.Memories().Nearest(ctx, db.VectorQuery{Team: alice.Team, Channel: channel, SourceKey: "slack:" + alice.Team + ":" + channel + ":9.000001",
			Actor: "UB", Model: embedModel, Vec: fakellm.Embed("where is the offsite"), Limit: 40, Way: way})
		require.NoError(t, err)
		n := 0
		for _, m := range near {
			if m.ID == out.Memory.ID {
				n++
			}
		}
		return n
	}
	split := func(channel string) int { return found(channel, db.VectorSplit) }
	exact := func(channel string) int { return found(channel, db.VectorExact) }
	require.NotNil(t, publicTeam(), "the job wrote the public memory's team with its vector")
	require.Equal(t, alice.Team, *publicTeam())
	require.Equal(t, alice.Team+"/w", part())
	require.Equal(t, 1, split("C2"), "the split way finds it in another channel, by the public memories' index")
	require.Equal(t, 1, exact("C2"), "and the exact scan, in the workspace's partition")

	_, err = d.Pool.Exec(ctx, "UPDATE memories SET visibility = 'private' WHERE id = $1", out.Memory.ID)
	require.NoError(t, err)
	require.Nil(t, publicTeam(), "made private, it leaves the public memories' index")
	require.Equal(t, alice.Team+"/c/C1/w", part(), "and moves to its channel's partition")
	require.Zero(t, split("C2"), "nor does the asker see it elsewhere")
	require.Zero(t, exact("C2"))
	require.Equal(t, 1, split("C1"), "its channel's partition still finds it there")
	require.Equal(t, 1, exact("C1"))

	_, err = d.Pool.Exec(ctx, "UPDATE memories SET visibility = 'public' WHERE id = $1", out.Memory.ID)
	require.NoError(t, err)
	require.NotNil(t, publicTeam(), "public again, back in it")
	require.Equal(t, alice.Team+"/w", part())
	require.Equal(t, 1, split("C2"))
	require.Equal(t, 1, exact("C2"))
}
