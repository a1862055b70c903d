package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Feedback owns turn_feedback: the 👍/👎 people give the bot's replies, one
// verdict per person per turn.
type Feedback struct {
	e executor
	q *dbsqlc.Queries
}

// Feedback returns the feedback store.
func (d *DB) Feedback() Feedback { return Feedback{d.pool, d.q} }

// Verdict is what a person thought of a reply.
type Verdict string

const (
	Positive Verdict = "positive"
	Negative Verdict = "negative"
)

// Valid reports whether v is one of the verdicts the table takes.
func (v Verdict) Valid() bool { return v == Positive || v == Negative }

// TurnFeedback is one person's verdict on one turn's reply.
type TurnFeedback struct {
	TurnID int64
	UserID string
	Value  Verdict
	At     time.Time
}

// TurnOfReply finds the turn whose reply is the bot message at ts, from the
// session log. It returns ErrNotFound for a message no turn posted.
func (s Feedback) TurnOfReply(ctx context.Context, team, channel, ts string) (int64, error) {
	id, err := s.q.FeedbackTurnOfReply(ctx, s.e, dbsqlc.FeedbackTurnOfReplyParams{TeamID: team, ChannelID: channel, Ts: ts})
	if err != nil {
		return 0, fmt.Errorf("feedback: turn of reply: %w", mapErr(err))
	}
	return id, nil
}

// Record stores f, replacing the person's earlier verdict on the turn.
func (s Feedback) Record(ctx context.Context, f TurnFeedback) error {
	if !f.Value.Valid() {
		return fmt.Errorf("feedback: verdict %q is neither %s nor %s", f.Value, Positive, Negative)
	}
	err := s.q.FeedbackUpsert(ctx, s.e, dbsqlc.FeedbackUpsertParams{TurnID: f.TurnID, UserID: f.UserID, Value: string(f.Value), At: f.At})
	if err != nil {
		return fmt.Errorf("feedback: record: %w", mapErr(err))
	}
	return nil
}

// Get returns a person's verdict on a turn, or ErrNotFound.
func (s Feedback) Get(ctx context.Context, turnID int64, user string) (TurnFeedback, error) {
	r, err := s.q.FeedbackGet(ctx, s.e, dbsqlc.FeedbackGetParams{TurnID: turnID, UserID: user})
	if err != nil {
		return TurnFeedback{}, fmt.Errorf("feedback: %w", mapErr(err))
	}
	return TurnFeedback{TurnID: r.TurnID, UserID: r.UserID, Value: Verdict(r.Value), At: r.At}, nil
}

// FeedbackCounts are a team's verdicts on the bot's replies.
type FeedbackCounts struct{ Positive, Negative int64 }

// Counts counts a team's current verdicts.
func (s Feedback) Counts(ctx context.Context, team string) (FeedbackCounts, error) {
	r, err := s.q.FeedbackCounts(ctx, s.e, team)
	if err != nil {
		return FeedbackCounts{}, fmt.Errorf("feedback: counts: %w", mapErr(err))
	}
	return FeedbackCounts(r), nil
}
