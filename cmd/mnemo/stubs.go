package main

import (
	"context"
	"io"
)

func cmdEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return usageError{"eval: not yet available"}
}
