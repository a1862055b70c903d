package ops_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/ops"
)

// The Grafana dashboard (deploy/grafana/mnemo.json, run by make
// check-deploy) is valid JSON, and every metric its queries name is one
// NewMetrics registers.
func TestGrafanaDashboardQueriesNameExistingMetrics(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../deploy/grafana/mnemo.json")
	require.NoError(t, err)
	var dash any
	require.NoError(t, json.Unmarshal(raw, &dash), "the dashboard is valid JSON")
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if e, ok := v["expr"].(string); ok {
				exprs = append(exprs, e)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(dash)
	require.GreaterOrEqual(t, len(exprs), 8, "the dashboard's queries are found")

	registered := families(t)
	name := regexp.MustCompile(`\bmnemo_[a-z0-9_]+`)
	seen := map[string]bool{}
	for _, e := range exprs {
		ms := name.FindAllString(e, -1)
		require.NotEmpty(t, ms, "query %q names a mnemo metric", e)
		for _, m := range ms {
			family := m
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if f, ok := strings.CutSuffix(m, suffix); ok && registered[f] {
					family = f
				}
			}
			require.True(t, registered[family], "query %q names %s, which ops does not register", e, m)
			seen[family] = true
		}
	}
	for _, want := range []string{"mnemo_turns_total", "mnemo_turn_duration_seconds", "mnemo_event_ack_seconds", "mnemo_inbox_posts",
		"mnemo_gen_ai_client_operation_duration_seconds", "mnemo_gen_ai_client_token_usage_total", "mnemo_recall_duration_seconds", "mnemo_model_errors_total"} {
		require.True(t, seen[want], "the dashboard shows %s", want)
	}
	// Control: a misspelt metric is caught.
	require.False(t, registered["mnemo_turn_total"])
}

// families is every metric family NewMetrics registers, each observed once
// so that its vectors are gathered.
func families(t *testing.T) map[string]bool {
	t.Helper()
	m := ops.NewMetrics()
	m.WatchInbox(func(context.Context) (ops.InboxDepth, error) { return ops.InboxDepth{}, nil }, time.Now)
	m.EventReceived("x")
	m.EventAcked("x", time.Millisecond)
	m.EventDeduplicated("x")
	m.EventRefused("x")
	m.ChannelTypeUnknown()
	m.TurnFinished("answered", time.Second)
	m.ToolCalled("t", "ok", time.Millisecond)
	m.MemoryWritten("explicit", "stored")
	m.Recalled(time.Millisecond, errors.New("x"))
	m.RetentionDeleted("turns", 1)
	m.Feedback(db.Positive)
	m.BudgetExceeded("turn_model_calls")
	srv := fakellm.New(t, fakellm.Queue(fakellm.Reply{Text: "hi"}, fakellm.Reply{Status: 400}))
	model := m.Model(llm.NewAnthropic("k", srv.URL, "m"))
	for range 2 {
		_, _ = model.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}}, MaxTokens: 10})
	}
	got, err := m.Registry().Gather()
	require.NoError(t, err)
	out := map[string]bool{}
	for _, f := range got {
		out[f.GetName()] = true
	}
	return out
}
