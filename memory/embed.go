package memory

import (
	"context"
	"math"
	"sort"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
)

// Reranking by meaning, when the store has an Embedder: the lexical search
// picks candidates, and the embeddings reorder them and admit those that
// match the query's meaning but none of its words.
const (
	// EmbedLexical and EmbedRecent bound the candidates: the lexical
	// matches, and the asker's newest visible memories (which catch a
	// paraphrase that shares no word with the query).
	EmbedLexical = 100
	EmbedRecent  = 100
	// EmbedWeight is the weight of cosine similarity in the score, beside
	// text match (0 to about 1), closeness (0.1 to 0.4) and recency (≤ 0.2).
	EmbedWeight = 1.0
	// EmbedMatch is the cosine similarity from which a memory counts as
	// matching the query without sharing a word with it.
	EmbedMatch = 0.45
)

// rerank runs the lexical search and the newest-first listing, embeds the
// query (and the candidates without a stored embedding, in the same
// request), and ranks the candidates by their lexical score plus
// EmbedWeight × cosine similarity. A failed embedding request falls back to
// the lexical result: recall never fails for want of embeddings.
func (s *Store) rerank(ctx context.Context, q db.SearchQuery) ([]found, error) {
	lq := q
	lq.Limit = max(q.Limit, EmbedLexical)
	lex, err := s.lexical(ctx, lq)
	if err != nil {
		return nil, err
	}
	rq := q
	rq.Limit = EmbedRecent
	recent, err := s.db.Memories().Recent(ctx, rq)
	if err != nil {
		return nil, err
	}
	cands := lex
	seen := make(map[uuid.UUID]bool, len(lex)+len(recent))
	for _, f := range lex {
		seen[f.ID] = true
	}
	for _, r := range recent {
		if !seen[r.ID] {
			m := fromRow(r.Memory)
			m.Score = r.Score
			cands = append(cands, found{Memory: m, cues: r.Cues})
			seen[r.ID] = true
		}
	}
	vecs, query, err := s.embeddings(ctx, q.Query, cands)
	if err != nil {
		s.log.Warn().Err(err).Msg("recall: embedding failed; ranking by text alone")
		return cut(lex, q), nil
	}
	for i := range cands {
		cos := cosine(query, vecs[cands[i].ID])
		cands[i].Score += EmbedWeight * cos
		if cos >= EmbedMatch {
			cands[i].matched = true
		}
	}
	// Reserved preferences are re-chosen by the new score.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Score > cands[j].Score })
	reserved := 0
	for i := range cands {
		c := &cands[i]
		c.reserved = false
		if reserved < q.Reserve && c.Scope == ScopePersonal && c.SubjectID == q.Actor && c.Kind == KindPreference {
			c.reserved = true
			reserved++
		}
	}
	return cut(cands, q), nil
}

// cut keeps what the caller asked for: the reserved preferences, and up to
// q.Limit others that match (or, without RequireMatch, are of this thread
// or channel), best first.
func cut(cands []found, q db.SearchQuery) []found {
	var out []found
	n := 0
	for _, c := range cands {
		switch {
		case c.reserved:
			out = append(out, c)
		case n < q.Limit && (c.matched || (!q.RequireMatch && c.ChannelID == q.Channel && c.Scope != ScopePersonal)):
			out = append(out, c)
			n++
		}
	}
	return out
}

// embeddings returns the candidates' embeddings and the query's. Stored
// ones are read; missing ones are computed with the query's, in one
// request, and stored for next time.
func (s *Store) embeddings(ctx context.Context, query string, cands []found) (map[uuid.UUID][]float32, []float32, error) {
	ids := make([]uuid.UUID, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	vecs, err := s.db.Memories().Embeddings(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	texts := []string{query}
	var missing []uuid.UUID
	for _, c := range cands {
		if _, ok := vecs[c.ID]; !ok {
			texts = append(texts, db.EmbeddingText(c.Content, c.cues))
			missing = append(missing, c.ID)
		}
	}
	got, err := s.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, nil, err
	}
	fresh := make(map[uuid.UUID][]float32, len(missing))
	for i, id := range missing {
		vecs[id] = got[i+1]
		fresh[id] = got[i+1]
	}
	if len(fresh) > 0 {
		if err := s.db.Memories().SetEmbeddings(ctx, s.vec.model, fresh); err != nil {
			s.log.Warn().Err(err).Int("memories", len(fresh)).Msg("recall: storing embeddings failed")
		}
	}
	return vecs, got[0], nil
}

// cosine is the cosine similarity of a and b, 0 when either is missing,
// zero or of another length (another model's).
func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
