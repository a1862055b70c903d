package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
		if tool, err = exec.LookPath("mnemo-eval"); err != nil {
			return fmt.Errorf("eval: the mnemo-eval binary is not next to mnemo nor on PATH; `make build` builds both, or `go install ./cmd/mnemo-eval`")
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

// exitCode is a subprocess's failure, already reported by the subprocess.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
