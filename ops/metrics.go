package ops

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/llm"
)

// Metrics are mnemo's Prometheus metrics, in their own registry (no global
// state). Build them with NewMetrics. A nil *Metrics ignores every
// observation, so callers need no checks.
type Metrics struct {
	reg *prometheus.Registry

	eventsReceived     *prometheus.CounterVec
	eventsAcked        *prometheus.CounterVec
	eventsDeduplicated *prometheus.CounterVec
	eventsRefused      *prometheus.CounterVec
	ackSeconds         prometheus.Observer
	channelUnknown     prometheus.Counter
	slackRefused       *prometheus.CounterVec

	turns        *prometheus.CounterVec
	turnSeconds  *prometheus.HistogramVec
	modelCalls   *prometheus.CounterVec
	modelSeconds *prometheus.HistogramVec
	modelTokens  *prometheus.CounterVec
	budgets      *prometheus.CounterVec
	modelErrors  *prometheus.CounterVec
	toolCalls    *prometheus.CounterVec
	toolSeconds  *prometheus.HistogramVec
	memoryWrites *prometheus.CounterVec
	recall       prometheus.Observer
	recallErrors prometheus.Counter
	lexicalOnly  *prometheus.CounterVec
	embedded     *prometheus.CounterVec
	feedback     *prometheus.CounterVec
	retention    *prometheus.CounterVec
}

// NewMetrics registers mnemo's metrics, and the Go runtime's and the
// process's, in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "mnemo", Name: name, Help: help}, labels)
		m.reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "mnemo", Name: name, Help: help, Buckets: buckets}, labels)
		m.reg.MustRegister(h)
		return h
	}
	m.eventsReceived = counter("events_received_total", "Socket Mode envelopes received, by type (events_api inner type, slash_commands, interactive).", "type")
	m.eventsAcked = counter("events_acked_total", "Envelopes acked, by type.", "type")
	m.eventsDeduplicated = counter("events_deduplicated_total", "Posts already in the inbox when they arrived again (Slack's retries, the message copy of a mention, another replica's copy), by type.", "type")
	m.eventsRefused = counter("events_refused_total", "Envelopes not acked because the inbox could not take the post in (Slack delivers them again), by type.", "type")
	m.ackSeconds = histogram("event_ack_seconds", "Time from an envelope's arrival to its ack, including the inbox write. Slack's budget is 3 s.",
		[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 3}).WithLabelValues()
	m.slackRefused = counter("slack_requests_refused_total", "Requests to /slack/* (http mode) refused before they were parsed, by reason: missing_signature, bad_signature, stale_timestamp, replayed (401), too_large (413).", "reason")
	m.turns = counter("turns_total", "Turn runs, by outcome: answered, failed (the person was told why), retry, interrupted (shutdown), duplicate.", "outcome")
	m.turnSeconds = histogram("turn_duration_seconds", "Duration of turn runs, by outcome.", prometheus.ExponentialBuckets(0.25, 2, 10), "outcome")
	m.modelCalls = counter("model_calls_total", "Model calls (each with the provider retries inside it), by outcome: ok or error.", "outcome")
	// The GenAI semantic conventions' gen_ai.client.operation.duration and
	// gen_ai.client.token.usage, as Prometheus names them; by model only
	// (people and channels are in the database, not in labels).
	m.modelSeconds = histogram("gen_ai_client_operation_duration_seconds", "Duration of model calls (GenAI gen_ai.client.operation.duration), by model.", prometheus.ExponentialBuckets(0.1, 2, 11), "model")
	m.modelTokens = counter("gen_ai_client_token_usage_total", "Tokens the model provider reported (GenAI gen_ai.client.token.usage), by model and type: input (cached included) or output.", "model", "type")
	m.budgets = counter("budget_exceeded_total", "Turns a budget stopped (MNEMO_BUDGET_*), by limit: person_daily_tokens, channel_daily_tokens, turn_model_calls, turn_tool_steps.", "limit")
	m.modelErrors = counter("model_errors_total", "Failed model calls, by class (rate_limited, overloaded, server, bad_request, malformed, network, auth, deadline, canceled, other).", "class")
	m.toolCalls = counter("tool_calls_total", "Tool calls the model made, by tool and outcome (ok or error).", "tool", "outcome")
	m.toolSeconds = histogram("tool_call_duration_seconds", "Duration of tool calls, by tool.", prometheus.ExponentialBuckets(0.005, 2, 12), "tool")
	m.memoryWrites = counter("memory_writes_total", "Memory writes, by path (explicit, passive) and outcome (stored, duplicate, rejected, forgotten, refused, error).", "path", "outcome")
	m.recall = histogram("recall_duration_seconds", "Duration of a turn's recall of memories.", prometheus.ExponentialBuckets(0.001, 2, 12)).WithLabelValues()
	m.lexicalOnly = counter("recall_vector_fallback_total", "Hybrid recalls that fell back to lexical because the query's embedding failed, by reason: deadline (past MNEMO_EMBEDDING_QUERY_DEADLINE) or error.", "reason")
	m.embedded = counter("embedding_job_memories_total", "Memories the background embedding job embedded, and its failed runs, by outcome (embedded, error).", "outcome")
	m.feedback = counter("feedback_total", "Feedback buttons pressed on replies, by verdict (positive or negative).", "verdict")
	m.retention = counter("retention_deleted_rows_total", "Rows the retention sweep deleted past their retention (MNEMO_RETENTION_*), by table.", "table")
	m.recallErrors = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "mnemo", Name: "recall_errors_total", Help: "Recalls that failed."})
	m.channelUnknown = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "mnemo", Name: "channel_type_unknown_total", Help: "Channels treated as private because conversations.info failed to say what they are."})
	m.reg.MustRegister(m.recallErrors, m.channelUnknown, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is the metrics' own registry.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// EventReceived counts an envelope of kind.
func (m *Metrics) EventReceived(kind string) {
	if m != nil {
		m.eventsReceived.WithLabelValues(kind).Inc()
	}
}

// EventAcked counts an ack, d after the envelope arrived.
func (m *Metrics) EventAcked(kind string, d time.Duration) {
	if m != nil {
		m.eventsAcked.WithLabelValues(kind).Inc()
		m.ackSeconds.Observe(d.Seconds())
	}
}

// EventDeduplicated counts a post the inbox already had.
func (m *Metrics) EventDeduplicated(kind string) {
	if m != nil {
		m.eventsDeduplicated.WithLabelValues(kind).Inc()
	}
}

// EventRefused counts an envelope left unacked because the inbox failed.
func (m *Metrics) EventRefused(kind string) {
	if m != nil {
		m.eventsRefused.WithLabelValues(kind).Inc()
	}
}

// SlackRequestRefused counts a request to /slack/* refused before it was
// parsed (bad signature, old timestamp, too large).
func (m *Metrics) SlackRequestRefused(reason string) {
	if m != nil {
		m.slackRefused.WithLabelValues(reason).Inc()
	}
}

// ChannelTypeUnknown counts a channel treated as private because
// conversations.info failed.
func (m *Metrics) ChannelTypeUnknown() {
	if m != nil {
		m.channelUnknown.Inc()
	}
}

// TurnFinished counts a turn run and its duration.
func (m *Metrics) TurnFinished(outcome string, d time.Duration) {
	if m != nil {
		m.turns.WithLabelValues(outcome).Inc()
		m.turnSeconds.WithLabelValues(outcome).Observe(d.Seconds())
	}
}

// ToolCalled counts a tool call.
func (m *Metrics) ToolCalled(tool, outcome string, d time.Duration) {
	if m != nil {
		m.toolCalls.WithLabelValues(tool, outcome).Inc()
		m.toolSeconds.WithLabelValues(tool).Observe(d.Seconds())
	}
}

// MemoryWritten counts a memory write.
func (m *Metrics) MemoryWritten(path, outcome string) {
	if m != nil {
		m.memoryWrites.WithLabelValues(path, outcome).Inc()
	}
}

// Feedback counts a 👍 or 👎 pressed on a reply.
func (m *Metrics) Feedback(verdict db.Verdict) {
	if m != nil {
		m.feedback.WithLabelValues(string(verdict)).Inc()
	}
}

// RetentionDeleted counts rows the retention sweep deleted from table.
func (m *Metrics) RetentionDeleted(table string, rows int64) {
	if m != nil {
		m.retention.WithLabelValues(table).Add(float64(rows))
	}
}

// BudgetExceeded counts a turn a budget stopped.
func (m *Metrics) BudgetExceeded(limit string) {
	if m != nil {
		m.budgets.WithLabelValues(limit).Inc()
	}
}

// VectorFallback counts a hybrid recall that was lexical for reason.
func (m *Metrics) VectorFallback(reason string) {
	if m != nil {
		m.lexicalOnly.WithLabelValues(reason).Inc()
	}
}

// Embedded counts a run of the embedding job: n memories, and its error.
func (m *Metrics) Embedded(n int64, err error) {
	if m == nil {
		return
	}
	m.embedded.WithLabelValues("embedded").Add(float64(n))
	if err != nil {
		m.embedded.WithLabelValues("error").Inc()
	}
}

// Recalled observes a recall.
func (m *Metrics) Recalled(d time.Duration, err error) {
	if m == nil {
		return
	}
	m.recall.Observe(d.Seconds())
	if err != nil {
		m.recallErrors.Inc()
	}
}

// InboxDepth is the inbox as a scrape reads it.
type InboxDepth struct {
	Arrived, Available, Running, Waiting int64
	Oldest                               time.Time
}

// WatchInbox reports the inbox's depth and the age of its oldest post at
// every scrape, from depth (bounded by the scrape's own timeout).
func (m *Metrics) WatchInbox(depth func(ctx context.Context) (InboxDepth, error), now func() time.Time) {
	if m != nil {
		m.reg.MustRegister(&inboxCollector{depth: depth, now: now})
	}
}

var (
	inboxPostsDesc = prometheus.NewDesc("mnemo_inbox_posts", "Posts in the inbox not yet finished, by state: arrived (acked, not yet moved into the job queue), available (waiting for a worker), running, waiting (a retry, or a busy thread).", []string{"state"}, nil)
	inboxAgeDesc   = prometheus.NewDesc("mnemo_inbox_oldest_post_age_seconds", "Age of the oldest post in the inbox (0 when it is empty).", nil, nil)
)

type inboxCollector struct {
	depth func(ctx context.Context) (InboxDepth, error)
	now   func() time.Time
}

func (c *inboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- inboxPostsDesc
	ch <- inboxAgeDesc
}

func (c *inboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	d, err := c.depth(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(inboxPostsDesc, err)
		return
	}
	for state, n := range map[string]int64{"arrived": d.Arrived, "available": d.Available, "running": d.Running, "waiting": d.Waiting} {
		ch <- prometheus.MustNewConstMetric(inboxPostsDesc, prometheus.GaugeValue, float64(n), state)
	}
	// An empty inbox has no oldest post: its "oldest" is the database's
	// now, which this process's clock may see as seconds ago.
	age := 0.0
	if d.Arrived+d.Available+d.Running+d.Waiting > 0 && !d.Oldest.IsZero() {
		age = max(0, c.now().Sub(d.Oldest).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(inboxAgeDesc, prometheus.GaugeValue, age)
}

// Model wraps next to count its calls, their duration, the tokens they
// used and their errors by class.
func (m *Metrics) Model(next llm.Model) llm.Model {
	if m == nil {
		return next
	}
	provider, model := llm.Describe(next)
	c := &countedModel{next: next, m: m, provider: provider, model: model}
	if _, ok := next.(llm.Streamer); ok {
		return &countedStreamer{c} // streaming stays available through the wrapper
	}
	return c
}

// countedStreamer is countedModel for a model that streams.
type countedStreamer struct{ *countedModel }

func (c *countedStreamer) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	start := time.Now()
	resp, err := c.next.(llm.Streamer).Stream(ctx, req, onText)
	c.observe(start, resp, err)
	return resp, err
}

type countedModel struct {
	next            llm.Model
	m               *Metrics
	provider, model string
}

func (c *countedModel) Provider() string  { return c.provider }
func (c *countedModel) ModelName() string { return c.model }

func (c *countedModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	start := time.Now()
	resp, err := c.next.Complete(ctx, req)
	c.observe(start, resp, err)
	return resp, err
}

func (c *countedModel) observe(start time.Time, resp *llm.Response, err error) {
	c.m.modelSeconds.WithLabelValues(c.model).Observe(time.Since(start).Seconds())
	if err != nil {
		c.m.modelCalls.WithLabelValues("error").Inc()
		c.m.modelErrors.WithLabelValues(ErrorClass(err)).Inc()
		return
	}
	c.m.modelCalls.WithLabelValues("ok").Inc()
	c.m.modelTokens.WithLabelValues(c.model, "input").Add(float64(resp.Usage.InputTokens))
	c.m.modelTokens.WithLabelValues(c.model, "output").Add(float64(resp.Usage.OutputTokens))
}

// ErrorClass names a model error's class for metrics.
func ErrorClass(err error) string {
	var le *llm.Error
	switch {
	case errors.As(err, &le):
		return string(le.Class)
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "other"
}
