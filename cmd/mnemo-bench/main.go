// Command mnemo-bench is the bench command of `make bench`: it seeds the
// corpora, measures recall, remember, prompt overhead and retrieval beside
// their baselines, reads the Go benchmarks' output, prints one table and
// writes it, with the machine's description, to bench/RESULTS.md. It is its
// own binary so the fakes it uses are never linked into mnemo.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mnemo-bot/mnemo/bench"
	"github.com/mnemo-bot/mnemo/llm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: mnemo-bench [--sizes N,N,…] [--million] [--queries N] [--remember N] [--gobench FILE] [--mnemo FILE] [--out FILE]
       mnemo-bench --only locomo [--locomo-shapes channel,personal,noisy] [--locomo-noise N] [--locomo-keep] [--out FILE]
       mnemo-bench --only serve [--sizes N] [--turns N] [--mnemo FILE]
       mnemo-bench --only embed [--locomo-shapes channel,personal] [--out FILE]
       mnemo-bench --only vector [--vector-rows N] [--vector-dims N,N] [--vector-queries N] [--vector-keep] [--remember N] [--out FILE]

Seeds corpora on the PostgreSQL server DATABASE_URL names (databases
mnemo_bench_*, dropped afterwards), measures, prints one table and writes it
to --out. Recall on LoCoMo reads its five development conversations from
the directory LOCOMO_DIR names (see README, "Reading make bench").
  --sizes      corpus sizes for recall (default 10000,100000)
  --million    add a corpus of a million memories (make bench MILLION=1): the
               recall, remember and serve targets are at a million
  --queries    recall queries per size (default 500)
  --remember   remembers at the largest size, one at a time and as many concurrently (default 300)
  --writers    concurrent writers for remember's throughput (default 4)
  --gobench    output of go test -bench to include (searchTools, memory, threads)
  --retrieval  the labelled corpus (default bench/testdata/retrieval.json)
  --mnemo      the mnemo binary whose serve is measured: turn overhead, 50
               mentions at once, RSS (default bin/mnemo; "" skips it)
  --turns      turns timed one at a time in each serve run (default 300)
  --logs       a directory to keep each serve run's log in (default: not kept)
  --out        where to write the results (default bench/RESULTS.md; with
               --only, nothing is written unless --out is given)
  --only       embed: recall on LoCoMo's development split through the
               embedding endpoint serve would use (make eval-embed):
               MNEMO_EMBEDDING_MODEL, MNEMO_EMBEDDING_BASE_URL (else
               MNEMO_LLM_BASE_URL, else OpenAI's), and the key
               MNEMO_EMBEDDING_API_KEY (else the model's key for its own
               host, else OPENAI_API_KEY for OpenAI's); prints recall by
               category, lexical beside hybrid. Refuses, and exits 2,
               without a model or LOCOMO_DIR, and exits 1 when the
               endpoint does not answer;
               vector: recall by meaning (make bench-vector): HNSW build
               time and bytes, the vector leg's recall@10 against an exact
               scan, hybrid auto-recall, remember with the embedding job on,
               and the vector leg's visibility, over --vector-rows memories;
               writes its section of --out (when given) and leaves the rest;
               locomo: only recall on LoCoMo, printed shape by shape (seconds
               for channel and personal, about a minute more for noisy);
               recall: only recall over the corpora of --sizes, leaving the
               largest one's database in place for tuning by hand;
               serve: only the serve run (turn overhead, the 50 mentions,
               RSS) over a corpus of the last --sizes size; writes nothing
  --vector-rows     memories of the vector bench (default 100000; make
               bench-vector MILLION=1 runs 1000000)
  --vector-dims     its embedding dimensions (default 512,768)
  --vector-queries  its questions per dimension (default 300)
  --vector-keep     leave its database (mnemo_bench_vector) in place after
               the run, with the last dimension's index, to look at plans
  --locomo-shapes  the LoCoMo shapes to run (default channel,personal,noisy)
  --locomo-noise   unrelated memories in each channel of the noisy shape
               (default 100000)
  --locomo-keep    leave the LoCoMo databases (mnemo_bench_locomo_<shape>) in
               place after the run, to look at a ranking by hand
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mnemo-bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sizes := fs.String("sizes", "10000,100000", "")
	million := fs.Bool("million", false, "")
	queries := fs.Int("queries", 500, "")
	remember := fs.Int("remember", 300, "")
	writers := fs.Int("writers", 4, "")
	gobench := fs.String("gobench", "", "")
	retrieval := fs.String("retrieval", "bench/testdata/retrieval.json", "")
	out := fs.String("out", "bench/RESULTS.md", "")
	mnemo := fs.String("mnemo", "bin/mnemo", "")
	turns := fs.Int("turns", 300, "")
	logDir := fs.String("logs", "", "")
	only := fs.String("only", "", "")
	shapes := fs.String("locomo-shapes", strings.Join(bench.LoCoMoShapes, ","), "")
	noise := fs.Int("locomo-noise", 100000, "")
	keep := fs.Bool("locomo-keep", false, "")
	vectorRows := fs.Int("vector-rows", 100_000, "")
	vectorDims := fs.String("vector-dims", "512,768", "")
	vectorQueries := fs.Int("vector-queries", 300, "")
	vectorKeep := fs.Bool("vector-keep", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "mnemo-bench: %v\n\n%s", err, usage)
		return 2
	}
	server := getenv("DATABASE_URL")
	if server == "" {
		fmt.Fprintf(stderr, "mnemo-bench: DATABASE_URL is not set\n\n%s", usage)
		return 2
	}
	var locomoShapes []string
	for _, s := range strings.Split(*shapes, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(bench.LoCoMoShapes, s) {
			fmt.Fprintf(stderr, "mnemo-bench: unknown LoCoMo shape %q (want some of %s)\n", s, strings.Join(bench.LoCoMoShapes, ","))
			return 2
		}
		locomoShapes = append(locomoShapes, s)
	}
	if *noise < 0 {
		fmt.Fprintf(stderr, "mnemo-bench: bad --locomo-noise %d\n", *noise)
		return 2
	}
	cfg := bench.Config{Server: server, Queries: *queries, Remember: *remember, Writers: *writers,
		GoBench: *gobench, Retrieval: *retrieval, Mnemo: *mnemo, ServeTurns: *turns, LogDir: *logDir, Log: stderr,
		LoCoMoDir: getenv("LOCOMO_DIR"), LoCoMoShapes: locomoShapes, LoCoMoNoise: *noise, LoCoMoKeep: *keep}
	switch *only {
	case "":
	case "serve":
		return onlyServe(ctx, cfg, *sizes, stdout, stderr)
	case "locomo":
		outSet := false
		fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
		if !outSet {
			*out = ""
		}
		return onlyLoCoMo(ctx, cfg, *out, stdout, stderr)
	case "embed":
		outSet := false
		fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
		if !outSet {
			*out = ""
		}
		shapesSet := false
		fs.Visit(func(f *flag.Flag) { shapesSet = shapesSet || f.Name == "locomo-shapes" })
		if !shapesSet {
			locomoShapes = bench.EmbedShapes
		}
		return onlyEmbed(ctx, server, locomoShapes, getenv, *out, stdout, stderr)
	case "vector":
		outSet := false
		fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
		if !outSet {
			*out = ""
		}
		rememberSet := false
		fs.Visit(func(f *flag.Flag) { rememberSet = rememberSet || f.Name == "remember" })
		o := bench.VectorOptions{Server: server, Rows: *vectorRows, Queries: *vectorQueries, Keep: *vectorKeep,
			Log: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }}
		if rememberSet {
			o.Remember = *remember
		}
		for _, s := range strings.Split(*vectorDims, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n <= 0 || n > 4000 {
				fmt.Fprintf(stderr, "mnemo-bench: bad dimension %q (1 to 4000)\n", s)
				return 2
			}
			o.Dims = append(o.Dims, n)
		}
		if *vectorRows <= 0 || *vectorQueries <= 0 {
			fmt.Fprintf(stderr, "mnemo-bench: --vector-rows and --vector-queries must be positive\n")
			return 2
		}
		return onlyVector(ctx, o, *out, stdout, stderr)
	case "recall":
		cfg.RecallOnly = true
		outSet := false
		fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
		if !outSet {
			*out = ""
		}
	default:
		fmt.Fprintf(stderr, "mnemo-bench: --only %q: only locomo, recall, serve or vector can run alone\n", *only)
		return 2
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "mnemo-bench: bad size %q\n", s)
			return 2
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	if *million && !slices.Contains(cfg.Sizes, 1_000_000) {
		cfg.Sizes = append(cfg.Sizes, 1_000_000)
	}
	report, err := bench.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, report.Table.Markdown())
	for _, s := range report.Sections {
		fmt.Fprintln(stdout, s)
	}
	for _, m := range report.Table.Misses() {
		fmt.Fprintf(stdout, "missed: %s\n", m)
	}
	if *out == "" {
		return 0
	}
	// The vector bench's section is make bench-vector's: kept as it was.
	old, _ := os.ReadFile(*out)
	if err := os.WriteFile(*out, []byte(bench.WithVectorSection(report.Markdown(commit()), string(old), "")), 0o644); err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "wrote %s\n", *out)
	return 0
}

// onlyServe runs the serve run alone, over a corpus of the last size.
func onlyServe(ctx context.Context, cfg bench.Config, sizes string, stdout, stderr io.Writer) int {
	list := strings.Split(sizes, ",")
	n, err := strconv.Atoi(strings.TrimSpace(list[len(list)-1]))
	if err != nil || n <= 0 {
		fmt.Fprintf(stderr, "mnemo-bench: bad size %q\n", list[len(list)-1])
		return 2
	}
	cfg.Sizes = []int{n}
	report, err := bench.RunServe(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, report.Table.Markdown())
	for _, note := range report.Notes {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintf(stdout, "load average at the end: %s\n", report.Machine.LoadEnd)
	return 0
}

// onlyEmbed runs make eval-embed: LoCoMo's development split through the
// embedding endpoint that serve's variables name.
func onlyEmbed(ctx context.Context, server string, shapes []string, getenv func(string) string, out string, stdout, stderr io.Writer) int {
	model := getenv("MNEMO_EMBEDDING_MODEL")
	if model == "" {
		fmt.Fprintln(stderr, "mnemo-bench: no embedding endpoint is configured (MNEMO_EMBEDDING_MODEL is not set), so recall by meaning was not measured.\n"+
			"Set the variables serve reads: MNEMO_EMBEDDING_MODEL, MNEMO_EMBEDDING_BASE_URL (else MNEMO_LLM_BASE_URL, else OpenAI's API) and MNEMO_EMBEDDING_API_KEY (else the model's key for its own host, else OPENAI_API_KEY for OpenAI's API).")
		return 2
	}
	base := getenv("MNEMO_EMBEDDING_BASE_URL")
	if base == "" {
		base = getenv("MNEMO_LLM_BASE_URL")
	}
	// The key as serve chooses it, near enough: the embeddings' own, else
	// the model's only when no other embeddings host is named, else
	// OpenAI's for OpenAI's API. The model's key never goes to another host.
	key := getenv("MNEMO_EMBEDDING_API_KEY")
	if key == "" {
		switch {
		case getenv("MNEMO_EMBEDDING_BASE_URL") == "" && getenv("MNEMO_LLM_BASE_URL") != "":
			key = getenv("MNEMO_LLM_API_KEY") // the model's own server
		case base == "" && getenv("MNEMO_LLM_PROVIDER") == "openai":
			key = cmp.Or(getenv("MNEMO_LLM_API_KEY"), getenv("OPENAI_API_KEY"))
		case base == "":
			key = getenv("OPENAI_API_KEY") // OpenAI's API, for another provider
		}
	}
	where := "OpenAI's API"
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			fmt.Fprintf(stderr, "mnemo-bench: the embeddings base URL is not an http(s) URL\n")
			return 2
		}
		where = u.Redacted()
	}
	emb := llm.NewEmbedder(key, base, model)
	// One request first: an endpoint that does not answer is said in a
	// line, not after the databases are loaded.
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	vecs, err := emb.Embed(pctx, []string{"Which city is the new office in?"})
	cancel()
	if err == nil && (len(vecs) != 1 || len(vecs[0]) == 0) {
		err = errors.New("no vector in the answer")
	}
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: the embedding endpoint (%s at %s) did not answer, so recall by meaning was not measured: %v\n", model, where, err)
		return 1
	}
	fmt.Fprintf(stderr, "embedding endpoint: %s at %s, %d dimensions\n", model, where, len(vecs[0]))
	dir := getenv("LOCOMO_DIR")
	if dir == "" {
		fmt.Fprintf(stderr, "mnemo-bench: LOCOMO_DIR is not set: %s\n", bench.LoCoMoHowTo)
		return 2
	}
	convs, err := bench.ReadLoCoMo(dir)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	res, err := bench.RunEmbed(ctx, convs, bench.EmbedOptions{Server: server, Embedder: emb, Model: model, Shapes: shapes,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }})
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	md := res.Markdown()
	fmt.Fprint(stdout, md)
	if out != "" {
		if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
			fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "wrote %s\n", out)
	}
	return 0
}

// onlyVector runs the vector bench, prints its section and writes it into
// out, in place of the one there, leaving the rest of the file as it is.
func onlyVector(ctx context.Context, o bench.VectorOptions, out string, stdout, stderr io.Writer) int {
	res, err := bench.RunVector(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	section := res.Markdown(commit())
	fmt.Fprint(stdout, section)
	if out == "" {
		return 0
	}
	old, err := os.ReadFile(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	if err := os.WriteFile(out, []byte(bench.WithVectorSection(string(old), "", section)), 0o644); err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "wrote %s\n", out)
	return 0
}

// onlyLoCoMo runs recall on LoCoMo alone, for tuning a ranking: each
// shape's line is printed as soon as it is scored, the quick shapes first,
// then every shape's table.
func onlyLoCoMo(ctx context.Context, cfg bench.Config, out string, stdout, stderr io.Writer) int {
	if cfg.LoCoMoDir == "" {
		fmt.Fprintf(stderr, "mnemo-bench: LOCOMO_DIR is not set: %s\n", bench.LoCoMoHowTo)
		return 2
	}
	convs, err := bench.ReadLoCoMo(cfg.LoCoMoDir)
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, bench.SummaryHeader)
	res, err := bench.RunLoCoMo(ctx, convs, bench.LoCoMoOptions{
		Server: cfg.Server, Shapes: cfg.LoCoMoShapes, Noise: cfg.LoCoMoNoise, Keep: cfg.LoCoMoKeep,
		Done: func(s bench.ShapeResult) { fmt.Fprint(stdout, bench.SummaryRow(s, cfg.LoCoMoNoise)) },
		Log:  func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
		return 1
	}
	md := res.Markdown(cfg.LoCoMoNoise)
	fmt.Fprintf(stdout, "\n%s", md)
	if out != "" {
		if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
			fmt.Fprintf(stderr, "mnemo-bench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "wrote %s\n", out)
	}
	return 0
}

func commit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
