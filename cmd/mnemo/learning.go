package main

import (
	"context"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/learn"
)

// learning is the passive-learning queue as serve and chat run it.
type learning struct {
	queue *learn.Queue
}

func startLearning(ctx context.Context, c *core, log zerolog.Logger, logOut io.Writer) (*learning, error) {
	learner := learn.NewLearner(c.pool, c.memory, c.model, log)
	q, err := learn.NewQueue(c.pool, learner, learn.QueueOptions{Workers: 2, LogOutput: redactWriter{logOut}, FetchPollInterval: time.Second})
	if err != nil {
		return nil, err
	}
	if err := q.Start(ctx); err != nil {
		return nil, err
	}
	return &learning{queue: q}, nil
}

func (l *learning) Stop() { l.queue.Stop() }

// AfterTurn enqueues learning in the turn's finishing transaction.
func (l *learning) AfterTurn(ctx context.Context, tx pgx.Tx, turnID int64) error {
	return l.queue.EnqueueTx(ctx, tx, turnID)
}
