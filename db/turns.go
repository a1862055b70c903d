package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
	"github.com/mnemo-bot/mnemo/provenance"
)

// TurnStatus is where a turn is in its life.
type TurnStatus string

const (
	TurnRunning TurnStatus = "running"
	TurnDone    TurnStatus = "done"
	TurnFailed  TurnStatus = "failed"
)

// ErrTurnClaimed is returned by Turns.Claim when the post's turn was already
// claimed: the same post delivered twice, or by another replica.
var ErrTurnClaimed = fmt.Errorf("turn already claimed")

// Turn is one human post the bot answers.
type Turn struct {
	ID              int64
	Place           provenance.Place
	MessageTS       string
	ActorID         string
	Status          TurnStatus
	UsedMemoryWrite bool
	CreatedAt       time.Time
	FinishedAt      *time.Time
}

// TurnStart names the post a turn answers.
type TurnStart struct {
	Place     provenance.Place
	MessageTS string
	ActorID   string
}

// Turns owns the turns and turn_learning tables.
type Turns struct {
	e executor
	q *dbsqlc.Queries
}

// Claim records the turn for one post, once: a second claim of the same post
// gets ErrTurnClaimed.
func (s Turns) Claim(ctx context.Context, t TurnStart) (int64, error) {
	row, err := s.q.TurnClaim(ctx, s.e, dbsqlc.TurnClaimParams{
		TeamID: t.Place.Team, ChannelID: t.Place.Channel, MessageTs: t.MessageTS,
		SourceKey: t.Place.SourceKey, ActorID: t.ActorID, Visibility: string(t.Place.Visibility),
	})
	if err = mapErr(err); err == ErrNotFound {
		return 0, ErrTurnClaimed
	}
	if err != nil {
		return 0, fmt.Errorf("claim turn: %w", err)
	}
	return row.ID, nil
}

// Finish records a turn's outcome.
func (s Turns) Finish(ctx context.Context, id int64, status TurnStatus, usedMemoryWrite bool) error {
	if err := s.q.TurnFinish(ctx, s.e, dbsqlc.TurnFinishParams{ID: id, Status: string(status), UsedMemoryWrite: usedMemoryWrite}); err != nil {
		return fmt.Errorf("finish turn %d: %w", id, mapErr(err))
	}
	return nil
}

// Get returns one turn.
func (s Turns) Get(ctx context.Context, id int64) (Turn, error) {
	r, err := s.q.TurnGetByID(ctx, s.e, id)
	if err != nil {
		return Turn{}, fmt.Errorf("turn %d: %w", id, mapErr(err))
	}
	return Turn{
		ID: r.ID, MessageTS: r.MessageTs, ActorID: r.ActorID, Status: TurnStatus(r.Status),
		UsedMemoryWrite: r.UsedMemoryWrite, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt,
		Place: provenance.Place{Team: r.TeamID, Channel: r.ChannelID, SourceKey: r.SourceKey, Visibility: provenance.Visibility(r.Visibility)},
	}, nil
}

// FailStale marks failed the turns still running since before, which a
// process that died left behind.
func (s Turns) FailStale(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.TurnFailStale(ctx, s.e, before)
	if err != nil {
		return 0, fmt.Errorf("fail stale turns: %w", mapErr(err))
	}
	return n, nil
}

// Learned reports whether a turn's passive learning has decided.
func (s Turns) Learned(ctx context.Context, id int64) (bool, error) {
	_, err := s.q.TurnLearningGet(ctx, s.e, id)
	switch err = mapErr(err); err {
	case nil:
		return true, nil
	case ErrNotFound:
		return false, nil
	}
	return false, fmt.Errorf("turn learning %d: %w", id, err)
}

// RecordLearning records that a turn's learning decided; false means it
// already had.
func (s Turns) RecordLearning(ctx context.Context, id int64, stored, dropped int) (bool, error) {
	n, err := s.q.TurnLearningRecord(ctx, s.e, dbsqlc.TurnLearningRecordParams{TurnID: id, Stored: int32(stored), Dropped: int32(dropped)})
	if err != nil {
		return false, fmt.Errorf("record learning %d: %w", id, mapErr(err))
	}
	return n > 0, nil
}
