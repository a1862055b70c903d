package detect

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDetectorReport measures the detectors on the labelled corpus and
// prints precision and recall per category, for the closing note of a
// change. An entry counts as found when its first finding has its
// category; a negative is a false positive when anything is found in it.
// The corpus is half hard negatives (meeting ids, order and part numbers,
// Slack ts values, versions, timestamps, references to secrets).
func TestDetectorReport(t *testing.T) {
	t.Parallel()
	entries := loadCorpus(t)
	type counts struct{ tp, fn, fp int }
	per := map[Category]*counts{}
	at := func(c Category) *counts {
		if per[c] == nil {
			per[c] = &counts{}
		}
		return per[c]
	}
	var positives, found, negatives, falsePos int
	var misses []string
	for i, e := range entries {
		var got Category
		if fs := Detect(e.Text); len(fs) > 0 {
			got = fs[0].Category
		}
		if e.Want == "" {
			negatives++
			if got != "" {
				falsePos++
				at(got).fp++
				misses = append(misses, fmt.Sprintf("entry %d (%s): %q found as %s", i, e.Note, e.Text, got))
			}
			continue
		}
		positives++
		switch {
		case got == e.Want:
			found++
			at(e.Want).tp++
		default:
			at(e.Want).fn++
			if got != "" {
				at(got).fp++
			}
			misses = append(misses, fmt.Sprintf("entry %d (%s): %q found as %q", i, e.Note, e.Text, got))
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	cats := make([]Category, 0, len(per))
	for c := range per {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	var b strings.Builder
	fmt.Fprintf(&b, "detector corpus: %d entries, %d positive, %d negative\n", len(entries), positives, negatives)
	fmt.Fprintf(&b, "%-14s %5s %4s %4s %4s %9s %7s\n", "category", "n", "tp", "fn", "fp", "precision", "recall")
	for _, c := range cats {
		k := per[c]
		fmt.Fprintf(&b, "%-14s %5d %4d %4d %4d %9.3f %7.3f\n", c, k.tp+k.fn, k.tp, k.fn, k.fp, ratio(k.tp, k.tp+k.fp), ratio(k.tp, k.tp+k.fn))
	}
	recall, fpr := ratio(found, positives), ratio(falsePos, negatives)
	fmt.Fprintf(&b, "recall on positives %.3f (%d/%d), false-positive rate on negatives %.3f (%d/%d)", recall, found, positives, fpr, falsePos, negatives)
	t.Log("\n" + b.String())

	require.GreaterOrEqual(t, len(entries), 300)
	require.GreaterOrEqual(t, negatives*2, len(entries), "at least half the corpus is negatives")
	require.GreaterOrEqual(t, recall, 0.98, "misses:\n%s", strings.Join(misses, "\n"))
	require.LessOrEqual(t, fpr, 0.02, "misses:\n%s", strings.Join(misses, "\n"))
}
