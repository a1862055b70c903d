package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// cmdEval runs the evals, which live in their own binary, mnemo-eval, so
// that the fakes they need are never linked into mnemo. It looks for
// mnemo-eval next to this binary, then on PATH, and tells it to test this
// very binary.
func cmdEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	tool := filepath.Join(filepath.Dir(self), "mnemo-eval")
	if _, err := os.Stat(tool); err != nil {
		tool, err = exec.LookPath("mnemo-eval")
		if err != nil && asksForHelp(args) {
			fmt.Fprint(stdout, evalUsage)
			return nil
		}
		if err != nil {
			return fmt.Errorf("eval: %s", evalMissing)
		}
	}
	// mnemo-eval prints the full usage itself; the configuration is
	// checked only for a run.
	if !asksForHelp(args) {
		if _, err := LoadConfig(getenv, "eval"); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, tool, append([]string{"--mnemo", self}, args...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = os.Environ()
	if u := getenv("DATABASE_URL"); u != "" {
		cmd.Env = append(cmd.Env, "DATABASE_URL="+u)
	}
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitCode(exit.ExitCode())
	}
	return err
}

const evalMissing = "the mnemo-eval binary is not next to mnemo nor on PATH; `make build` builds both, or `go install ./cmd/mnemo-eval`"

const evalUsage = `usage: mnemo eval [--live] [--run PATTERN] [--dir DIR]

Runs the memory workflow evals against this mnemo binary, through mnemo-eval.
Its full help needs mnemo-eval: ` + evalMissing + `.
`

// asksForHelp reports whether mnemo-eval would read args as asking for
// help: -h, -help or --help among its flags, not as a flag's value.
func asksForHelp(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := strings.TrimLeft(args[i], "-"); {
		case !strings.HasPrefix(args[i], "-") || args[i] == "--":
			return false
		case a == "h" || a == "help":
			return true
		case a == "run" || a == "dir" || a == "mnemo":
			i++ // their value follows
		}
	}
	return false
}

// exitCode is a subprocess's failure, already reported by the subprocess.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
