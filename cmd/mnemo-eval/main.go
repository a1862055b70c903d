// Command mnemo-eval runs mnemo's memory workflow evals: it starts the real
// `mnemo serve` binary against a fake Slack, a scripted (or, with --live, the
// configured) model and a fresh database per scenario, and checks what each
// scenario left behind. It is its own binary so that the fakes it needs are
// never linked into mnemo; `mnemo eval` runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/mnemo-bot/mnemo/evals"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: mnemo eval [--live] [--run PATTERN] [--dir DIR] [--mnemo PATH] [--mutant]

Runs the memory workflow evals against the real mnemo binary.
  --live        run against the configured provider (MNEMO_LLM_PROVIDER, MNEMO_MODEL,
                MNEMO_LLM_API_KEY, MNEMO_LLM_BASE_URL) and grade with MNEMO_JUDGE_MODEL
  --run P       only scenarios whose name matches the regular expression P
  --dir DIR     load scenarios from DIR instead of the built-in suite
  --mnemo PATH  the mnemo binary to test (default: mnemo next to this binary, then PATH)
  --mutant      the binary keys every message as its own thread on purpose (make
                eval-mutation): succeed only if every thread-dependent scenario fails
DATABASE_URL names the PostgreSQL server each scenario gets a fresh database on.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	live := fs.Bool("live", false, "")
	pattern := fs.String("run", "", "")
	dir := fs.String("dir", "", "")
	bin := fs.String("mnemo", "", "")
	mutant := fs.Bool("mutant", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "mnemo eval: %v\n\n%s", err, usage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mnemo eval: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return 2
	}
	if err := eval(ctx, *live, *mutant, *pattern, *dir, *bin, getenv, stdout); err != nil {
		fmt.Fprintf(stderr, "mnemo eval: %v\n", err)
		return 1
	}
	return 0
}

func eval(ctx context.Context, live, mutant bool, pattern, dir, bin string, getenv func(string) string, stdout io.Writer) error {
	if getenv("DATABASE_URL") == "" {
		return fmt.Errorf("DATABASE_URL is not set: the evals create a database per scenario on that server")
	}
	// The fakes' test databases come from the server DATABASE_URL names.
	if os.Getenv("DATABASE_URL") == "" {
		os.Setenv("DATABASE_URL", getenv("DATABASE_URL"))
	}
	mnemo, err := findMnemo(bin)
	if err != nil {
		return err
	}
	src := evals.Builtin()
	if dir != "" {
		src = os.DirFS(dir)
	}
	scenarios, err := evals.Load(src)
	if err != nil {
		return err
	}
	o := evals.Options{Out: stdout, Live: live, Start: binaryStarter(mnemo, getenv("PATH"))}
	if pattern != "" {
		if o.Pattern, err = regexp.Compile(pattern); err != nil {
			return fmt.Errorf("--run: %w", err)
		}
	}
	if live {
		if o.Model, err = liveModel(getenv); err != nil {
			return err
		}
	}
	results := evals.Run(ctx, scenarios, o)
	if mutant {
		return mutationVerdict(scenarios, results, stdout)
	}
	failed := 0
	for _, r := range results {
		if !r.Pass {
			failed++
		}
	}
	switch {
	case len(results) == 0:
		return fmt.Errorf("no scenario matched")
	case failed > 0:
		return fmt.Errorf("%d of %d scenarios failed", failed, len(results))
	}
	return nil
}

// mutationVerdict is the mutation check: against a binary that keys every
// message as its own thread, every thread-dependent scenario must fail. One
// that passes has assertions that don't depend on the thread key.
func mutationVerdict(scenarios []evals.Scenario, results []evals.Result, stdout io.Writer) error {
	dependent := map[string]bool{}
	for _, s := range scenarios {
		dependent[s.Name] = s.ThreadDependent()
	}
	var caught, passed []string
	for _, r := range results {
		switch {
		case !dependent[r.Name]:
		case r.Pass:
			passed = append(passed, r.Name)
		default:
			why := "failed"
			if len(r.Reasons) > 0 {
				why = r.Reasons[0]
			}
			caught = append(caught, fmt.Sprintf("  - %s: %s", r.Name, why))
		}
	}
	switch {
	case len(passed) > 0:
		return fmt.Errorf("mutation check: %d thread-dependent scenarios passed against per-message thread keys, so their assertions don't depend on the thread: %s", len(passed), strings.Join(passed, ", "))
	case len(caught) == 0:
		return fmt.Errorf("mutation check: no thread-dependent scenario ran, so the check proves nothing")
	}
	fmt.Fprintf(stdout, "mutation check: all %d thread-dependent scenarios failed against per-message thread keys, as required:\n%s\n", len(caught), strings.Join(caught, "\n"))
	return nil
}

// liveModel reads the provider settings `mnemo serve` would use.
func liveModel(getenv func(string) string) (evals.LiveModel, error) {
	m := evals.LiveModel{
		Provider: strings.ToLower(getenv("MNEMO_LLM_PROVIDER")), BaseURL: getenv("MNEMO_LLM_BASE_URL"),
		APIKey: getenv("MNEMO_LLM_API_KEY"), Model: getenv("MNEMO_MODEL"), JudgeModel: getenv("MNEMO_JUDGE_MODEL"),
	}
	if m.APIKey == "" {
		m.APIKey = getenv(strings.ToUpper(m.Provider) + "_API_KEY")
	}
	var missing []string
	if m.Provider != "anthropic" && m.Provider != "openai" {
		missing = append(missing, "MNEMO_LLM_PROVIDER (anthropic or openai)")
	}
	if m.Model == "" {
		missing = append(missing, "MNEMO_MODEL")
	}
	if m.APIKey == "" {
		missing = append(missing, "MNEMO_LLM_API_KEY")
	}
	if len(missing) > 0 {
		return m, fmt.Errorf("--live needs %s", strings.Join(missing, ", "))
	}
	return m, nil
}

// findMnemo locates the binary under test: the flag, then mnemo next to
// this executable, then PATH.
func findMnemo(flagPath string) (string, error) {
	if flagPath != "" {
		return flagPath, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "mnemo")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("mnemo"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the mnemo binary was not found next to mnemo-eval or on PATH; pass --mnemo PATH")
}

// binaryStarter starts `mnemo serve` as a process per scenario, with only
// the scenario's environment (and PATH), its stderr into the scenario's log.
func binaryStarter(mnemo, path string) evals.StartFunc {
	return func(ctx context.Context, env map[string]string, logs io.Writer) func() {
		cmd := exec.Command(mnemo, "serve")
		cmd.Env = []string{"PATH=" + path}
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stdout, cmd.Stderr = io.Discard, logs
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(logs, "mnemo-eval: start %s: %v\n", mnemo, err)
			return func() {}
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		return func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		}
	}
}
