package bm25

import (
	"math"
	"slices"
	"testing"
)

// The corpus is small enough to score by hand:
//
//	0 "The cat sat."            → cat sat      (2 words)
//	1 "The dog sat on the dog!" → dog sat dog  (3 words)
//	2 "A bird"                  → bird         (1 word)
//
// N = 3, average length 2.
func tiny() *Index {
	x := New()
	for _, d := range []string{"The cat sat.", "The dog sat on the dog!", "A bird"} {
		x.Add(d)
	}
	return x
}

func TestSearchScoresByHand(t *testing.T) {
	x := tiny()
	idf1 := math.Log(1 + (3-1+0.5)/(1+0.5)) // a word in one document: ln(8/3)
	idf2 := math.Log(1 + (3-2+0.5)/(2+0.5)) // in two: ln(1.6)
	for _, c := range []struct {
		query string
		want  []Hit
	}{
		// dog: tf 2 in a 3-word document: norm = 1.2·(0.25 + 0.75·3/2) = 1.65.
		{"dog", []Hit{{1, idf1 * 2 * 2.2 / (2 + 1.65)}}},
		// cat sat: document 0 is of average length (norm 1.2), so each
		// word scores its idf; document 1 has sat once in 3 words.
		{"Cat, sat?", []Hit{{0, idf1 + idf2}, {1, idf2 * 2.2 / (1 + 1.65)}}},
		// A word repeated in the query counts once.
		{"cat cat", []Hit{{0, idf1}}},
		// Stop-words are dropped from the query: nothing matches.
		{"the on a", nil},
		{"", nil},
	} {
		got := x.Search(c.query, 10)
		if len(got) != len(c.want) {
			t.Fatalf("%q: got %v, want %v", c.query, got, c.want)
		}
		for i := range got {
			if got[i].Doc != c.want[i].Doc || math.Abs(got[i].Score-c.want[i].Score) > 1e-12 {
				t.Errorf("%q: hit %d = %+v, want %+v", c.query, i, got[i], c.want[i])
			}
		}
	}
	if v := idf1; math.Abs(v-0.9808292530117262) > 1e-12 {
		t.Errorf("idf of a word in 1 of 3 documents = %v", v)
	}
}

func TestSearchKeepsTheBestK(t *testing.T) {
	x := tiny()
	got := x.Search("cat sat bird", 2)
	if len(got) != 2 || got[0].Doc != 0 {
		t.Fatalf("got %v, want 2 hits, document 0 first", got)
	}
	// bird (idf1, document 2 of 1 word: norm 1.2·(0.25+0.375) = 0.75) scores
	// idf1·2.2/1.75 ≈ 1.233, above document 1's sat alone.
	if got[1].Doc != 2 {
		t.Errorf("second hit is document %d, want 2", got[1].Doc)
	}
	if x.Search("cat", 0) != nil {
		t.Error("k = 0 returned hits")
	}
}

func TestWords(t *testing.T) {
	got := Words("Caroline (8 May 2023): I'm going to the LGBTQ support group, it's great!")
	want := []string{"caroline", "8", "may", "2023", "going", "lgbtq", "support", "group", "great"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}
