package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Usage owns model_usage, turn_steps and turn_recalls: what each turn's
// model calls cost, and what the turn did, for accounting, budgets and
// `mnemo turns show`. None of them holds message text.
type Usage struct {
	e executor
	q *dbsqlc.Queries
}

// Usage returns the usage store.
func (d *DB) Usage() Usage { return Usage{d.pool, d.q} }

// ModelCall is one model call's usage, for the turn it was made for.
type ModelCall struct {
	TurnID                                  int64
	Team, Person, Channel                   string
	Provider, Model                         string
	InputTokens, OutputTokens, CachedTokens int64
	Duration                                time.Duration
	FinishReason                            string
	At                                      time.Time
}

// Record stores one model call's usage.
func (s Usage) Record(ctx context.Context, c ModelCall) error {
	err := s.q.UsageRecord(ctx, s.e, dbsqlc.UsageRecordParams{
		TurnID: c.TurnID, TeamID: c.Team, PersonID: c.Person, ChannelID: c.Channel, Provider: c.Provider, Model: c.Model,
		InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, CachedTokens: c.CachedTokens,
		DurationMs: c.Duration.Milliseconds(), FinishReason: c.FinishReason, At: c.At,
	})
	if err != nil {
		return fmt.Errorf("record usage of turn %d: %w", c.TurnID, mapErr(err))
	}
	return nil
}

// Spent is what budgets are checked against.
type Spent struct {
	// PersonTokens and ChannelTokens are input plus output tokens since the
	// day began; TurnCalls counts the turn's model calls.
	PersonTokens, ChannelTokens, TurnCalls int64
}

// Spent sums the person's and the channel's tokens since since, and counts
// the turn's model calls, across every replica's rows.
func (s Usage) Spent(ctx context.Context, team, person, channel string, turnID int64, since time.Time) (Spent, error) {
	r, err := s.q.UsageSpent(ctx, s.e, dbsqlc.UsageSpentParams{TeamID: team, PersonID: person, ChannelID: channel, TurnID: turnID, Since: since})
	if err != nil {
		return Spent{}, fmt.Errorf("usage spent: %w", mapErr(err))
	}
	return Spent{PersonTokens: r.PersonTokens, ChannelTokens: r.ChannelTokens, TurnCalls: r.TurnCalls}, nil
}

// Tokens is a sum of usage for one model.
type Tokens struct {
	Model                                   string
	InputTokens, OutputTokens, CachedTokens int64
	Calls                                   int64
}

// DayUsage is one UTC day's usage of one model.
type DayUsage struct {
	Day time.Time
	Tokens
}

// ByDay returns usage per UTC day and model since since, newest first: the
// person's, or the whole team's when person is "".
func (s Usage) ByDay(ctx context.Context, team, person string, since time.Time) ([]DayUsage, error) {
	rows, err := s.q.UsageByDay(ctx, s.e, dbsqlc.UsageByDayParams{TeamID: team, PersonID: person, Since: since})
	if err != nil {
		return nil, fmt.Errorf("usage by day: %w", mapErr(err))
	}
	out := make([]DayUsage, 0, len(rows))
	for _, r := range rows {
		out = append(out, DayUsage{Day: r.Day.Time, Tokens: Tokens{Model: r.Model, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedTokens: r.CachedTokens, Calls: r.Calls}})
	}
	return out, nil
}

// KeyUsage is the usage of one channel or person with one model.
type KeyUsage struct {
	Key string
	Tokens
}

// TopChannels returns the channels that used the most tokens since since,
// per model, at most limit rows.
func (s Usage) TopChannels(ctx context.Context, team string, since time.Time, limit int) ([]KeyUsage, error) {
	rows, err := s.q.UsageTopChannels(ctx, s.e, dbsqlc.UsageTopChannelsParams{TeamID: team, Since: since, MaxRows: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("usage top channels: %w", mapErr(err))
	}
	out := make([]KeyUsage, 0, len(rows))
	for _, r := range rows {
		out = append(out, KeyUsage{Key: r.ChannelID, Tokens: Tokens{Model: r.Model, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}})
	}
	return out, nil
}

// TopPeople returns the people who used the most tokens since since, per
// model, at most limit rows. Erased people are not among them.
func (s Usage) TopPeople(ctx context.Context, team string, since time.Time, limit int) ([]KeyUsage, error) {
	rows, err := s.q.UsageTopPeople(ctx, s.e, dbsqlc.UsageTopPeopleParams{TeamID: team, Since: since, MaxRows: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("usage top people: %w", mapErr(err))
	}
	out := make([]KeyUsage, 0, len(rows))
	for _, r := range rows {
		out = append(out, KeyUsage{Key: r.PersonID, Tokens: Tokens{Model: r.Model, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}})
	}
	return out, nil
}

// OfTurn returns a turn's model calls, in order.
func (s Usage) OfTurn(ctx context.Context, turnID int64) ([]ModelCall, error) {
	rows, err := s.q.UsageOfTurn(ctx, s.e, turnID)
	if err != nil {
		return nil, fmt.Errorf("usage of turn %d: %w", turnID, mapErr(err))
	}
	out := make([]ModelCall, 0, len(rows))
	for _, r := range rows {
		out = append(out, ModelCall{
			TurnID: r.TurnID, Team: r.TeamID, Person: r.PersonID, Channel: r.ChannelID, Provider: r.Provider, Model: r.Model,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedTokens: r.CachedTokens,
			Duration: time.Duration(r.DurationMs) * time.Millisecond, FinishReason: r.FinishReason, At: r.At,
		})
	}
	return out, nil
}

// Step kinds, as turn_steps records them.
const (
	StepRecall = "recall"
	StepModel  = "model"
	StepTool   = "tool"
	StepError  = "error"
	StepBudget = "budget"
)

// Step is one thing a turn did: a tool call (name, outcome), an error
// (its class), a budget that ended it. Never message text or arguments.
type Step struct {
	Kind, Name, Outcome string
	Duration            time.Duration
	At                  time.Time
}

// RecordStep stores one step of a turn.
func (s Usage) RecordStep(ctx context.Context, turnID int64, st Step) error {
	err := s.q.TurnStepRecord(ctx, s.e, dbsqlc.TurnStepRecordParams{TurnID: turnID, Kind: st.Kind, Name: st.Name, Outcome: st.Outcome, DurationMs: st.Duration.Milliseconds(), At: st.At})
	if err != nil {
		return fmt.Errorf("record step of turn %d: %w", turnID, mapErr(err))
	}
	return nil
}

// Steps returns a turn's steps, in order.
func (s Usage) Steps(ctx context.Context, turnID int64) ([]Step, error) {
	rows, err := s.q.TurnStepsOfTurn(ctx, s.e, turnID)
	if err != nil {
		return nil, fmt.Errorf("steps of turn %d: %w", turnID, mapErr(err))
	}
	out := make([]Step, 0, len(rows))
	for _, r := range rows {
		out = append(out, Step{Kind: r.Kind, Name: r.Name, Outcome: r.Outcome, Duration: time.Duration(r.DurationMs) * time.Millisecond, At: r.At})
	}
	return out, nil
}

// Recalled is one memory a turn's recall put in its prompt.
type Recalled struct {
	Rank     int
	MemoryID uuid.UUID
	Score    float64
	// Leg is the leg of recall that found it (memory.LegLexical, LegVector,
	// LegBoth), "" when recall had one leg.
	Leg string
}

// RecordRecall stores what a turn's recall chose, replacing what an
// earlier attempt of the turn chose, and the recall's step, in one round
// trip whatever the number of memories: the turn waits for it before its
// model request. A memory deleted since recall chose it is left out.
func (s Usage) RecordRecall(ctx context.Context, turnID int64, rs []Recalled, st Step) error {
	p := dbsqlc.TurnRecallRecordParams{TurnID: turnID, Kind: st.Kind, Name: st.Name, Outcome: st.Outcome, DurationMs: st.Duration.Milliseconds(), At: st.At,
		Ranks: make([]int32, len(rs)), MemoryIds: make([]uuid.UUID, len(rs)), Scores: make([]float64, len(rs)), Legs: make([]string, len(rs))}
	for i, r := range rs {
		p.Ranks[i], p.MemoryIds[i], p.Scores[i], p.Legs[i] = int32(r.Rank), r.MemoryID, r.Score, r.Leg
	}
	if err := s.q.TurnRecallRecord(ctx, s.e, p); err != nil {
		return fmt.Errorf("record recall of turn %d: %w", turnID, mapErr(err))
	}
	return nil
}

// Recalls returns what a turn's recall chose, in rank order; memories
// deleted since are gone from it.
func (s Usage) Recalls(ctx context.Context, turnID int64) ([]Recalled, error) {
	rows, err := s.q.TurnRecallsOfTurn(ctx, s.e, turnID)
	if err != nil {
		return nil, fmt.Errorf("recalls of turn %d: %w", turnID, mapErr(err))
	}
	out := make([]Recalled, 0, len(rows))
	for _, r := range rows {
		out = append(out, Recalled{Rank: int(r.Rank), MemoryID: r.MemoryID, Score: r.Score, Leg: r.Leg})
	}
	return out, nil
}

// SetTrace records a turn's trace id, unless it has one already (a retry
// of the turn keeps the first attempt's).
func (s Usage) SetTrace(ctx context.Context, turnID int64, traceID string) error {
	if err := s.q.TurnSetTrace(ctx, s.e, dbsqlc.TurnSetTraceParams{ID: turnID, TraceID: traceID}); err != nil {
		return fmt.Errorf("trace of turn %d: %w", turnID, mapErr(err))
	}
	return nil
}
