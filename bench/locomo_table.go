package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

var shapeTitles = map[string]string{
	ShapeChannel:  "one public channel per conversation",
	ShapePersonal: "the asker's own personal memories (in their DM)",
	ShapeNoisy:    "in a channel that also holds %s unrelated memories",
}

func shapeTitle(shape string, noise int) string {
	t := shapeTitles[shape]
	if shape == ShapeNoisy {
		t = fmt.Sprintf(t, count(noise))
	}
	return t
}

// SummaryHeader and SummaryRow are the table: one row per shape.
const SummaryHeader = "| shape | mnemo Search R@5 / R@10 / R@25 | ForPrompt R@8 | BM25 R@5 / R@10 / R@25 (R@8) | ts_rank_cd R@5 / R@10 / R@25 (R@8) |\n|---|---|---|---|---|\n"

// SummaryRow is one shape's line of the summary.
func SummaryRow(s ShapeResult, noise int) string {
	f := func(v float64) string { return strings.TrimPrefix(fmt.Sprintf("%.3f", v), "0") }
	three := func(t Tally) string { return f(t.R(5)) + " / " + f(t.R(10)) + " / " + f(t.R(25)) }
	se, fp, bm, ts := s.Method(MethodSearch).All, s.Method(MethodForPrompt).All, s.Method(MethodBM25).All, s.Method(MethodTSRank).All
	return fmt.Sprintf("| %s | %s | %s | %s (%s) | %s (%s) |\n", shapeTitle(s.Shape, noise), three(se), f(fp.R(8)),
		three(bm), f(bm.R(8)), three(ts), f(ts.R(8)))
}

// Detail is one shape's full table: every method, over all questions and
// per category, recall@k and hit@k.
func (s ShapeResult) Detail(noise int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%d memories in the database; loaded in %s, scored in %s)\n\n", shapeTitle(s.Shape, noise), s.Rows,
		s.Load.Round(1e6), (s.Took - s.Load).Round(1e6))
	b.WriteString("| method | questions | R@5 | R@8 | R@10 | R@25 | hit@5 | hit@8 | hit@10 | hit@25 | mean time per question |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	cats := make([]int, 0, len(LoCoMoCategories))
	for c := range LoCoMoCategories {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	for _, m := range s.Methods {
		row := func(label string, t Tally, took string) {
			fmt.Fprintf(&b, "| %s | %d |", label, t.N)
			for _, hit := range []bool{false, true} {
				for _, k := range LoCoMoKs {
					v := t.R(k)
					if hit {
						v = t.H(k)
					}
					// ForPrompt returns at most 8 memories.
					if m.Name == MethodForPrompt && k != 8 {
						b.WriteString(" — |")
						continue
					}
					fmt.Fprintf(&b, " %.3f |", v)
				}
			}
			fmt.Fprintf(&b, " %s |\n", took)
		}
		mean := "—"
		if m.All.N > 0 {
			mean = ms(m.Took / time.Duration(m.All.N))
		}
		row("**"+m.Name+"**, all", m.All, mean)
		for _, c := range cats {
			row(fmt.Sprintf("%s, cat %d %s", m.Name, c, LoCoMoCategories[c]), *m.ByCat[c], "")
		}
	}
	return b.String()
}

// Markdown is the LoCoMo section of RESULTS.md: the summary, then each
// shape's detail.
func (r *LoCoMoResult) Markdown(noise int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Recall on LoCoMo\n\n%d development conversations (files %s of locomo10_v2), %d turns stored one memory per turn "+
		"as \"Speaker (8 May 2023): text\" through db.Memories().Insert, without cues; %d questions of categories 1–4 asked by speaker A "+
		"with the question as the query (%d left out: no evidence label names a turn; %d evidence labels name no turn). "+
		"Recall@k: the share of a question's evidence turns in the top k, averaged over questions; hit@k: the share of questions with any. "+
		"Search is the recall tool (requireMatch, 25 results); ForPrompt is auto-recall at its real size (%d). "+
		"BM25 (bench/bm25: k1 1.2, b .75, lowercase words, English stop-words) and ts_rank_cd (to_tsvector('english'), the question's lexemes ORed) "+
		"rank the same rows, every memory of the conversation's team, in the same run. "+
		"Mean times are wall-clock per question, with the product's queries one at a time and the baselines' running alongside.\n\n",
		r.Conversations, strings.Join(LoCoMoFiles, ", "), r.Turns, r.Questions, r.NoEvidence, r.DroppedEvidence, 8)
	b.WriteString(SummaryHeader)
	for _, s := range r.Shapes {
		b.WriteString(SummaryRow(s, noise))
	}
	b.WriteString("\n")
	for _, s := range r.Shapes {
		b.WriteString(s.Detail(noise))
		b.WriteString("\n")
	}
	return b.String()
}

// addLoCoMo adds issue 19's targets to the main table.
func addLoCoMo(t *Table, r *LoCoMoResult) {
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	diff := func(v, base float64) string { return fmt.Sprintf("%+.3f", v-base) }
	for _, shape := range []string{ShapeChannel, ShapePersonal} {
		s, ok := r.Shape(shape)
		if !ok {
			continue
		}
		se, fp, bm := s.Method(MethodSearch).All, s.Method(MethodForPrompt).All, s.Method(MethodBM25).All
		t.Add(Row{Metric: fmt.Sprintf("LoCoMo, %s: Search recall@10 (%d questions)", shapeTitle(shape, 0), se.N), Target: "≥ BM25 + 0.05",
			Measured: f(se.R(10)), Baseline: f(bm.R(10)) + " BM25", Ratio: diff(se.R(10), bm.R(10)), Met: met(se.R(10) >= bm.R(10)+0.05),
			Why: "see the LoCoMo tables below"})
		t.Add(Row{Metric: fmt.Sprintf("LoCoMo, %s: ForPrompt recall@8", shapeTitle(shape, 0)), Target: "≥ BM25",
			Measured: f(fp.R(8)), Baseline: f(bm.R(8)) + " BM25", Ratio: diff(fp.R(8), bm.R(8)), Met: met(fp.R(8) >= bm.R(8)),
			Why: "see the LoCoMo tables below"})
		if u := s.Unmoved; u != nil {
			t.Add(Row{Metric: fmt.Sprintf("LoCoMo, %s: Search and ForPrompt rankings that move when pgvector is dropped (of %d, embeddings off)", shapeTitle(shape, 0), u.Rankings),
				Target: "0", Measured: fmt.Sprint(u.Differ), Baseline: "the same questions with pgvector", Ratio: "—", Met: met(u.Differ == 0 && u.Rankings > 0),
				Why: "recall without pgvector must be today's: " + u.Example})
		}
	}
	if len(r.Shapes) == len(LoCoMoShapes) {
		for _, m := range []struct {
			name string
			k    int
		}{{MethodSearch, 10}, {MethodForPrompt, 8}} {
			lo, hi := 2.0, -1.0
			var each []string
			for _, s := range r.Shapes {
				v := s.Method(m.name).All.R(m.k)
				lo, hi = min(lo, v), max(hi, v)
				each = append(each, f(v))
			}
			t.Add(Row{Metric: fmt.Sprintf("LoCoMo: %s recall@%d across the three shapes (channel / personal / noisy)", strings.TrimPrefix(m.name, "mnemo "), m.k),
				Target: "within 0.02", Measured: fmt.Sprintf("spread %.3f (%s)", hi-lo, strings.Join(each, " / ")), Baseline: "—", Ratio: "—",
				Met: met(hi-lo <= 0.02), Why: "the same conversation must be found as well in every shape"})
		}
	}
}
