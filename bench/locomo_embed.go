package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/embedding"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// make eval-embed (issue 31): recall on LoCoMo's development conversations
// with the embeddings of a real model, through the endpoint serve would
// use, beside lexical-only recall over the same rows in the same run. The
// fake embedder's vectors say nothing of quality (its synonyms were
// written for the tests), so this is the only figure of recall by
// meaning's quality; it needs an endpoint, and is not run in CI.

// EmbedShapes are the shapes eval-embed may run. The noisy one is left
// out: it would send half a million unrelated memories to the endpoint.
var EmbedShapes = []string{ShapeChannel, ShapePersonal}

// The methods eval-embed scores, each lexical-only and hybrid.
const (
	MethodSearchLexical    = "Search, lexical"
	MethodSearchHybrid     = "Search, hybrid"
	MethodForPromptLexical = "ForPrompt, lexical"
	MethodForPromptHybrid  = "ForPrompt, hybrid"
)

// EmbedOptions is an eval-embed run.
type EmbedOptions struct {
	Server   string
	Embedder llm.Embedder
	Model    string
	Shapes   []string // default EmbedShapes
	// QueryDeadline bounds each question's embedding (default 10 s: the
	// run measures quality, not the endpoint's speed; a question past it
	// is counted as a fallback and recalled lexically, as serve would).
	QueryDeadline time.Duration
	Database      string // prefix, default mnemo_bench_embed_
	Log           func(format string, args ...any)
}

// EmbedResult is eval-embed's outcome, one entry per shape.
type EmbedResult struct {
	Model  string
	Shapes []EmbedShape
}

// EmbedShape is one shape's scores.
type EmbedShape struct {
	Shape     string
	Rows      int
	Embedded  int64
	Dim       int
	Mode      string // the hybrid store's RecallMode
	Fallbacks int64
	Methods   []MethodResult
}

// RunEmbed loads the conversations in each shape as RunLoCoMo does,
// embeds every memory through the background job's own code
// (embedding.Indexer) and the endpoint, and scores every question with
// Search and ForPrompt, lexical-only and hybrid.
func RunEmbed(ctx context.Context, convs []Conversation, o EmbedOptions) (*EmbedResult, error) {
	if len(o.Shapes) == 0 {
		o.Shapes = EmbedShapes
	}
	if o.QueryDeadline <= 0 {
		o.QueryDeadline = 10 * time.Second
	}
	if o.Database == "" {
		o.Database = "mnemo_bench_embed_"
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	res := &EmbedResult{Model: o.Model}
	for _, shape := range o.Shapes {
		if !slices.Contains(EmbedShapes, shape) {
			return nil, fmt.Errorf("eval-embed: shape %q: only %s (the noisy shape would embed half a million memories)", shape, strings.Join(EmbedShapes, ", "))
		}
		s, err := embedShape(ctx, convs, shape, o)
		if err != nil {
			return nil, fmt.Errorf("eval-embed %s: %w", shape, err)
		}
		res.Shapes = append(res.Shapes, s)
	}
	return res, nil
}

func embedShape(ctx context.Context, convs []Conversation, shape string, o EmbedOptions) (EmbedShape, error) {
	res := EmbedShape{Shape: shape}
	d, err := NewDatabase(ctx, o.Server, o.Database+shape, 8)
	if err != nil {
		return res, err
	}
	defer d.Close()
	var ls []*loaded
	for _, c := range convs {
		l, err := loadConversation(ctx, d.DB, c, shape)
		if err != nil {
			return res, err
		}
		ls = append(ls, l)
	}
	if _, err := d.Pool.Exec(ctx, "UPDATE memories SET created_at = observed_at WHERE idempotency_key LIKE 'locomo:%'"); err != nil {
		return res, err
	}
	if err := d.Pool.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&res.Rows); err != nil {
		return res, err
	}
	vec, err := d.DB.HasVectors(ctx)
	if err != nil {
		return res, err
	}
	t := time.Now()
	ix := &embedding.Indexer{DB: d.DB, Embedder: o.Embedder, Model: o.Model, Vectors: vec, Logger: zerolog.Nop()}
	if res.Embedded, err = ix.Run(ctx, func(p embedding.Progress) {
		o.Log("  eval-embed %s: embedded %d, %d left", shape, p.Done, p.Left)
	}); err != nil {
		return res, err
	}
	st, err := d.DB.Memories().EmbeddingStatus(ctx, o.Model, vec)
	if err != nil {
		return res, err
	}
	if st.Embedded != st.Active {
		return res, fmt.Errorf("%d of %d memories embedded", st.Embedded, st.Active)
	}
	for _, m := range st.Models {
		if m.Model == o.Model {
			res.Dim = m.Dim
		}
	}
	if vec {
		if err := d.DB.EnsureVectorIndex(ctx, res.Dim); err != nil {
			return res, err
		}
	}
	if _, err := d.Pool.Exec(ctx, "VACUUM (ANALYZE) memories"); err != nil {
		return res, err
	}
	o.Log("  eval-embed %s: %d memories, embedded by %s (%d dimensions) in %s", shape, res.Rows, o.Model, res.Dim, time.Since(t).Round(time.Millisecond))

	var fallbacks atomic.Int64
	lexical := memory.New(d.DB, memory.Options{Logger: zerolog.Nop()})
	hybrid := memory.New(d.DB, memory.Options{Embedder: o.Embedder, EmbeddingModel: o.Model, Vectors: vec, Logger: zerolog.Nop(),
		QueryDeadline: o.QueryDeadline, OnVectorFallback: func(string) { fallbacks.Add(1) }})
	res.Mode = hybrid.RecallMode()
	type method struct {
		name string
		rank func(context.Context, *loaded, string) ([]memory.Memory, error)
	}
	search := func(s *memory.Store) func(context.Context, *loaded, string) ([]memory.Memory, error) {
		return func(ctx context.Context, l *loaded, q string) ([]memory.Memory, error) {
			return s.Search(ctx, l.viewer, q, 25, true)
		}
	}
	prompt := func(s *memory.Store) func(context.Context, *loaded, string) ([]memory.Memory, error) {
		return func(ctx context.Context, l *loaded, q string) ([]memory.Memory, error) {
			return s.ForPrompt(ctx, l.viewer, q)
		}
	}
	methods := []method{
		{MethodSearchLexical, search(lexical)}, {MethodSearchHybrid, search(hybrid)},
		{MethodForPromptLexical, prompt(lexical)}, {MethodForPromptHybrid, prompt(hybrid)},
	}
	for _, m := range methods {
		r := MethodResult{Name: m.name, ByCat: map[int]*Tally{}}
		for c := range LoCoMoCategories {
			r.ByCat[c] = &Tally{}
		}
		for _, l := range ls {
			for _, q := range l.conv.Questions {
				t := time.Now()
				got, err := m.rank(ctx, l, q.Text)
				r.Took += time.Since(t)
				if err != nil {
					return res, fmt.Errorf("%s, conversation %s, %q: %w", m.name, l.conv.Name, q.Text, err)
				}
				ids := l.ids(got)
				r.All.add(ids, q.Evidence)
				r.ByCat[q.Category].add(ids, q.Evidence)
			}
		}
		res.Methods = append(res.Methods, r)
	}
	res.Fallbacks = fallbacks.Load()
	return res, nil
}

// Method returns the shape's result for a method.
func (s EmbedShape) Method(name string) MethodResult {
	for _, m := range s.Methods {
		if m.Name == name {
			return m
		}
	}
	return MethodResult{Name: name}
}

// Markdown prints each shape's recall by category, lexical beside hybrid:
// Search's recall@10 and ForPrompt's recall@8 (it returns 8).
func (r *EmbedResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Recall on LoCoMo's development split, by meaning (%s)\n\n", r.Model)
	for _, s := range r.Shapes {
		fmt.Fprintf(&b, "### %s: %d memories, %d embedded (%d dimensions); %s; %d questions recalled lexically after an embedding error or deadline\n\n",
			s.Shape, s.Rows, s.Embedded, s.Dim, s.Mode, s.Fallbacks)
		b.WriteString("| category | questions | Search R@10 lexical | Search R@10 hybrid | ForPrompt R@8 lexical | ForPrompt R@8 hybrid |\n|---|---|---|---|---|---|\n")
		row := func(name string, tally func(MethodResult) Tally) {
			sl, sh := tally(s.Method(MethodSearchLexical)), tally(s.Method(MethodSearchHybrid))
			pl, ph := tally(s.Method(MethodForPromptLexical)), tally(s.Method(MethodForPromptHybrid))
			fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", name, sl.N, sl.R(10), sh.R(10), pl.R(8), ph.R(8))
		}
		row("all", func(m MethodResult) Tally { return m.All })
		for _, c := range []int{1, 2, 3, 4} {
			row(fmt.Sprintf("%d %s", c, LoCoMoCategories[c]), func(m MethodResult) Tally {
				if t := m.ByCat[c]; t != nil {
					return *t
				}
				return Tally{}
			})
		}
		b.WriteString("\n")
	}
	return b.String()
}
