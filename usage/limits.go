package usage

import (
	"fmt"
	"time"
)

// Limits are the budgets (MNEMO_BUDGET_*). Zero means no limit.
type Limits struct {
	// PersonDailyTokens and ChannelDailyTokens bound the input plus output
	// tokens of one person's turns, and of one channel's, per UTC day.
	PersonDailyTokens, ChannelDailyTokens int64
	// TurnModelCalls bounds the model calls of one turn; TurnToolSteps the
	// tool calls the model makes in one turn.
	TurnModelCalls, TurnToolSteps int64
}

// Limit names one budget.
type Limit string

const (
	LimitPersonDaily  Limit = "person_daily_tokens"
	LimitChannelDaily Limit = "channel_daily_tokens"
	LimitTurnCalls    Limit = "turn_model_calls"
	LimitTurnTools    Limit = "turn_tool_steps"
)

// LimitError is a budget that stopped a turn. Its Sentence is what the
// person is told.
type LimitError struct {
	Limit Limit
	Max   int64
	// Resets is when a daily budget starts again (the next UTC midnight);
	// zero for a per-turn one.
	Resets time.Time
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("budget %s of %d reached", e.Limit, e.Max)
}

// Sentence says, politely, which limit stopped the turn and when it resets.
func (e *LimitError) Sentence(now time.Time) string {
	resets := ""
	if !e.Resets.IsZero() {
		resets = fmt.Sprintf(" It resets at midnight UTC (%s), in %s", e.Resets.UTC().Format("2006-01-02 15:04 MST"), humanWait(e.Resets.Sub(now)))
	}
	switch e.Limit {
	case LimitPersonDaily:
		return fmt.Sprintf("Sorry, I've stopped here: you have reached your daily limit of %s tokens with me.%s.", thousands(e.Max), resets)
	case LimitChannelDaily:
		return fmt.Sprintf("Sorry, I've stopped here: this channel has reached its daily limit of %s tokens with me.%s.", thousands(e.Max), resets)
	case LimitTurnCalls:
		return fmt.Sprintf("Sorry, I've stopped here: answering this took more than the limit of %d model calls for one request. The limit is per request, so you can ask again, perhaps more narrowly.", e.Max)
	case LimitTurnTools:
		return fmt.Sprintf("Sorry, I've stopped here: answering this needed more than the limit of %d tool steps for one request. The limit is per request, so you can ask again, perhaps more narrowly.", e.Max)
	}
	return "Sorry, I've stopped here: a usage limit was reached."
}

func humanWait(d time.Duration) string {
	if d < time.Minute {
		return "less than a minute"
	}
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h == 0:
		return fmt.Sprintf("%d min", m)
	case m == 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

// thousands writes n with thin separators: 1,000,000.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	out := ""
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out += ","
		}
		out += string(c)
	}
	return out
}

// DayStart is the UTC midnight that began t's day.
func DayStart(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}
