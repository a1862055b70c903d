package main

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/ops"
)

// learningWorkers is how many learning jobs a process runs at once.
const learningWorkers = 2

// startLearning starts the passive-learning queue as chat runs it, on a
// River client of its own (serve shares the inbox's).
func startLearning(ctx context.Context, c *core, log zerolog.Logger, logOut io.Writer, onResult func(learn.Result, error)) (*learn.Queue, error) {
	learner := learn.NewLearner(c.db, c.memory, c.model, log)
	q, err := learn.NewQueue(c.db, learner, learn.QueueOptions{Workers: learningWorkers, LogOutput: redactWriter{logOut}, FetchPollInterval: time.Second, OnResult: onResult})
	if err != nil {
		return nil, err
	}
	if err := q.Start(ctx); err != nil {
		return nil, err
	}
	return q, nil
}

// learned counts passive learning's memory writes by outcome.
func learned(m *ops.Metrics) func(learn.Result, error) {
	return func(res learn.Result, err error) {
		if err != nil {
			m.MemoryWritten("passive", "error")
			return
		}
		for _, d := range res.Decisions {
			switch {
			case d.Store && strings.HasPrefix(d.Reason, "already remembered"):
				m.MemoryWritten("passive", "duplicate")
			case d.Store:
				m.MemoryWritten("passive", "stored")
			default:
				m.MemoryWritten("passive", "rejected")
			}
		}
	}
}
