package tools

import (
	"sort"
	"strings"
	"unicode"
)

// sourceIndex is one source's tools prepared for search. It is built once
// per listing (static registration, or a provider's tool list until it
// reconnects) and never changed after, so searches share it without locks.
type sourceIndex struct {
	tools  []*entry // sorted by name; a provider's duplicates keep its order
	byName map[string]*entry

	// Posting lists: token → positions in tools, each position once.
	fullName map[string][]int32 // the whole lowercased name
	// nameRun holds the lowercased names' runs of letters and digits. A
	// term is letters and digits only, so a name contains it exactly when
	// one of its runs does, and a source has far fewer distinct runs than
	// names.
	nameRun  map[string][]int32
	runKeys  []string
	nameWord map[string][]int32
	param    map[string][]int32
	descWord map[string][]int32
	descKeys []string // descWord's tokens, sorted, for prefix matches
}

func newSourceIndex(list []*entry) *sourceIndex {
	ix := &sourceIndex{
		tools:    append([]*entry(nil), list...),
		byName:   make(map[string]*entry, len(list)),
		fullName: make(map[string][]int32, len(list)),
		nameRun:  map[string][]int32{},
		nameWord: map[string][]int32{},
		param:    map[string][]int32{},
		descWord: map[string][]int32{},
	}
	sort.SliceStable(ix.tools, func(i, j int) bool { return ix.tools[i].Name < ix.tools[j].Name })
	for i, e := range ix.tools {
		if _, dup := ix.byName[e.Name]; !dup {
			ix.byName[e.Name] = e
		}
		pos := int32(i)
		post(ix.fullName, pos, e.search.lowerName)
		post(ix.nameRun, pos, strings.FieldsFunc(e.search.lowerName, notLetterOrDigit)...)
		post(ix.nameWord, pos, e.search.nameWords...)
		post(ix.param, pos, e.search.params...)
		post(ix.descWord, pos, e.search.descWords...)
	}
	for w := range ix.nameRun {
		ix.runKeys = append(ix.runKeys, w)
	}
	sort.Strings(ix.runKeys)
	for w := range ix.descWord {
		ix.descKeys = append(ix.descKeys, w)
	}
	sort.Strings(ix.descKeys)
	return ix
}

// post adds pos to each word's list once; positions arrive in ascending
// order, so a repeat is always the list's last element.
func post(m map[string][]int32, pos int32, words ...string) {
	for _, w := range words {
		l := m[w]
		if n := len(l); n > 0 && l[n-1] == pos {
			continue
		}
		m[w] = append(l, pos)
	}
}

// scratch is score's working memory, reused across the sources of one
// search.
type scratch struct {
	nameBest, descBest []float64
	touched            []int32
}

func (s *scratch) size(n int) {
	if cap(s.nameBest) < n {
		s.nameBest, s.descBest = make([]float64, n), make([]float64, n)
	}
	s.nameBest, s.descBest = s.nameBest[:n], s.descBest[:n]
}

// score adds each tool's relevance to the query terms into out (one slot
// per tool). Per term: the name counts 10 if it is the term, 6 if it has the
// term as a word, 3 if it merely contains it; the source's name 2; a
// parameter name 1.5; a description word 1, or 0.5 if a word there starts
// with the term or (at 4 letters or more) begins it. No terms rank every
// tool 1.
func (ix *sourceIndex) score(terms []string, source string, out []float64, sc *scratch) {
	if len(terms) == 0 {
		for i := range out {
			out[i] = 1
		}
		return
	}
	src := strings.ToLower(source)
	sc.size(len(ix.tools))
	nameBest, descBest, touched := sc.nameBest, sc.descBest, sc.touched[:0]
	raise := func(best []float64, i int32, v float64) {
		if nameBest[i] == 0 && descBest[i] == 0 {
			touched = append(touched, i)
		}
		best[i] = max(best[i], v)
	}
	// Per term, the name and the description each count once, at their
	// best; both maxima go back to zero before the next term.
	defer func() { sc.touched = touched }()
	for _, t := range terms {
		for _, run := range ix.runKeys {
			if strings.Contains(run, t) {
				for _, i := range ix.nameRun[run] {
					raise(nameBest, i, 3)
				}
			}
		}
		for _, i := range ix.nameWord[t] {
			raise(nameBest, i, 6)
		}
		for _, i := range ix.fullName[t] {
			raise(nameBest, i, 10)
		}
		for _, i := range ix.param[t] {
			out[i] += 1.5
		}
		if len(t) >= 3 {
			for k := sort.SearchStrings(ix.descKeys, t); k < len(ix.descKeys) && strings.HasPrefix(ix.descKeys[k], t); k++ {
				for _, i := range ix.descWord[ix.descKeys[k]] {
					raise(descBest, i, 0.5)
				}
			}
			for n := 4; n < len(t); n++ {
				for _, i := range ix.descWord[t[:n]] {
					raise(descBest, i, 0.5)
				}
			}
		}
		for _, i := range ix.descWord[t] {
			raise(descBest, i, 1)
		}
		for _, i := range touched {
			out[i] += nameBest[i] + descBest[i]
			nameBest[i], descBest[i] = 0, 0
		}
		touched = touched[:0]
		if strings.Contains(src, t) {
			for i := range out {
				out[i] += 2
			}
		}
	}
}

func notLetterOrDigit(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }
