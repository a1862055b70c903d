package ops_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/ops"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func serve(t *testing.T, m *ops.Metrics, ready ...ops.Check) string {
	t.Helper()
	s, err := ops.Listen("127.0.0.1:0", m, ready, zerolog.Nop())
	require.NoError(t, err)
	go s.Serve()
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return "http://" + s.Addr()
}

func TestReadyOnlyWhenEveryCheckHolds(t *testing.T) {
	t.Parallel()
	var slackUp atomic.Bool
	base := serve(t, ops.NewMetrics(),
		ops.Check{Name: "postgres", Check: func(context.Context) error { return nil }},
		ops.Check{Name: "slack", Check: func(context.Context) error {
			if !slackUp.Load() {
				return errors.New("socket mode not connected")
			}
			return nil
		}},
	)
	code, body := get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, code, "alive regardless of readiness")
	require.Equal(t, "ok\n", body)

	code, body = get(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, body, "slack: socket mode not connected")
	require.NotContains(t, body, "postgres")

	slackUp.Store(true)
	code, body = get(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ready\n", body)
}

// A port already taken fails at start, naming the setting.
func TestListenFailsOnATakenPort(t *testing.T) {
	t.Parallel()
	s, err := ops.Listen("127.0.0.1:0", nil, nil, zerolog.Nop())
	require.NoError(t, err)
	defer s.Shutdown(context.Background()) //nolint:errcheck
	_, err = ops.Listen(s.Addr(), nil, nil, zerolog.Nop())
	require.ErrorContains(t, err, "MNEMO_HTTP_ADDR "+s.Addr())
}

func TestMetricsAreExposed(t *testing.T) {
	t.Parallel()
	m := ops.NewMetrics()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	m.WatchInbox(func(context.Context) (ops.InboxDepth, error) {
		return ops.InboxDepth{Arrived: 4, Available: 2, Running: 1, Waiting: 3, Oldest: now.Add(-90 * time.Second)}, nil
	}, func() time.Time { return now })
	m.EventReceived("app_mention")
	m.EventAcked("app_mention", 4*time.Millisecond)
	m.EventDeduplicated("message")
	m.EventRefused("message")
	m.TurnFinished("answered", 3*time.Second)
	m.ToolCalled("memory__remember", "ok", 20*time.Millisecond)
	m.MemoryWritten("explicit", "stored")
	m.Recalled(5*time.Millisecond, errors.New("db down"))
	m.RetentionDeleted("session_messages", 1000)
	m.RetentionDeleted("session_messages", 12)
	m.Feedback(db.Positive)

	srv := fakellm.New(t, fakellm.Queue(fakellm.Reply{Text: "hi", InputTokens: 11, OutputTokens: 7}, fakellm.Reply{Status: 400}))
	model := m.Model(llm.NewAnthropic("k", srv.URL, "m"))
	_, err := model.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}}, MaxTokens: 10})
	require.NoError(t, err)
	_, err = model.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}}, MaxTokens: 10})
	require.Error(t, err)

	m.BudgetExceeded("person_daily_tokens")

	_, body := get(t, serve(t, m)+"/metrics")
	for _, want := range []string{
		`mnemo_events_received_total{type="app_mention"} 1`,
		`mnemo_events_acked_total{type="app_mention"} 1`,
		`mnemo_event_ack_seconds_bucket{le="0.005"} 1`,
		`mnemo_events_deduplicated_total{type="message"} 1`,
		`mnemo_events_refused_total{type="message"} 1`,
		`mnemo_inbox_posts{state="arrived"} 4`,
		`mnemo_inbox_posts{state="available"} 2`,
		`mnemo_inbox_posts{state="running"} 1`,
		`mnemo_inbox_posts{state="waiting"} 3`,
		`mnemo_inbox_oldest_post_age_seconds 90`,
		`mnemo_turns_total{outcome="answered"} 1`,
		`mnemo_turn_duration_seconds_count{outcome="answered"} 1`,
		`mnemo_model_calls_total{outcome="ok"} 1`,
		`mnemo_model_calls_total{outcome="error"} 1`,
		`mnemo_model_errors_total{class="bad_request"} 1`,
		`mnemo_gen_ai_client_token_usage_total{model="m",type="input"} 11`,
		`mnemo_gen_ai_client_token_usage_total{model="m",type="output"} 7`,
		`mnemo_gen_ai_client_operation_duration_seconds_count{model="m"} 2`,
		`mnemo_budget_exceeded_total{limit="person_daily_tokens"} 1`,
		`mnemo_tool_calls_total{outcome="ok",tool="memory__remember"} 1`,
		`mnemo_memory_writes_total{outcome="stored",path="explicit"} 1`,
		`mnemo_recall_duration_seconds_count 1`,
		`mnemo_recall_errors_total 1`,
		`mnemo_retention_deleted_rows_total{table="session_messages"} 1012`,
		`go_goroutines`,
	} {
		require.Contains(t, body, want)
	}

	// The README's metrics table names every family mnemo exports.
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	var ours int
	for _, f := range families {
		if name := f.GetName(); strings.HasPrefix(name, "mnemo_") {
			ours++
			row := regexp.MustCompile(`(?m)^\| [^|]*\b` + name + `\b[^|]*\|`)
			require.True(t, row.Match(readme), "README's metrics table lacks %s", name)
		}
	}
	require.GreaterOrEqual(t, ours, 17, "every family was touched")
}

// An empty inbox's oldest post is "now" by the database's clock, which
// this process's clock may see as long ago: the gauge says 0 all the same.
func TestInboxAgeIsZeroWhenTheInboxIsEmpty(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	var posts atomic.Int64
	m := ops.NewMetrics()
	m.WatchInbox(func(context.Context) (ops.InboxDepth, error) {
		return ops.InboxDepth{Waiting: posts.Load(), Oldest: now.Add(-7 * time.Second)}, nil
	}, func() time.Time { return now })
	addr := serve(t, m)
	_, body := get(t, addr+"/metrics")
	require.Contains(t, body, "mnemo_inbox_oldest_post_age_seconds 0\n")
	posts.Store(1) // control: with a post waiting, its age shows
	_, body = get(t, addr+"/metrics")
	require.Contains(t, body, "mnemo_inbox_oldest_post_age_seconds 7\n")
}

func TestNilMetricsIgnoreEverything(t *testing.T) {
	t.Parallel()
	var m *ops.Metrics
	m.EventReceived("x")
	m.EventAcked("x", time.Second)
	m.TurnFinished("answered", time.Second)
	m.Recalled(time.Second, nil)
	m.RetentionDeleted("turns", 3)
	srv := fakellm.New(t, nil)
	inner := llm.NewAnthropic("k", srv.URL, "m")
	require.Same(t, llm.Model(inner), m.Model(inner), "no wrapper without metrics")
	_, body := get(t, serve(t, nil)+"/healthz")
	require.True(t, strings.HasPrefix(body, "ok"))
}
