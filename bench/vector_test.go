package bench

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// The vector bench, small, on a real server: every measurement is taken
// (the index is built and has bytes, the walk's recall is measured in both
// workspaces, the three remember series and both recall series have their
// counts), the vector leg returned memories of several scopes and
// visibilities and none the asker may not see, and the job embedded what
// was remembered.
func TestRunVectorSmall(t *testing.T) {
	res, err := RunVector(context.Background(), VectorOptions{
		Server: testdb.ServerURL(t), Rows: 3000, Dims: []int{32}, Queries: 20, Remember: 50,
		Database: "mnemo_t_vector_" + randomSuffix(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.SmallRows == 0 || res.SmallRows*8 > res.Active || res.SmallRows*12 < res.Active {
		t.Errorf("%d of %d active memories in %s, want about a tenth", res.SmallRows, res.Active, SmallTeam)
	}
	if len(res.Dims) != 1 {
		t.Fatalf("%d dimensions measured", len(res.Dims))
	}
	d := res.Dims[0]
	if d.IndexBytes <= 0 || d.Indexed != res.Active || d.Build <= 0 {
		t.Errorf("index: %d bytes, %d rows of %d, built in %s", d.IndexBytes, d.Indexed, res.Active, d.Build)
	}
	if d.RecallN != 10 || d.RecallSmallN != 10 || d.IndexRecall < 0.9 || d.IndexRecallSmall < 0.9 || d.AsRunRecall < d.IndexRecall {
		t.Errorf("recall@10: %.3f over %d, %.3f over %d in the small workspace, %.3f as run", d.IndexRecall, d.RecallN, d.IndexRecallSmall, d.RecallSmallN, d.AsRunRecall)
	}
	if d.Hybrid.N != 20 || d.Lexical.N != 20 || d.Embed.N != 20 || d.Found["vector"]+d.Found["both"] == 0 || d.Fallbacks != 0 {
		t.Errorf("auto-recall: %d hybrid, %d lexical, %d embeddings timed; found by leg %v; %d fallbacks", d.Hybrid.N, d.Lexical.N, d.Embed.N, d.Found, d.Fallbacks)
	}
	v := res.Visibility
	if v.Violations != 0 || v.Returned == 0 || len(v.ByKind) < 4 {
		t.Errorf("visibility: %d of %d returned not visible (%v); by kind %v", v.Violations, v.Returned, v.Examples, v.ByKind)
	}
	if res.RememberOff.N != 50 || res.RememberOn.N != 50 || res.RememberContinuous.N != 50 || res.JobEmbedded == 0 || res.ContinuousEmbedded == 0 {
		t.Errorf("remember: %d/%d/%d timed, the job embedded %d and %d", res.RememberOff.N, res.RememberOn.N, res.RememberContinuous.N, res.JobEmbedded, res.ContinuousEmbedded)
	}
	md := res.Markdown("abc")
	if !strings.HasPrefix(md, VectorMarker) || !strings.HasSuffix(strings.TrimSpace(md), VectorEnd) || !strings.Contains(md, "recall@10") {
		t.Errorf("section:\n%s", md)
	}
}

// Clustered vectors are unit length, the same for the same seed, closer
// within a topic than across topics, and not all in one topic.
func TestClustered(t *testing.T) {
	c := NewClustered(256, 1)
	a, b := c.Vector(7), c.Vector(7)
	var n float64
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("not deterministic")
		}
		n += float64(a[i]) * float64(a[i])
	}
	if math.Abs(n-1) > 1e-4 {
		t.Errorf("norm² %f", n)
	}
	// Neighbours: the nearest of 2,000 vectors to each of 50 is far
	// closer than the average pair.
	vs := make([][]float32, 2000)
	for i := range vs {
		vs[i] = c.Vector(uint64(i))
	}
	cos := func(x, y []float32) float64 {
		s := 0.0
		for i := range x {
			s += float64(x[i]) * float64(y[i])
		}
		return s
	}
	var nearest, mean float64
	for i := range 50 {
		best := -1.0
		for j := range vs {
			if j == i {
				continue
			}
			s := cos(vs[i], vs[j])
			best = max(best, s)
			mean += s
		}
		nearest += best
	}
	nearest /= 50
	mean /= 50 * float64(len(vs)-1)
	if nearest < 0.5 || mean > 0.3 || mean < 0.02 {
		t.Errorf("nearest neighbour at cosine %.2f, the average pair %.2f", nearest, mean)
	}
}

// make bench and make bench-vector each rewrite their part of RESULTS.md.
func TestWithVectorSection(t *testing.T) {
	section := VectorMarker + "\n## Recall by meaning\nfigures\n" + VectorEnd + "\n"
	bench := "# make bench\n\n| table |\n\n## Missed targets\n\n- x\n\n## How to read the table\n"
	// bench-vector into make bench's file: before the misses.
	got := WithVectorSection(bench, "", section)
	if !strings.Contains(got, "| table |\n\n"+section+"\n## Missed targets") {
		t.Errorf("inserted:\n%s", got)
	}
	// Again, with new figures: replaced, not added.
	again := WithVectorSection(got, "", strings.Replace(section, "figures", "new figures", 1))
	if strings.Count(again, VectorMarker) != 1 || !strings.Contains(again, "new figures") || strings.Contains(again, "\nfigures") {
		t.Errorf("replaced:\n%s", again)
	}
	// make bench rewrites its part and keeps the section it finds.
	kept := WithVectorSection(bench, again, "")
	if strings.Count(kept, VectorMarker) != 1 || !strings.Contains(kept, "new figures") {
		t.Errorf("kept:\n%s", kept)
	}
	// No file yet.
	if got := WithVectorSection("", "", section); strings.TrimSpace(got) != strings.TrimSpace(section) {
		t.Errorf("alone:\n%s", got)
	}
	// Nothing to keep.
	if got := WithVectorSection(bench, "", ""); got != bench {
		t.Errorf("nothing:\n%s", got)
	}
}
