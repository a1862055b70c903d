package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Row is one line of the results table. Met is nil for a row without a
// target (reported only); Why explains a miss or a row not measured.
type Row struct {
	Metric, Target, Measured, Baseline, Ratio string
	Met                                       *bool
	Why                                       string
}

func met(ok bool) *bool { return &ok }

// Table is `make bench`'s one table.
type Table struct {
	Rows []Row
}

// Add appends a row.
func (t *Table) Add(r Row) { t.Rows = append(t.Rows, r) }

// NotMeasured adds a row measured elsewhere, with the reason.
func (t *Table) NotMeasured(metric, target, why string) {
	t.Add(Row{Metric: metric, Target: target, Measured: "not measured here", Baseline: "—", Ratio: "—", Why: why})
}

// Markdown renders the table.
func (t *Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| metric | target | measured | baseline | ratio |\n|---|---|---|---|---|\n")
	for _, r := range t.Rows {
		mark := ""
		if r.Met != nil && !*r.Met {
			mark = " ✗"
		}
		fmt.Fprintf(&b, "| %s | %s | %s%s | %s | %s |\n", r.Metric, r.Target, r.Measured, mark, r.Baseline, r.Ratio)
	}
	return b.String()
}

// Misses lists the rows whose target was missed, with the reason.
func (t *Table) Misses() []string {
	var out []string
	for _, r := range t.Rows {
		if r.Met != nil && !*r.Met {
			out = append(out, fmt.Sprintf("%s: %s (target %s). %s", r.Metric, r.Measured, r.Target, r.Why))
		}
	}
	return out
}

// Unmeasured lists the rows not measured here, with the reason.
func (t *Table) Unmeasured() []string {
	var out []string
	for _, r := range t.Rows {
		if r.Measured == "not measured here" {
			out = append(out, fmt.Sprintf("%s: %s", r.Metric, r.Why))
		}
	}
	return out
}

func ms(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/1e6)
}

func faster(baseline, measured time.Duration) string {
	if measured <= 0 {
		return "—"
	}
	r := float64(baseline) / float64(measured)
	if r < 1 {
		return fmt.Sprintf("%.1f× slower", 1/r)
	}
	if r < 10 {
		return fmt.Sprintf("%.1f× faster", r)
	}
	return fmt.Sprintf("%.0f× faster", r)
}

// GoBench is the output of `go test -bench`: per benchmark (without its
// -N suffix), each run's metrics by unit, in order (-count runs it more
// than once).
type GoBench map[string][]map[string]float64

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// ParseGoBench reads `go test -bench` output.
func ParseGoBench(r io.Reader) (GoBench, error) {
	out := GoBench{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		f := strings.Fields(m[3])
		metrics := map[string]float64{}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			metrics[f[i+1]] = v
		}
		out[m[1]] = append(out[m[1]], metrics)
	}
	return out, sc.Err()
}

// ReadGoBench parses a file of `go test -bench` output.
func ReadGoBench(path string) (GoBench, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseGoBench(f)
}

// Get returns a benchmark's metric, the median of its runs, and whether it
// is there.
func (g GoBench) Get(bench, unit string) (float64, bool) {
	all := g.All(bench, unit)
	if len(all) == 0 {
		return 0, false
	}
	slices.Sort(all)
	return all[len(all)/2], true
}

// All returns a benchmark's metric in each run, in order.
func (g GoBench) All(bench, unit string) []float64 {
	var out []float64
	for _, run := range g[bench] {
		if v, ok := run[unit]; ok {
			out = append(out, v)
		}
	}
	return out
}
