package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/embedding"
	"github.com/mnemo-bot/mnemo/llm"
)

const embeddingsUsage = `usage: mnemo embeddings status|backfill

Recall by meaning reads the embeddings that serve writes in the background,
with MNEMO_EMBEDDING_MODEL, for new memories and, after the model changes,
for every one (until then a memory is found by its words only).

  status    whether the server has pgvector, how many active memories are
            embedded by the configured model, by which models the others
            are, and the size of each HNSW index (per million rows)
  backfill  embed every active memory that has no embedding of the
            configured model now, in this process, showing progress; serve
            does the same by itself, a batch at a time
`

func cmdEmbeddings(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand(newFlagSet("embeddings", embeddingsUsage, stdout), args, "", "status", "backfill")
	if err != nil {
		return err
	}
	if _, err := newFlagSet("embeddings "+sub, embeddingsUsage, stdout).parse(rest, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, "embeddings")
	if err != nil {
		return err
	}
	if cfg.EmbeddingModel == "" {
		return fmt.Errorf("MNEMO_EMBEDDING_MODEL is not set: recall is lexical only, and there is nothing to embed")
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	vec, err := d.HasVectors(ctx)
	if err != nil {
		return err
	}
	if sub == "status" {
		return embeddingsStatus(ctx, d, cfg.EmbeddingModel, vec, stdout)
	}
	ix := &embedding.Indexer{
		DB: d, Model: cfg.EmbeddingModel, Vectors: vec, Logger: newLogger(stderr, cfg.LogLevel.Level()),
		Embedder: llm.NewEmbedder(cfg.EmbeddingKey, string(cfg.EmbeddingBaseURL), cfg.EmbeddingModel),
	}
	bar := isTerminal(stdout)
	n, err := ix.Run(ctx, func(p embedding.Progress) {
		if bar {
			fmt.Fprintf(stdout, "\r%s", progressBar(p.Done, p.Done+p.Left, 40))
		} else {
			fmt.Fprintf(stdout, "embedded %d, %d left\n", p.Done, p.Left)
		}
	})
	if bar {
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "embedded %d memories with %s\n", n, cfg.EmbeddingModel)
	return err
}

// progressBar draws done of total in width cells, with the counts.
func progressBar(done, total int64, width int) string {
	filled := width
	if total > 0 {
		filled = int(int64(width) * done / total)
	}
	return fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total)
}

func embeddingsStatus(ctx context.Context, d *db.DB, model string, vec bool, w io.Writer) error {
	st, err := d.Memories().EmbeddingStatus(ctx, model, vec)
	if err != nil {
		return err
	}
	if vec {
		fmt.Fprintln(w, "pgvector: installed; recall is hybrid, by words and by meaning")
	} else {
		fmt.Fprintln(w, "pgvector: not installed on the database server; recall is lexical, its candidates reranked by meaning")
	}
	fmt.Fprintf(w, "model: %s\nactive memories: %d\nembedded by %s: %d (%d left; %d queued)\n", model, st.Active, model, st.Embedded, st.Active-st.Embedded, st.Queued)
	for _, m := range st.Models {
		if m.Model != model {
			fmt.Fprintf(w, "embedded by %s (%d dimensions), found by words only until redone: %d\n", m.Model, m.Dim, m.Memories)
		}
	}
	if !vec {
		return nil
	}
	idx, err := d.VectorIndexes(ctx)
	if err != nil {
		return err
	}
	for _, i := range idx {
		per := ""
		if i.Rows > 0 {
			per = fmt.Sprintf(", %.0f MB per million rows", float64(i.Bytes)/float64(i.Rows))
		}
		fmt.Fprintf(w, "index %s: %d rows, %.1f MB%s\n", i.Name, i.Rows, float64(i.Bytes)/1e6, per)
	}
	return nil
}
