package main

import (
	"context"
	"io"

	"github.com/rs/zerolog"
)

type learning struct{}

func startLearning(ctx context.Context, c *core, log zerolog.Logger) (*learning, error) {
	return &learning{}, nil
}
func (l *learning) Stop()                                                             {}
func (l *learning) AfterTurn(ctx context.Context, turnID int64, usedWrite bool) error { return nil }

func cmdChat(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usageError{"chat: not yet available"}
}
func cmdEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return usageError{"eval: not yet available"}
}
