package main

import (
	"context"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/learn"
)

// startLearning starts the passive-learning queue as serve and chat run it.
func startLearning(ctx context.Context, c *core, log zerolog.Logger, logOut io.Writer) (*learn.Queue, error) {
	learner := learn.NewLearner(c.db, c.memory, c.model, log)
	q, err := learn.NewQueue(c.db, learner, learn.QueueOptions{Workers: 2, LogOutput: redactWriter{logOut}, FetchPollInterval: time.Second})
	if err != nil {
		return nil, err
	}
	if err := q.Start(ctx); err != nil {
		return nil, err
	}
	return q, nil
}
