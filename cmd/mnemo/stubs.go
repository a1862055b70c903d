package main

import (
	"context"
	"io"
)

func cmdChat(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usageError{"chat: not yet available"}
}

func cmdEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return usageError{"eval: not yet available"}
}
