package agent

import "go.opentelemetry.io/otel"

var tracer = otel.Tracer("github.com/mnemo-bot/mnemo/agent")
