package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
)

// Config is what `make bench` measures.
type Config struct {
	Server    string // PostgreSQL server URL; databases are made and dropped on it
	Sizes     []int  // corpus sizes for recall; remember runs at the largest
	Queries   int    // recall queries per size
	Remember  int    // remembers one at a time, and as many again concurrently
	Writers   int    // concurrent writers for remember's throughput
	GoBench   string // `go test -bench` output to read, or ""
	Retrieval string // the labelled corpus
	// Mnemo is the binary `mnemo serve` runs from, for turn overhead, the
	// concurrent mentions and RSS; "" skips them.
	Mnemo string
	// ServeTurns are the turns timed one at a time, at the largest size
	// and on an empty database.
	ServeTurns int
	// LogDir, when set, keeps each serve run's log there.
	LogDir string
	Log    io.Writer
	// LoCoMoDir holds LoCoMo's development conversations (LOCOMO_DIR);
	// "" leaves recall on LoCoMo out, saying how to get the data.
	LoCoMoDir    string
	LoCoMoShapes []string
	// LoCoMoNoise is how many unrelated memories the noisy shape's
	// channels hold.
	LoCoMoNoise int
	// LoCoMoKeep leaves the LoCoMo databases in place after the run.
	LoCoMoKeep bool
	// RecallOnly stops after recall over the corpora, and leaves the largest
	// corpus's database (mnemo_bench_<size>) in place, for tuning by hand.
	RecallOnly bool
}

// Report is a run's table and what it ran on.
type Report struct {
	Table   Table
	Machine Machine
	Started time.Time
	Took    time.Duration
	Notes   []string
	// Sections are tables of their own, after the main one (recall on
	// LoCoMo).
	Sections []string
}

// Run measures everything and fills the table.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	r := &Report{Started: time.Now()}
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.Log, format+"\n", args...) }
	var err error
	if r.Machine, err = Describe(ctx, cfg.Server); err != nil {
		return nil, err
	}
	t := &r.Table

	logf("recall over the corpora: %v rows, %d queries each", cfg.Sizes, cfg.Queries)
	var largest *Database
	var spec corpus.Spec
	var recalls []RecallResult
	for i, size := range cfg.Sizes {
		spec = corpus.Spec{Rows: size, Seed: 1, Now: time.Now()}
		d, err := NewDatabase(ctx, cfg.Server, fmt.Sprintf("mnemo_bench_%d", size), 8)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if err := corpus.Load(ctx, d.Pool, spec); err != nil {
			d.Close()
			return nil, err
		}
		logf("  %d rows loaded with COPY in %s", size, time.Since(start).Round(time.Second))
		store := memory.New(d.DB, memory.Options{})
		res, err := MeasureRecall(ctx, store, d.Pool, size, spec.Queries(cfg.Queries), RecallOptions{Warmup: 50, BaselineBudget: 40 * time.Second, BaselineMin: 50})
		if err != nil {
			d.Close()
			return nil, err
		}
		addRecall(t, res)
		recalls = append(recalls, res)
		if ib, err := MeasureIndexBytes(ctx, d.Pool); err == nil {
			addIndexBytes(t, size, ib)
		} else {
			return nil, err
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s rows: the baseline timed %d auto-recall and %d recall-tool queries (of %d; it stops after 40 s); "+
			"queries that found nothing: ours %d and %d, the baseline's %d and %d.",
			count(size), res.AutoBaseline.N, res.ToolBaseline.N, cfg.Queries, res.AutoEmpty, res.ToolEmpty, res.AutoBaseEmpty, res.ToolBEm))
		logf("  auto-recall p95 %s (baseline %s), tool p95 %s (baseline %s)", ms(res.Auto.P95), ms(res.AutoBaseline.P95), ms(res.Tool.P95), ms(res.ToolBaseline.P95))
		if p50, p95, err := VisibleRows(ctx, d.Pool, spec.Queries(100)); err == nil {
			r.Notes = append(r.Notes, fmt.Sprintf("%s rows: memories visible to the asker, over the first 100 questions: p50 %d, p95 %d (what scoring every visible row would score).", count(size), p50, p95))
		}
		logf("  memory__list p95 %s (baseline %s)", ms(res.List.P95), ms(res.ListBaseline.P95))
		if i == len(cfg.Sizes)-1 {
			largest = d
		} else {
			d.Close()
		}
	}
	addSlopes(t, recalls)
	if cfg.RecallOnly {
		if largest != nil {
			largest.Pool.Close()
		}
		r.Took = time.Since(r.Started)
		return r, nil
	}
	if largest != nil {
		// Closed at the end: the serve run below uses it too.
		defer largest.Close()
		logf("remember at %d rows", spec.Rows)
		// The reader has its own connections: a write must be visible to the
		// next search wherever it runs.
		readerPool, err := pgxpool.NewWithConfig(ctx, largest.Pool.Config())
		if err != nil {
			return nil, err
		}
		defer readerPool.Close()
		res, err := MeasureRemember(ctx, memory.New(largest.DB, memory.Options{}), memory.New(db.New(readerPool), memory.Options{}), spec, cfg.Remember, cfg.Writers)
		if err != nil {
			return nil, err
		}
		addRemember(t, spec.Rows, res)
		r.Notes = append(r.Notes, fmt.Sprintf("Remember at %s rows, without the model's review: %d stored, %d duplicates, %d refused by the deterministic review.",
			count(spec.Rows), res.Stored, res.Dup, res.Rejected))
	}

	if cfg.GoBench != "" {
		g, err := ReadGoBench(cfg.GoBench)
		if err != nil {
			return nil, err
		}
		addGoBench(t, g)
	}

	po, err := MeasurePromptOverhead(memory.New(nil, memory.Options{}))
	if err != nil {
		return nil, err
	}
	ratio := float64(po.Deferred) / float64(po.Native)
	t.Add(Row{Metric: fmt.Sprintf("prompt overhead: tool-definition bytes per call, 5 MCP servers × 30 tools + memory (%d tools)", po.Tools),
		Target: "≤ 10% of all-native", Measured: fmt.Sprintf("%d B (deferred catalog)", po.Deferred),
		Baseline: fmt.Sprintf("%d B (all native)", po.Native), Ratio: fmt.Sprintf("%.1f%%", 100*ratio), Met: met(ratio <= 0.10)})

	logf("retrieval over the labelled corpus")
	l, err := ReadLabelled(cfg.Retrieval)
	if err != nil {
		return nil, err
	}
	rr, err := RunRetrieval(ctx, cfg.Server, l)
	if err != nil {
		return nil, err
	}
	addRetrieval(t, l, rr)

	if cfg.LoCoMoDir == "" {
		t.NotMeasured("LoCoMo recall (issue 19): Search recall@10 ≥ BM25 + 0.05 in the channel and personal shapes; ForPrompt recall@8 ≥ BM25; the three shapes within 0.02",
			"see the LoCoMo section", LoCoMoHowTo)
	} else {
		logf("recall on LoCoMo (%s)", cfg.LoCoMoDir)
		convs, err := ReadLoCoMo(cfg.LoCoMoDir)
		if err != nil {
			return nil, err
		}
		lr, err := RunLoCoMo(ctx, convs, LoCoMoOptions{Server: cfg.Server, Shapes: cfg.LoCoMoShapes, Noise: cfg.LoCoMoNoise, Log: logf})
		if err != nil {
			return nil, err
		}
		addLoCoMo(t, lr)
		r.Sections = append(r.Sections, lr.Markdown(cfg.LoCoMoNoise))
	}

	r.Notes = append(r.Notes, "The recall targets (p95 ≤ 8 ms for auto-recall and ≤ 10 ms for the recall tool, each ≥ 10× the baseline) are at a million memories. At 10k the ILIKE scan reads a few hundred visible rows and costs about what an index read does; the smaller corpora show how each cost grows.")
	if cfg.Mnemo != "" && largest != nil {
		if err := measureServe(ctx, cfg, r, largest, spec, logf); err != nil {
			return nil, err
		}
	} else {
		const why = "needs the mnemo binary (--mnemo) and the largest corpus"
		t.NotMeasured("turn overhead without the model, p95 at 1M memories", "≤ 12 ms", why)
		t.NotMeasured("50 simultaneous mentions (500 ms model): first send to last reply", "≤ 1.3× 50 ÷ turn limit × 500 ms, one reply each", why)
		t.NotMeasured("RSS idle / during 50 turns", "≤ 60 MB / ≤ 150 MB", why)
	}
	addAck(t, cfg.GoBench, r)

	if r.Machine.LoadEnd, err = loadAverage(); err != nil {
		r.Machine.LoadEnd = "?"
	}
	r.Took = time.Since(r.Started)
	return r, nil
}

// RunServe measures only the serve run, over an empty database and a
// corpus of the largest size in cfg.Sizes: turn overhead, the concurrent
// mentions and RSS (`mnemo-bench --only serve`, for work on the way in).
func RunServe(ctx context.Context, cfg Config) (*Report, error) {
	r := &Report{Started: time.Now()}
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.Log, format+"\n", args...) }
	var err error
	if r.Machine, err = Describe(ctx, cfg.Server); err != nil {
		return nil, err
	}
	size := cfg.Sizes[len(cfg.Sizes)-1]
	spec := corpus.Spec{Rows: size, Seed: 1, Now: time.Now()}
	d, err := NewDatabase(ctx, cfg.Server, fmt.Sprintf("mnemo_bench_%d", size), 8)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	start := time.Now()
	if err := corpus.Load(ctx, d.Pool, spec); err != nil {
		return nil, err
	}
	logf("  %d rows loaded with COPY in %s", size, time.Since(start).Round(time.Second))
	if err := measureServe(ctx, cfg, r, d, spec, logf); err != nil {
		return nil, err
	}
	if r.Machine.LoadEnd, err = loadAverage(); err != nil {
		r.Machine.LoadEnd = "?"
	}
	r.Took = time.Since(r.Started)
	return r, nil
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func addRecall(t *Table, r RecallResult) {
	size := count(r.Rows)
	big := r.Rows >= 1_000_000
	for _, s := range []struct {
		name     string
		l, base  Latency
		baseName string
	}{{"auto-recall (ForPrompt)", r.Auto, r.AutoBaseline, "ILIKE"}, {"recall tool (Search)", r.Tool, r.ToolBaseline, "ILIKE"}, {"memory__list", r.List, r.ListBaseline, "newest-first scan"}} {
		t.Add(Row{Metric: fmt.Sprintf("%s p50 @%s", s.name, size), Target: "—", Measured: ms(s.l.P50),
			Baseline: ms(s.base.P50) + " " + s.baseName, Ratio: faster(s.base.P50, s.l.P50)})
		// The targets are at a million memories; the smaller corpora show
		// how the cost grows.
		ratio := float64(s.base.P95) / float64(s.l.P95)
		target, ok, why := "— (targets at 1M)", (*bool)(nil), ""
		if s.name == "memory__list" {
			target = "—"
		}
		if big && s.name != "memory__list" {
			// Auto-recall's is issue #32's (a turn pays it); the tool's is
			// the earlier 10 ms.
			limit := 10 * time.Millisecond
			if s.name == "auto-recall (ForPrompt)" {
				limit = 8 * time.Millisecond
			}
			target, ok = fmt.Sprintf("≤ %s and ≥ 10× faster", ms(limit)), met(ratio >= 10 && s.l.P95 <= limit)
			why = "see the plans: go test ./memory -run TestRecallPlansReadNoTableWhole -v"
		}
		t.Add(Row{Metric: fmt.Sprintf("%s p95 @%s", s.name, size), Target: target, Measured: ms(s.l.P95),
			Baseline: ms(s.base.P95) + " " + s.baseName, Ratio: faster(s.base.P95, s.l.P95), Met: ok, Why: why})
	}
}

func addRemember(t *Table, rows int, r RememberResult) {
	size := count(rows)
	// The target is at a million memories; the smaller corpora show the
	// cost.
	target, ok := "— (target at 1M)", (*bool)(nil)
	if rows >= 1_000_000 {
		target, ok = "p50 ≤ 7 ms", met(r.Latency.P50 <= 7*time.Millisecond)
	}
	t.Add(Row{Metric: fmt.Sprintf("remember p50 / p95 @%s (no model review)", size), Target: target,
		Measured: ms(r.Latency.P50) + " / " + ms(r.Latency.P95), Baseline: "—", Ratio: "—", Met: ok,
		Why: "a remember's stages, each timed: docs/scale.md, \"Remembering at a million\""})
	t.Add(Row{Metric: fmt.Sprintf("remember throughput @%s, %d writers", size, r.Writers), Target: "—",
		Measured: fmt.Sprintf("%.0f /s", r.PerSecond), Baseline: "—", Ratio: "—"})
	t.Add(Row{Metric: fmt.Sprintf("write-to-visible: stored memories the next search (another connection) missed, of %d", r.Stored),
		Target: "0", Measured: fmt.Sprint(r.Unseen), Baseline: "—", Ratio: "—", Met: met(r.Unseen == 0),
		Why: "a memory is in every index when its transaction commits; a miss is a ranking bug"})
	if r.Outranked > 0 {
		t.Add(Row{Metric: fmt.Sprintf("write-to-visible: stored memories the next search returned %d others before, all of the very same text (with cues it lacks), of %d", memory.MaxListLimit, r.Stored),
			Target: "—", Measured: fmt.Sprint(r.Outranked), Baseline: "—", Ratio: "—"})
	}
}

func addGoBench(t *Table, g GoBench) {
	if p95, ok := g.Get("BenchmarkSearchToolsP95", "p95-ns"); ok {
		naive, _ := g.Get("BenchmarkSearchToolsP95", "naive-p95-ns")
		d, b := time.Duration(p95), time.Duration(naive)
		t.Add(Row{Metric: "searchTools p95, 2,000 tools (BenchmarkSearchToolsP95)", Target: "≤ 1 ms", Measured: ms(d),
			Baseline: ms(b) + " naive scan", Ratio: faster(b, d), Met: met(d <= time.Millisecond),
			Why: "searchTools belongs to the tools package (issue 15, item 3)"})
	}
	if v, ok := g.Get("BenchmarkRecallForPrompt", "ns/op"); ok {
		base, _ := g.Get("BenchmarkRecallListBaseline", "ns/op")
		t.Add(Row{Metric: "auto-recall, 2,000 memories (BenchmarkRecallForPrompt)", Target: "—", Measured: ms(time.Duration(v)),
			Baseline: ms(time.Duration(base)) + " newest-first list (ListAll)", Ratio: faster(time.Duration(base), time.Duration(v))})
	}
	if v, ok := g.Get("BenchmarkParseTS", "ns/op"); ok {
		base, _ := g.Get("BenchmarkParseTSRegexpBaseline", "ns/op")
		t.Add(Row{Metric: "threads: parse a Slack ts (BenchmarkParseTS)", Target: "—", Measured: fmt.Sprintf("%.0f ns", v),
			Baseline: fmt.Sprintf("%.0f ns regexp", base), Ratio: faster(time.Duration(base), time.Duration(v))})
	}
}

func addRetrieval(t *Table, l *Labelled, r RetrievalResult) {
	n, p := len(l.Queries), 0
	for _, q := range l.Queries {
		if q.Paraphrase {
			p++
		}
	}
	f := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	x := func(v, base float64) string {
		if base == 0 {
			return "—"
		}
		return fmt.Sprintf("%.1f×", v/base)
	}
	corpus := fmt.Sprintf("%d memories, %d questions (%d paraphrases)", len(l.Memories), n, p)
	t.NotMeasured("retrieval recall@8, paraphrases, with cues ("+corpus+")", "≥ 0.8",
		"the corpus's cues were written by hand beside its questions, so a score with them measures the fixture (issue 19); "+
			"cue quality can only be claimed when a model writes the cues from the content alone")
	for _, s := range []struct {
		name string
		s    Scores
	}{{"parent commit's ranking, no cues", r.Parent}, {"current ranking, no cues", r.NoCues},
		{"current ranking, no cues, fake embeddings (plumbing, not quality: the fake's synonyms come from this corpus)", r.Plumbing}} {
		t.Add(Row{Metric: "retrieval (" + corpus + "), " + s.name + ": recall@8 all / direct / paraphrase", Target: "—",
			Measured: f(s.s.Recall) + " / " + f(s.s.DirectRecall) + " / " + f(s.s.ParaphraseRecall),
			Baseline: f(r.Parent.Recall) + " / " + f(r.Parent.DirectRecall) + " / " + f(r.Parent.ParaphraseRecall), Ratio: x(s.s.Recall, r.Parent.Recall)})
		t.Add(Row{Metric: "retrieval, " + s.name + ": MRR all / direct / paraphrase", Target: "—",
			Measured: f(s.s.MRR) + " / " + f(s.s.DirectMRR) + " / " + f(s.s.ParaphraseMRR),
			Baseline: f(r.Parent.MRR) + " / " + f(r.Parent.DirectMRR) + " / " + f(r.Parent.ParaphraseMRR), Ratio: x(s.s.MRR, r.Parent.MRR)})
	}
	rank := func(k int) string {
		if k == 0 {
			return "not recalled"
		}
		return fmt.Sprintf("rank %d", k)
	}
	t.Add(Row{Metric: "buried timezone (Q01, \"what time is it for me?\" in a channel of notes about time): Alice's memory", Target: "rank 1",
		Measured: rank(r.NoCues.Rank["Q01"]) + " (no cues)", Baseline: rank(r.Parent.Rank["Q01"]) + " parent commit", Ratio: "—", Met: met(r.NoCues.Rank["Q01"] == 1)})
}

// Machine describes where the bench ran.
type Machine struct {
	CPUs               int
	CPU, Memory        string
	Postgres, Settings string
	Go                 string
	LoadStart, LoadEnd string
}

// Describe reads the machine's and the server's description.
func Describe(ctx context.Context, server string) (Machine, error) {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), CPU: "?", Memory: "?"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			var kb int
			if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
				m.Memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
	}
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return m, fmt.Errorf("connect: %w", err)
	}
	defer c.Close(ctx)
	if err := c.QueryRow(ctx, "SELECT version()").Scan(&m.Postgres); err != nil {
		return m, err
	}
	var sb, wm, ec, hp string
	if err := c.QueryRow(ctx, "SELECT current_setting('shared_buffers'), current_setting('work_mem'), current_setting('effective_cache_size'), current_setting('huge_pages')").Scan(&sb, &wm, &ec, &hp); err != nil {
		return m, err
	}
	m.Settings = fmt.Sprintf("shared_buffers %s, work_mem %s, effective_cache_size %s, huge_pages %s", sb, wm, ec, hp)
	// Whether the server got them is the kernel's to say (a server on
	// this machine holds them from its start): the figures inside serve
	// depend on it (docs/scale.md, "Huge pages").
	if held, total, ok := hugePagesHeld(); ok {
		m.Settings += fmt.Sprintf("; huge pages held on this machine: %d of %d reserved", held, total)
	}
	if m.LoadStart, err = loadAverage(); err != nil {
		m.LoadStart = "?"
	}
	return m, nil
}

// hugePagesHeld reads how many of the kernel's reserved huge pages are
// taken (mapped or promised to a process) and how many it reserved.
func hugePagesHeld() (held, total int, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, 0, false
	}
	v := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, rest, found := strings.Cut(line, ":"); found && strings.HasPrefix(k, "HugePages_") {
			var n int
			if _, err := fmt.Sscan(rest, &n); err == nil {
				v[k] = n
			}
		}
	}
	total, free, rsvd := v["HugePages_Total"], v["HugePages_Free"], v["HugePages_Rsvd"]
	return total - free + rsvd, total, true
}

func loadAverage() (string, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "", fmt.Errorf("loadavg: %q", b)
	}
	return strings.Join(f[:3], " "), nil
}

// Markdown is RESULTS.md.
func (r *Report) Markdown(commit string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# make bench\n\nRun %s at commit %s; took %s.\n\n", r.Started.UTC().Format("2006-01-02 15:04 UTC"), commit, r.Took.Round(time.Second))
	m := r.Machine
	fmt.Fprintf(&b, "Machine: %d CPUs (%s), %s of memory; %s (%s); %s. Load average %s at the start, %s at the end: the machine is shared, so figures vary by run.\n\n",
		m.CPUs, m.CPU, m.Memory, m.Postgres, m.Settings, m.Go, m.LoadStart, m.LoadEnd)
	b.WriteString(r.Table.Markdown())
	b.WriteString("\n")
	for _, s := range r.Sections {
		b.WriteString(s)
	}
	if miss := r.Table.Misses(); len(miss) > 0 {
		b.WriteString("## Missed targets\n\n")
		for _, s := range miss {
			fmt.Fprintf(&b, "- %s\n", s)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Every target measured here is met.\n\n")
	}
	if un := r.Table.Unmeasured(); len(un) > 0 {
		b.WriteString("## Not measured here\n\n")
		for _, s := range un {
			fmt.Fprintf(&b, "- %s\n", s)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Notes\n\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	b.WriteString(readingNote)
	return b.String()
}

const readingNote = `
## How to read the table

Each row is one measurement, taken in this run beside its baseline. *measured*
is mnemo; *baseline* is the simple approach measured on the same data in the
same run (for recall: ILIKE per query term over the rows the asker may see,
with the same scope filters, newest first; for retrieval: the parent commit's
ranking; for turn overhead: the same turns over an empty database; for the
ack: a bare slack-go client that only acks, against the same fake); *ratio*
compares the two. The serve rows come from the real ` + "`mnemo serve`" + ` (bin/mnemo)
against the fake Slack and a fake model, with synchronous_commit on; turn
overhead is a turn's time minus the model's, one turn at a time. A ✗ marks a missed target, and the
sections above say why. Latencies are per operation, one at a time, after a
warm-up. The corpora (bench/corpus) are synthetic but shaped like a large
workspace: 2,000 people, 420 channels and their threads, DMs, all four scopes,
about 4% archived and 4% with an expiry; the queries are questions people ask,
in channel threads, private channels and DMs, and the recall tool's short
queries (one in ten with a typo). The retrieval corpus is bench/testdata/
retrieval.json (see bench/retrieval_corpus_test.go), loaded without its
hand-written cues. Recall on LoCoMo (public data nobody here wrote: long
conversations with labelled evidence turns) is the quality measure; its
baselines, a textbook BM25 and ts_rank_cd, rank the same rows in the same
run, and its section says how it was loaded.
`
