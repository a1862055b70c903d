// Package bm25 is a textbook Okapi BM25 ranking, in memory: the baseline
// the LoCoMo benchmark puts beside mnemo's recall. It is deliberately
// plain (no stemming, no phrase or proximity terms), so a ranking that
// beats it shows what the product adds over a textbook.
//
// Words are maximal runs of letters and digits, lowercased; English
// stop-words (StopWords) are dropped, from documents and queries alike.
// A document's score for a query is, over the query's distinct words w,
//
//	idf(w) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))
//
// with idf(w) = ln(1 + (N − n(w) + 0.5) / (n(w) + 0.5)), the form Lucene
// uses (never negative), N the documents, n(w) those containing w, tf the
// word's count in the document and len its length in words (after the
// stop-words are dropped).
package bm25

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Parameters of the textbook ranking.
const (
	K1 = 1.2
	B  = 0.75
)

// Index holds documents, numbered from 0 in the order they were added.
type Index struct {
	postings map[string][]posting
	lens     []int
	total    int
}

type posting struct{ doc, tf int }

// New returns an empty index.
func New() *Index { return &Index{postings: map[string][]posting{}} }

// Add indexes a document and returns its number.
func (x *Index) Add(text string) int {
	doc := len(x.lens)
	tf := map[string]int{}
	words := Words(text)
	for _, w := range words {
		tf[w]++
	}
	for w, n := range tf {
		x.postings[w] = append(x.postings[w], posting{doc, n})
	}
	x.lens = append(x.lens, len(words))
	x.total += len(words)
	return doc
}

// Len is the number of documents.
func (x *Index) Len() int { return len(x.lens) }

// Hit is a document and its score.
type Hit struct {
	Doc   int
	Score float64
}

// Search returns the k best documents for query that contain at least one
// of its words, best first; ties go to the document added first.
func (x *Index) Search(query string, k int) []Hit {
	n := float64(len(x.lens))
	if n == 0 || k <= 0 {
		return nil
	}
	avg := float64(x.total) / n
	if avg == 0 {
		avg = 1
	}
	scores := map[int]float64{}
	seen := map[string]bool{}
	for _, w := range Words(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		ps := x.postings[w]
		if len(ps) == 0 {
			continue
		}
		idf := IDF(len(x.lens), len(ps))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := K1 * (1 - B + B*float64(x.lens[p.doc])/avg)
			scores[p.doc] += idf * tf * (K1 + 1) / (tf + norm)
		}
	}
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, Hit{d, s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Doc < hits[j].Doc
	})
	return hits[:min(k, len(hits))]
}

// IDF is a word's inverse document frequency among docs documents, df of
// which contain it.
func IDF(docs, df int) float64 {
	return math.Log(1 + (float64(docs)-float64(df)+0.5)/(float64(df)+0.5))
}

// Words splits text into lowercase words of letters and digits, without
// the stop-words.
func Words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !StopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// StopWords is NLTK's English stop-word list (nltk.corpus.stopwords,
// "english", 179 words), the one most IR baselines use. Its contracted
// forms ("don't") never survive the split into words, but their pieces
// ("don", "t") are in it too.
var StopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you you're you've you'll you'd your yours
		yourself yourselves he him his himself she she's her hers herself it it's its itself they them their theirs
		themselves what which who whom this that that'll these those am is are was were be been being have has had
		having do does did doing a an the and but if or because as until while of at by for with about against
		between into through during before after above below to from up down in out on off over under again further
		then once here there when where why how all any both each few more most other some such no nor not only own
		same so than too very s t can will just don don't should should've now d ll m o re ve y ain aren aren't
		couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't
		mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't`) {
		m[w] = true
	}
	return m
}()
