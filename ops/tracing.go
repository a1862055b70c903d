package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/llm"
)

// TracingEnabled reports whether the standard OpenTelemetry variables name
// an OTLP endpoint for traces.
func TracingEnabled(getenv func(string) string) bool {
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// StartTracing exports spans over OTLP when the standard OpenTelemetry
// variables name an endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_EXPORTER_OTLP_PROTOCOL grpc or
// http/protobuf, the default; headers, timeouts, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES as the exporters read them). It installs the
// provider as OpenTelemetry's global one, which mnemo's packages trace
// through. Without an endpoint it does nothing: the global provider stays
// the no-op one, so spans cost nothing and nothing is exported. stop
// flushes what is buffered, within ctx.
//
// Either way OpenTelemetry's own diagnostics (its logger, which writes to
// the process's stderr, and its error handler, which writes through the
// standard library's log) go to log instead: they may quote what they
// could not parse, an OTEL_EXPORTER_OTLP_HEADERS header and its token
// included, and log is the one that scrubs secrets.
func StartTracing(ctx context.Context, getenv func(string) string, version string, log zerolog.Logger) (stop func(context.Context) error, err error) {
	otel.SetLogger(logr.New(otelSink{log: log}))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn().Err(err).Msg("opentelemetry")
	}))
	if !TracingEnabled(getenv) {
		return func(context.Context) error { return nil }, nil
	}
	var exp *otlptrace.Exporter
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch proto {
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	default:
		return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_PROTOCOL %q is not grpc or http/protobuf", proto)
	}
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", serviceName(getenv)), attribute.String("service.version", version)))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return tp.Shutdown, nil
}

func serviceName(getenv func(string) string) string {
	if s := getenv("OTEL_SERVICE_NAME"); s != "" {
		return s
	}
	return "mnemo"
}

// otelSink is OpenTelemetry's logger (a logr sink) over zerolog. Its
// verbosities are OpenTelemetry's: errors always, V(1) warnings, V(4)
// information and V(8) debugging.
type otelSink struct {
	log  zerolog.Logger
	name string
	kv   []any
}

func (s otelSink) Init(logr.RuntimeInfo) {}

func otelLevel(v int) zerolog.Level {
	switch {
	case v <= 1:
		return zerolog.WarnLevel
	case v <= 4:
		return zerolog.InfoLevel
	}
	return zerolog.DebugLevel
}

func (s otelSink) Enabled(v int) bool { return otelLevel(v) >= s.log.GetLevel() }

func (s otelSink) Info(v int, msg string, kv ...any) {
	s.event(s.log.WithLevel(otelLevel(v)), msg, kv)
}

func (s otelSink) Error(err error, msg string, kv ...any) {
	s.event(s.log.Error().Err(err), msg, kv)
}

func (s otelSink) event(e *zerolog.Event, msg string, kv []any) {
	e = e.Str("component", "opentelemetry")
	if s.name != "" {
		e = e.Str("logger", s.name)
	}
	e.Fields(append(append([]any(nil), s.kv...), kv...)).Msg(msg)
}

func (s otelSink) WithValues(kv ...any) logr.LogSink {
	s.kv = append(append([]any(nil), s.kv...), kv...)
	return s
}

func (s otelSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "/" + name
	}
	s.name = name
	return s
}

var tracer = otel.Tracer("github.com/mnemo-bot/mnemo/ops")

// Trace wraps next so that each call is a span following OpenTelemetry's
// GenAI conventions: "chat {model}", with the provider, the model, the
// tokens used and the finish reason. Message text goes into the span only
// with content (MNEMO_TRACE_CONTENT=true).
func Trace(next llm.Model, content bool) llm.Model {
	provider, model := llm.Describe(next)
	t := &tracedModel{next: next, provider: provider, model: model, content: content}
	if _, ok := next.(llm.Streamer); ok {
		return &tracedStreamer{t}
	}
	return t
}

type tracedModel struct {
	next            llm.Model
	provider, model string
	content         bool
}

func (t *tracedModel) Provider() string  { return t.provider }
func (t *tracedModel) ModelName() string { return t.model }

func (t *tracedModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	ctx, span := t.start(ctx, req, false)
	resp, err := t.next.Complete(ctx, req)
	t.end(span, resp, err)
	return resp, err
}

type tracedStreamer struct{ *tracedModel }

func (t *tracedStreamer) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	ctx, span := t.start(ctx, req, true)
	resp, err := t.next.(llm.Streamer).Stream(ctx, req, onText)
	t.end(span, resp, err)
	return resp, err
}

func (t *tracedModel) start(ctx context.Context, req llm.Request, stream bool) (context.Context, trace.Span) {
	ctx, span := tracer.Start(ctx, "chat "+t.model, trace.WithSpanKind(trace.SpanKindClient))
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", t.provider),
		attribute.String("gen_ai.system", t.provider),
		attribute.String("gen_ai.request.model", t.model),
		attribute.Int("gen_ai.request.max_tokens", req.MaxTokens),
		attribute.Bool("mnemo.stream", stream),
		attribute.Int("mnemo.request.messages", len(req.Messages)),
		attribute.Int("mnemo.request.tools", len(req.Tools)),
	)
	if req.Schema != nil {
		span.SetAttributes(attribute.String("gen_ai.output.type", "json"), attribute.String("mnemo.request.schema", req.Schema.Name))
	}
	if t.content {
		// Redacted as the session log is: tool results quote what they
		// read, secrets included, and the trace backend is not the log.
		span.SetAttributes(attribute.String("gen_ai.system_instructions", detect.Redact(req.System)), attribute.String("gen_ai.input.messages", jsonOf(redactMessages(req.Messages))))
	}
	return ctx, span
}

func (t *tracedModel) end(span trace.Span, resp *llm.Response, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if err != nil {
		span.SetAttributes(attribute.String("error.type", ErrorClass(err)))
		span.SetStatus(codes.Error, ErrorClass(err))
		return
	}
	span.SetAttributes(
		attribute.String("gen_ai.response.model", t.model),
		attribute.Int("gen_ai.usage.input_tokens", resp.Usage.InputTokens),
		attribute.Int("gen_ai.usage.output_tokens", resp.Usage.OutputTokens),
		attribute.Int("gen_ai.usage.cache_read.input_tokens", resp.Usage.CachedInputTokens),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{resp.StopReason}),
		attribute.Int("mnemo.response.tool_calls", len(resp.ToolCalls)),
	)
	if t.content {
		out := *resp
		out.Text, out.ToolCalls = detect.Redact(resp.Text), redactCalls(resp.ToolCalls)
		span.SetAttributes(attribute.String("gen_ai.output.messages", jsonOf(out)))
	}
}

// redactMessages is ms with every secret the detectors find in their text,
// tool calls and tool results replaced with detect.RedactedMarker.
func redactMessages(ms []llm.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		m.Text, m.ToolCalls = detect.Redact(m.Text), redactCalls(m.ToolCalls)
		if m.ToolResults != nil {
			rs := make([]llm.ToolResult, len(m.ToolResults))
			for j, r := range m.ToolResults {
				r.Content = detect.Redact(r.Content)
				rs[j] = r
			}
			m.ToolResults = rs
		}
		out[i] = m
	}
	return out
}

// redactCalls is calls with their inputs' strings redacted.
func redactCalls(calls []llm.ToolCall) []llm.ToolCall {
	if calls == nil {
		return nil
	}
	out := make([]llm.ToolCall, len(calls))
	for i, c := range calls {
		c.Input = redactJSON(c.Input)
		out[i] = c
	}
	return out
}

// redactJSON redacts every string of a JSON value as it was typed
// (unescaped); text that is not JSON is redacted as it stands.
func redactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(detect.Redact(string(raw)))
	}
	b, err := json.Marshal(redactValue(v))
	if err != nil {
		return json.RawMessage(detect.Redact(string(raw)))
	}
	return b
}

func redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return detect.Redact(v)
	case []any:
		for i := range v {
			v[i] = redactValue(v[i])
		}
	case map[string]any:
		for k, x := range v {
			v[k] = redactValue(x)
		}
	}
	return v
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// flushTimeout bounds the export of buffered spans at shutdown.
const flushTimeout = 5 * time.Second

// StopTracing flushes spans within flushTimeout; errors are for the log.
func StopTracing(stop func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := stop(ctx); err != nil && !strings.Contains(err.Error(), "already shutdown") {
		return fmt.Errorf("tracing: %w", err)
	}
	return nil
}
