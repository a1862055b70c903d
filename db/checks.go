package db

import (
	"context"
	"fmt"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Checks are the read-only queries the evals use to check what a scenario
// left behind.
type Checks struct {
	e executor
	q *dbsqlc.Queries
}

// TurnsUnsettled counts turns still running, or done but not yet through
// passive learning.
func (s Checks) TurnsUnsettled(ctx context.Context) (int64, error) {
	n, err := s.q.EvalTurnsUnsettled(ctx, s.e)
	if err != nil {
		return 0, fmt.Errorf("unsettled turns: %w", mapErr(err))
	}
	return n, nil
}

// ThreadQuery names one thread's memories of a scope and subject type.
type ThreadQuery struct {
	SourceKey, Scope, SubjectType, SubjectID string
	Archived                                 bool
}

// MemoriesInThread returns a thread's memories of one scope and subject type.
func (s Checks) MemoriesInThread(ctx context.Context, f ThreadQuery) ([]Memory, error) {
	rows, err := s.q.EvalMemoriesInThread(ctx, s.e, dbsqlc.EvalMemoriesInThreadParams{SourceKey: f.SourceKey, Scope: f.Scope, SubjectType: f.SubjectType, SubjectID: f.SubjectID, Archived: f.Archived})
	if err != nil {
		return nil, fmt.Errorf("memories in thread: %w", mapErr(err))
	}
	return memoriesFromRows(rows), nil
}

// ThreadRows is the positive control: how many of the given messages the
// session log holds under sourceKey, and how many memories the thread has.
func (s Checks) ThreadRows(ctx context.Context, sourceKey string, messageTS []string) (messages, memories int64, err error) {
	r, err := s.q.EvalThreadRows(ctx, s.e, dbsqlc.EvalThreadRowsParams{SourceKey: sourceKey, MessageTs: messageTS})
	if err != nil {
		return 0, 0, fmt.Errorf("thread rows: %w", mapErr(err))
	}
	return r.Messages, r.Memories, nil
}
