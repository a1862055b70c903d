package usage

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
)

// Scope is the turn a model call is made for.
type Scope struct {
	TurnID                int64
	Team, Person, Channel string
	// Unlimited records the calls without checking budgets: passive
	// learning after a turn was answered.
	Unlimited bool
}

type scopeKey struct{}

type scoped struct {
	Scope
	store db.Usage
	now   func() time.Time
}

// Begin returns ctx carrying the turn's scope: model calls through a
// Meter's model are recorded and limited for it, and Step and Recall record
// what the turn did.
func (m *Meter) Begin(ctx context.Context, s Scope) context.Context {
	if m == nil || s.TurnID == 0 {
		return ctx
	}
	return context.WithValue(ctx, scopeKey{}, &scoped{Scope: s, store: m.db.Usage(), now: m.now})
}

func from(ctx context.Context) *scoped {
	s, _ := ctx.Value(scopeKey{}).(*scoped)
	return s
}

// Current returns the scope ctx carries, if any.
func Current(ctx context.Context) (Scope, bool) {
	if s := from(ctx); s != nil {
		return s.Scope, true
	}
	return Scope{}, false
}

// recordTimeout bounds one record write; it runs even when the turn's
// context has ended, since the call it records happened.
const recordTimeout = 5 * time.Second

func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
}

// Step records one step of ctx's turn (a tool call, an error), for
// `mnemo turns show`. It never fails the turn: without a scope it does
// nothing, and a failed write is returned for the caller to log.
func Step(ctx context.Context, kind, name, outcome string, d time.Duration) error {
	s := from(ctx)
	if s == nil {
		return nil
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	return s.store.RecordStep(ctx, s.TurnID, db.Step{Kind: kind, Name: name, Outcome: outcome, Duration: d, At: s.now()})
}

// Ranked is one memory recall put in a turn's prompt, and its score.
type Ranked struct {
	ID    uuid.UUID
	Score float64
	Leg   string // the leg of recall that found it, "" with one leg
}

// Recall records what ctx's turn recalled, in rank order, and how long it
// took (a step).
func Recall(ctx context.Context, ranked []Ranked, d time.Duration, outcome string) error {
	s := from(ctx)
	if s == nil {
		return nil
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	rs := make([]db.Recalled, len(ranked))
	for i, r := range ranked {
		rs[i] = db.Recalled{Rank: i + 1, MemoryID: r.ID, Score: r.Score, Leg: r.Leg}
	}
	return s.store.RecordRecall(ctx, s.TurnID, rs, db.Step{Kind: db.StepRecall, Name: "recall", Outcome: outcome, Duration: d, At: s.now()})
}
