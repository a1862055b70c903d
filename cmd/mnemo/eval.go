package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-bot/mnemo/evals"
)

func cmdEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	live := fs.Bool("live", false, "run against the configured model provider and grade replies with MNEMO_JUDGE_MODEL")
	pattern := fs.String("run", "", "only scenarios whose name matches this regular expression")
	dir := fs.String("dir", "", "load scenarios from this directory instead of the built-in suite")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := LoadConfig(getenv, Needs{Database: true, Model: *live})
	if err != nil {
		return err
	}
	// The fakes' test databases come from the server DATABASE_URL names.
	if os.Getenv("DATABASE_URL") == "" {
		os.Setenv("DATABASE_URL", cfg.DatabaseURL)
	}
	src := evals.Builtin()
	if *dir != "" {
		src = os.DirFS(*dir)
	}
	scenarios, err := evals.Load(src)
	if err != nil {
		return err
	}
	o := evals.Options{Out: stdout, Live: *live, Start: startForEval}
	if *pattern != "" {
		if o.Pattern, err = regexp.Compile(*pattern); err != nil {
			return usageError{"--run: " + err.Error()}
		}
	}
	if *live {
		o.Model = evals.LiveModel{Provider: cfg.Provider, BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMKey, Model: cfg.Model, JudgeModel: cfg.JudgeModel}
	}
	results := evals.Run(ctx, scenarios, o)
	failed := 0
	for _, r := range results {
		if !r.Pass {
			failed++
		}
	}
	if len(results) == 0 {
		return fmt.Errorf("no scenario matched")
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scenarios failed", failed, len(results))
	}
	return nil
}

// startForEval runs the real serve wiring in this process.
func startForEval(ctx context.Context, env map[string]string, logs io.Writer) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx, []string{"serve"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, logs)
	}()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
		}
	}
}
