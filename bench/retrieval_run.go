package bench

import (
	"context"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// RetrievalResult is the retrieval benchmark: recall@8 and MRR of the
// auto-recall over the labelled corpus, for each ranking.
type RetrievalResult struct {
	Parent, NoCues Scores
	// Plumbing is the ranking with the fake embedder's vectors. Its
	// synonym table was built from this corpus (neovim → editor), so the
	// score shows the embedding path works end to end, not how well a
	// real model's embeddings recall.
	Plumbing Scores
}

// RunRetrieval loads the labelled corpus without its cues and scores the
// parent commit's ranking, the current one, and the current one with the
// fake embedder's vectors (served over HTTP by internal/testkit/fakellm, through
// the real OpenAI client).
//
// The corpus's cues are not loaded: they were written by hand beside the
// questions (39 of the 47 paraphrases share a word with their answer's
// cues), so a score with them measures the fixture (issue 19). Cue
// quality can only be claimed when a model writes the cues from the
// content alone.
func RunRetrieval(ctx context.Context, server string, l *Labelled) (RetrievalResult, error) {
	var res RetrievalResult
	without, err := NewDatabase(ctx, server, "mnemo_bench_retrieval_nocues", 4)
	if err != nil {
		return res, err
	}
	defer without.Close()
	ids, err := l.Load(ctx, without.DB, without.Pool, false)
	if err != nil {
		return res, err
	}
	if res.Parent, err = l.Score(ctx, l.ParentRanker(without.Pool, ids)); err != nil {
		return res, err
	}
	if res.NoCues, err = l.Score(ctx, l.StoreRanker(memory.New(without.DB, memory.Options{}), ids)); err != nil {
		return res, err
	}
	run := &harness.Run{}
	defer run.Close()
	model := fakellm.New(run, nil)
	emb := llm.NewEmbedder("bench", model.URL+"/v1", "text-embedding-3-small")
	res.Plumbing, err = l.Score(ctx, l.StoreRanker(memory.New(without.DB, memory.Options{Embedder: emb}), ids))
	return res, err
}
