package inbox

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

var tracer = otel.Tracer("github.com/mnemo-bot/mnemo/inbox")

// WithTrace returns p carrying ctx's span as its trace parent.
func WithTrace(ctx context.Context, p Post) Post {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	p.Trace = c["traceparent"]
	return p
}

// traceContext is ctx with p's trace parent, when it carries one.
func (p Post) traceContext(ctx context.Context) context.Context {
	if p.Trace == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": p.Trace})
}
