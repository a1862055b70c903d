package bench

import (
	"context"

	"github.com/mnemo-bot/mnemo/internal/fakellm"
	"github.com/mnemo-bot/mnemo/internal/tb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// RetrievalResult is the retrieval benchmark: recall@8 and MRR of the
// auto-recall over the labelled corpus, for each ranking.
type RetrievalResult struct {
	Parent, NoCues, Cues, Embeddings Scores
}

// RunRetrieval loads the labelled corpus twice (with and without cues) and
// scores the parent commit's ranking, the new one without cues, with
// cues, and with cues and embeddings from the fake embedder (served over
// HTTP by internal/fakellm, through the real OpenAI client).
func RunRetrieval(ctx context.Context, server string, l *Labelled) (RetrievalResult, error) {
	var res RetrievalResult
	with, err := NewDatabase(ctx, server, "mnemo_bench_retrieval", 4)
	if err != nil {
		return res, err
	}
	defer with.Close()
	ids, err := l.Load(ctx, with.DB, with.Pool, true)
	if err != nil {
		return res, err
	}
	without, err := NewDatabase(ctx, server, "mnemo_bench_retrieval_nocues", 4)
	if err != nil {
		return res, err
	}
	defer without.Close()
	bareIDs, err := l.Load(ctx, without.DB, without.Pool, false)
	if err != nil {
		return res, err
	}

	if res.Parent, err = l.Score(ctx, l.ParentRanker(without.Pool, bareIDs)); err != nil {
		return res, err
	}
	if res.NoCues, err = l.Score(ctx, l.StoreRanker(memory.New(without.DB, memory.Options{}), bareIDs)); err != nil {
		return res, err
	}
	if res.Cues, err = l.Score(ctx, l.StoreRanker(memory.New(with.DB, memory.Options{}), ids)); err != nil {
		return res, err
	}
	run := &tb.Run{}
	defer run.Close()
	model := fakellm.New(run, nil)
	emb := llm.NewEmbedder("bench", model.URL+"/v1", "text-embedding-3-small")
	res.Embeddings, err = l.Score(ctx, l.StoreRanker(memory.New(with.DB, memory.Options{Embedder: emb}), ids))
	return res, err
}
