package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/usage"
)

// withUsage reports the same tokens for every call: 40 in (10 of them
// cached), 5 out.
func withUsage(script fakellm.Script) fakellm.Script {
	return func(n int, req *fakellm.Request) fakellm.Reply {
		r := script(n, req)
		r.InputTokens, r.OutputTokens, r.CachedTokens = 40, 5, 10
		return r
	}
}

// Every model call of a turn, the memory judge's inside a tool too, is
// stored with the turn, its asker, its channel and the model; the turn's
// tool calls and recall are recorded as its steps.
func TestTurnUsageIsStoredPerModelCall(t *testing.T) {
	t.Parallel()
	b := setupMetered(t, withUsage(scripted.Memory()), usage.Limits{})
	ctx := context.Background()
	s := newSurface()
	p := post("1800000000.000100", "remember that I drink green tea")
	res, err := b.runner.Run(ctx, p, s)
	require.NoError(t, err)
	require.Empty(t, res.Failure)

	calls, err := b.db.DB.Usage().OfTurn(ctx, res.TurnID)
	require.NoError(t, err)
	require.Len(t, calls, len(b.llm.Requests()), "one row per model call")
	require.GreaterOrEqual(t, len(calls), 3, "the turn's two calls and the memory judge's")
	for _, c := range calls {
		require.Equal(t, db.ModelCall{TurnID: res.TurnID, Team: "T1", Person: "UA", Channel: "D1", Provider: "anthropic", Model: "m",
			InputTokens: 40, OutputTokens: 5, CachedTokens: 10, FinishReason: c.FinishReason, Duration: c.Duration, At: c.At}, c)
	}
	steps, err := b.db.DB.Usage().Steps(ctx, res.TurnID)
	require.NoError(t, err)
	var kinds []string
	for _, st := range steps {
		kinds = append(kinds, st.Kind+":"+st.Name+":"+st.Outcome)
	}
	require.Equal(t, []string{"recall:recall:ok", "tool:searchTools:ok", "tool:memory__remember:ok"}, kinds)

	// The next turn recalls the memory: its id and score are kept.
	p2 := post("1800000000.000200", "what do you remember about green tea?")
	res2, err := b.runner.Run(ctx, p2, s)
	require.NoError(t, err)
	recalls, err := b.db.DB.Usage().Recalls(ctx, res2.TurnID)
	require.NoError(t, err)
	require.Len(t, recalls, 1)
	require.Greater(t, recalls[0].Score, 0.0)
}

// A person past their daily tokens gets a sentence naming the limit and
// when it resets, and no model call is made for the turn.
func TestDailyBudgetEndsTheTurnWithASentence(t *testing.T) {
	t.Parallel()
	b := setupMetered(t, withUsage(scripted.Memory()), usage.Limits{PersonDailyTokens: 45})
	ctx := context.Background()
	s := newSurface()
	res, err := b.runner.Run(ctx, post("1800000000.000100", "hello there"), s)
	require.NoError(t, err)
	require.Empty(t, res.Failure, "nothing spent yet: under the limit")
	before := len(b.llm.Requests())

	res, err = b.runner.Run(ctx, post("1800000000.000200", "hello again"), s)
	require.NoError(t, err)
	require.Contains(t, res.Failure, "you have reached your daily limit of 45 tokens")
	require.Contains(t, res.Failure, "resets at midnight UTC")
	require.Equal(t, before, len(b.llm.Requests()), "no model call past the budget")
	require.Equal(t, []string{"person_daily_tokens"}, b.obs.budgets)
	require.Equal(t, res.Failure, s.notices["1800000000.000200"][0])
}

// A turn whose model asks for more tool calls than allowed ends with the
// limit's sentence instead of running them.
func TestToolStepBudgetEndsTheTurn(t *testing.T) {
	t.Parallel()
	b := setupMetered(t, scripted.Memory(), usage.Limits{TurnToolSteps: 1})
	ctx := context.Background()
	s := newSurface()
	// The scripted model searches the tools, then runs memory__remember.
	res, err := b.runner.Run(ctx, post("1800000000.000100", "remember that I drink green tea"), s)
	require.NoError(t, err)
	require.Equal(t, "Sorry, I've stopped here: answering this needed more than the limit of 1 tool steps for one request. The limit is per request, so you can ask again, perhaps more narrowly.", res.Failure)
	steps, err := b.db.DB.Usage().Steps(ctx, res.TurnID)
	require.NoError(t, err)
	var names []string
	for _, st := range steps {
		names = append(names, st.Kind+":"+st.Name)
	}
	require.Equal(t, []string{"recall:recall", "tool:searchTools", "budget:turn_tool_steps"}, names, "the second step did not run")
	require.Empty(t, b.obs.writes, "nothing was remembered")
	require.Equal(t, []string{"turn_tool_steps"}, b.obs.budgets)
}

// The stats report: a person sees their own days; the workspace's view
// names the top channels and people and, with prices, the cost.
func TestUsageReport(t *testing.T) {
	t.Parallel()
	b := setupMetered(t, withUsage(scripted.Memory()), usage.Limits{})
	ctx := context.Background()
	_, err := b.runner.Run(ctx, post("1800000000.000100", "hello there"), newSurface())
	require.NoError(t, err)
	prices, err := usage.ParsePrices("m=3/15")
	require.NoError(t, err)
	now := time.Now()
	mine, err := usage.Report(ctx, b.db.DB, prices, usage.ReportRequest{Team: "T1", Person: "UA", Now: now})
	require.NoError(t, err)
	require.Contains(t, mine, now.UTC().Format("2006-01-02")+": 40 tokens in (10 cached), 5 out, 1 model calls, ≈ $0.0002")
	require.NotContains(t, mine, "Top people")
	other, err := usage.Report(ctx, b.db.DB, prices, usage.ReportRequest{Team: "T1", Person: "UB", Now: now})
	require.NoError(t, err)
	require.Contains(t, other, "• none", "someone else's usage is not theirs")
	all, err := usage.Report(ctx, b.db.DB, nil, usage.ReportRequest{Team: "T1", All: true, Now: now})
	require.NoError(t, err)
	require.Contains(t, all, "Top channels:\n• <#D1>: 40 tokens in, 5 out")
	require.Contains(t, all, "Top people:\n• <@UA>: 40 tokens in, 5 out")
}
