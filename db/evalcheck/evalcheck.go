package evalcheck

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/db/evalcheck/internal/evalsql"
)

// Checks runs the evals' queries on one database.
type Checks struct {
	d *db.DB
	q *evalsql.Queries
}

// New returns the checks of d.
func New(d *db.DB) Checks { return Checks{d: d, q: evalsql.New()} }

// TurnsUnsettled counts turns still running, or done but not yet through
// passive learning.
func (c Checks) TurnsUnsettled(ctx context.Context) (int64, error) {
	n, err := c.q.EvalTurnsUnsettled(ctx, c.d.Pool())
	if err != nil {
		return 0, fmt.Errorf("unsettled turns: %w", err)
	}
	return n, nil
}

// ThreadQuery names one thread's memories of a scope and subject type.
type ThreadQuery struct {
	SourceKey, Scope, SubjectType, SubjectID string
	Archived                                 bool
}

// MemoriesInThread returns a thread's memories of one scope and subject
// type, oldest first.
func (c Checks) MemoriesInThread(ctx context.Context, f ThreadQuery) ([]db.Memory, error) {
	ids, err := c.q.EvalMemoriesInThread(ctx, c.d.Pool(), evalsql.EvalMemoriesInThreadParams{SourceKey: f.SourceKey, Scope: f.Scope, SubjectType: f.SubjectType, SubjectID: f.SubjectID, Archived: f.Archived})
	if err != nil {
		return nil, fmt.Errorf("memories in thread: %w", err)
	}
	out := make([]db.Memory, 0, len(ids))
	for _, id := range ids {
		m, err := c.d.Memories().Get(ctx, teamOf(f.SourceKey), id)
		if err != nil {
			return nil, fmt.Errorf("memories in thread: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// ThreadRows is the positive control: how many of the given messages the
// session log holds under sourceKey, and how many memories the thread has.
func (c Checks) ThreadRows(ctx context.Context, sourceKey string, messageTS []string) (messages, memories int64, err error) {
	r, err := c.q.EvalThreadRows(ctx, c.d.Pool(), evalsql.EvalThreadRowsParams{SourceKey: sourceKey, MessageTs: messageTS})
	if err != nil {
		return 0, 0, fmt.Errorf("thread rows: %w", err)
	}
	return r.Messages, r.Memories, nil
}

// teamOf is the team of a source key (slack:<team>:…).
func teamOf(sourceKey string) string {
	if parts := strings.SplitN(sourceKey, ":", 3); len(parts) == 3 {
		return parts[1]
	}
	return ""
}
