package usage

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/llm"
)

// Meter records and limits the model calls made for turns. A nil *Meter
// records nothing and limits nothing.
type Meter struct {
	db     *db.DB
	limits Limits
	log    zerolog.Logger
	now    func() time.Time
}

// NewMeter returns a Meter over d with limits. now may be nil.
func NewMeter(d *db.DB, limits Limits, log zerolog.Logger, now func() time.Time) *Meter {
	if now == nil {
		now = time.Now
	}
	return &Meter{db: d, limits: limits, log: log, now: now}
}

// Limits are the meter's budgets.
func (m *Meter) Limits() Limits {
	if m == nil {
		return Limits{}
	}
	return m.limits
}

// Now is the meter's clock.
func (m *Meter) Now() time.Time {
	if m == nil {
		return time.Now()
	}
	return m.now()
}

// Model wraps next: a call made for a turn is checked against the budgets
// first (a *LimitError when one is reached, and next is not called) and its
// usage recorded after. A Streamer stays one.
func (m *Meter) Model(next llm.Model) llm.Model {
	if m == nil {
		return next
	}
	provider, model := llm.Describe(next)
	mm := &meteredModel{next: next, m: m, provider: provider, model: model}
	if _, ok := next.(llm.Streamer); ok {
		return &meteredStreamer{mm}
	}
	return mm
}

type meteredModel struct {
	next            llm.Model
	m               *Meter
	provider, model string
}

func (c *meteredModel) Provider() string  { return c.provider }
func (c *meteredModel) ModelName() string { return c.model }

func (c *meteredModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := c.m.check(ctx); err != nil {
		return nil, err
	}
	start := c.m.now()
	resp, err := c.next.Complete(ctx, req)
	c.m.record(ctx, c.provider, c.model, start, resp)
	return resp, err
}

type meteredStreamer struct{ *meteredModel }

func (c *meteredStreamer) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	if err := c.m.check(ctx); err != nil {
		return nil, err
	}
	start := c.m.now()
	resp, err := c.next.(llm.Streamer).Stream(ctx, req, onText)
	c.m.record(ctx, c.provider, c.model, start, resp)
	return resp, err
}

// check returns a *LimitError when ctx's turn may not make another model
// call. The sums are read from the database, so every replica's calls
// count. A failed read lets the call go, logged: a budget is a guard
// against runaway cost, not a reason to fail turns while the database
// hiccups (the call's own recording will fail loudly too).
func (m *Meter) check(ctx context.Context) error {
	s := from(ctx)
	l := m.limits
	if s == nil || s.Unlimited || (l.PersonDailyTokens <= 0 && l.ChannelDailyTokens <= 0 && l.TurnModelCalls <= 0) {
		return nil
	}
	now := m.now()
	day := DayStart(now)
	spent, err := s.store.Spent(ctx, s.Team, s.Person, s.Channel, s.TurnID, day)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		m.log.Error().Err(err).Int64("turn", s.TurnID).Msg("budget check failed; the model call goes ahead")
		return nil
	}
	tomorrow := day.Add(24 * time.Hour)
	switch {
	case l.TurnModelCalls > 0 && spent.TurnCalls >= l.TurnModelCalls:
		return &LimitError{Limit: LimitTurnCalls, Max: l.TurnModelCalls}
	case l.PersonDailyTokens > 0 && s.Person != "" && spent.PersonTokens >= l.PersonDailyTokens:
		return &LimitError{Limit: LimitPersonDaily, Max: l.PersonDailyTokens, Resets: tomorrow}
	case l.ChannelDailyTokens > 0 && spent.ChannelTokens >= l.ChannelDailyTokens:
		return &LimitError{Limit: LimitChannelDaily, Max: l.ChannelDailyTokens, Resets: tomorrow}
	}
	return nil
}

// record stores a call's usage for ctx's turn. A failed call that reported
// no usage is recorded with zero tokens, so the turn's calls still count.
func (m *Meter) record(ctx context.Context, provider, model string, start time.Time, resp *llm.Response) {
	s := from(ctx)
	if s == nil {
		return
	}
	c := db.ModelCall{TurnID: s.TurnID, Team: s.Team, Person: s.Person, Channel: s.Channel, Provider: provider, Model: model,
		Duration: m.now().Sub(start), At: m.now()}
	if resp != nil {
		c.InputTokens, c.OutputTokens, c.CachedTokens = int64(resp.Usage.InputTokens), int64(resp.Usage.OutputTokens), int64(resp.Usage.CachedInputTokens)
		c.FinishReason = resp.StopReason
	}
	rctx, cancel := detached(ctx)
	defer cancel()
	if err := s.store.Record(rctx, c); err != nil {
		m.log.Error().Err(err).Int64("turn", s.TurnID).Str("model", model).Msg("model usage not recorded")
	}
}
