package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
)

// Hybrid recall (issue 31): with pgvector and an embedding model, recall
// runs two legs over everything the asker may see, the lexical one
// (BM25F over content and cues, with thread evidence) and a vector one
// (the nearest embeddings, through HNSW or, where the asker sees few
// memories, an exact scan), and fuses their rankings.
//
// Fusion is reciprocal-rank fusion (score = Σ 1/(RRFK + rank) over the
// legs that found a memory), not a calibrated sum of scores: it needs no
// calibration of cosine similarity, whose scale differs from one model to
// another (OpenAI's, Ollama's and vLLM's models alike), and keeps the
// lexical leg's order, thread evidence included, where the vector leg has
// nothing to add. RRFK = 60 is the constant of Cormack et al. (SIGIR 2009).
const (
	// LegLexical, LegVector and LegBoth name the leg that found a memory.
	LegLexical = "lexical"
	LegVector  = "vector"
	LegBoth    = "both"

	RRFK = 60
	// VectorK is how many nearest memories the vector leg reads.
	VectorK = 40
	// ExactScanMin and ExactScanMax bound the memories the asker's
	// partitions may hold for the vector leg to compare them all (exact)
	// instead of walking the HNSW index: see ExactScan.
	ExactScanMin = 1000
	ExactScanMax = 20000
	// ExactScanRatio places the way between them: exact while visible² ≤
	// ExactScanRatio × the vectors indexed.
	ExactScanRatio = 65
	// DefaultQueryDeadline bounds the query's embedding request: past it
	// recall is lexical (MNEMO_EMBEDDING_QUERY_DEADLINE).
	DefaultQueryDeadline = 300 * time.Millisecond
)

type vectorLeg struct {
	on       bool
	model    string
	deadline time.Duration
	fallback func(reason string)
}

// hybrid runs both legs at once and fuses them: the vector leg (the
// query's embedding, a network call, then its read) on a goroutine of its
// own, beside the lexical leg, so that a turn waits for the slower of the
// two rather than their sum. Each leg reads on its own connection of the
// pool, outside any transaction. A query embedding that fails or misses
// its deadline leaves the lexical leg's answer as it is.
func (s *Store) hybrid(ctx context.Context, q db.SearchQuery) ([]found, error) {
	vctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type leg struct {
		near []db.Near
		err  error
	}
	done := make(chan leg, 1)
	go func() {
		near, err := s.nearest(vctx, q)
		done <- leg{near, err}
	}()
	lq := q
	lq.Limit = max(q.Limit, VectorK)
	lex, err := s.lexical(ctx, lq)
	if err != nil {
		cancel()
		<-done // the vector leg ends with its context
		return nil, err
	}
	v := <-done
	if err := v.err; err != nil {
		reason := "error"
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			reason = "deadline"
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.log.Warn().Err(err).Str("reason", reason).Msg("recall: the vector leg failed; recall is lexical")
		if s.vec.fallback != nil {
			s.vec.fallback(reason)
		}
		for i := range lex {
			lex[i].Leg = LegLexical
		}
		return cut(lex, q), nil
	}
	return cut(fuse(lex, v.near, q), q), nil
}

// nearest embeds the query, within the deadline, and reads its nearest
// visible memories.
func (s *Store) nearest(ctx context.Context, q db.SearchQuery) ([]db.Near, error) {
	ectx, cancel := context.WithTimeout(ctx, s.vec.deadline)
	vecs, err := s.embedder.Embed(ectx, []string{q.Query})
	cancel()
	if err != nil {
		if ectx.Err() != nil {
			return nil, context.DeadlineExceeded
		}
		return nil, err
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, errors.New("embedding: no vector for the query")
	}
	m := s.db.Memories()
	size, err := m.VectorScanSize(ctx, q.Team, q.Actor, q.Channel, q.SourceKey, q.Only)
	if err != nil {
		return nil, err
	}
	return m.Nearest(ctx, db.VectorQuery{
		Team: q.Team, Channel: q.Channel, SourceKey: q.SourceKey, Actor: q.Actor, PrivateViewer: q.PrivateViewer, Apply: q.Apply,
		Only: q.Only, Model: s.vec.model, Vec: vecs[0], Limit: VectorK, Way: VectorWayFor(size),
	})
}

// VectorWayFor chooses how the vector leg reads (db.VectorWay) by what
// the asker's partitions hold: every memory exactly where ExactScan says
// so; else the split way (a walk of the public memories' small HNSW index,
// beside an exact scan of the rest) where that rest costs less to scan
// than the whole index's walk for what they see; else that walk.
//
// By ExactScan's measure (an exact scan costs about a·V for V memories, a
// walk about K·N/V, and ExactScanRatio is K/a), the rest R is worth
// scanning while a·R ≤ K·N/V, that is R·V ≤ ExactScanRatio·N: about 3,000
// for an asker who sees 21,000 of a million, where make bench-vector's
// first rule (ExactScan of the rest alone, up to 7,900) made the split
// way's p95 48 ms against the walk's 37.
func VectorWayFor(s db.VectorSize) db.VectorWay {
	rest := s.Visible - s.Public
	switch {
	case ExactScan(s.Visible, s.Vectors):
		return db.VectorExact
	case s.Public > 0 && (rest <= ExactScanMin || rest*s.Visible <= ExactScanRatio*s.Vectors):
		return db.VectorSplit
	}
	return db.VectorWalk
}

// ExactScan says whether the vector leg compares every memory the asker's
// partitions hold (visible of them) rather than walk the HNSW index of
// vectors. The exact scan costs about the same per memory it reads; the
// walk, filtered by what the asker may see, reads about VectorK ×
// vectors / visible index entries before it has VectorK of theirs. So the
// exact scan wins up to a size that grows as the square root of the
// index: ExactScanRatio is where make bench-vector measured the two ways
// to cross at 100,000 memories (about 2,500 visible: bench/RESULTS.md),
// which puts it near 7,900 at a million. At a million, fitting exact ≈
// a·visible and walk ≈ c + K/visible to the two ways' times (2,000 to
// 5,000 visible: exact 18 ms, walk 146 ms at p50; 16,000 to 30,000: exact
// 124 to 174 ms, walk 22 to 28 ms) puts the crossing near 7,500 (docs/scale.md).
// Past ExactScanMax the walk is taken whatever the index's size; up to
// ExactScanMin, never.
func ExactScan(visible, vectors int64) bool {
	switch {
	case visible <= ExactScanMin:
		return true
	case visible > ExactScanMax:
		return false
	}
	return visible*visible <= ExactScanRatio*vectors
}

// fuse ranks the union of both legs by reciprocal-rank fusion. A memory
// only the vector leg found counts as matching the query when it is as
// close as the reranker's EmbedMatch; the asker's own preferences are
// reserved again in the fused order.
func fuse(lex []found, near []db.Near, q db.SearchQuery) []found {
	byID := make(map[uuid.UUID]*found, len(lex)+len(near))
	out := make([]found, 0, len(lex)+len(near))
	for i, f := range lex {
		f.Score = 1 / float64(RRFK+i+1)
		f.Leg = LegLexical
		out = append(out, f)
		_ = i
	}
	for i := range out {
		byID[out[i].ID] = &out[i]
	}
	var extra []found
	for i, n := range near {
		score := 1 / float64(RRFK+i+1)
		sim := 1 - n.Distance
		if f, ok := byID[n.ID]; ok {
			f.Score += score
			f.Leg = LegBoth
			if sim >= EmbedMatch {
				f.matched = true
			}
			continue
		}
		m := fromRow(n.Memory)
		m.Score = score
		m.Leg = LegVector
		extra = append(extra, found{Memory: m, cues: n.Cues, matched: sim >= EmbedMatch})
	}
	out = append(out, extra...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	reserved := 0
	for i := range out {
		c := &out[i]
		c.reserved = false
		if reserved < q.Reserve && c.Scope == ScopePersonal && c.SubjectID == q.Actor && c.Kind == KindPreference {
			c.reserved = true
			reserved++
		}
	}
	return out
}

// RecallMode says in a line how recall finds memories here, for `/mnemo
// stats`: hybrid, lexical reranked by meaning (an embedding model but no
// pgvector on the server), or lexical.
func (s *Store) RecallMode() string {
	switch {
	case s.vec.on:
		return fmt.Sprintf("hybrid: by words and by meaning (%s, pgvector)", s.vec.model)
	case s.embedder != nil:
		return fmt.Sprintf("lexical, candidates reranked by meaning (%s): pgvector is not installed on the database server", s.vec.model)
	}
	return "lexical: no embedding model (MNEMO_EMBEDDING_MODEL)"
}
