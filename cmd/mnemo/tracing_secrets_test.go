package main

import (
	stdlog "log"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"golang.org/x/sys/unix"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// captureStderr sends what the process writes to its stderr (file
// descriptor 2, which OpenTelemetry's default logger holds) to a file
// until the test ends, and returns a function that reads it.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	saved, err := unix.Dup(2)
	require.NoError(t, err)
	require.NoError(t, unix.Dup2(int(f.Fd()), 2))
	t.Cleanup(func() {
		_ = unix.Dup2(saved, 2)
		_ = unix.Close(saved)
		_ = f.Close()
	})
	return func() string {
		b, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return string(b)
	}
}

// A malformed OTEL_EXPORTER_OTLP_HEADERS (": " for "=") made the OTLP
// exporter quote the header, its token included, through OpenTelemetry's
// default logger, straight to the process's stderr past the redactor; and
// what a library writes through the standard library's log went there too.
// Both go through serve's redacting log now: the message is in it, the
// token is not, and nothing of it reaches stderr unscrubbed.
//
// Not parallel: the exporter reads the OTEL_* variables from the process's
// environment, and fd 2 is the process's.
func TestOpenTelemetryDiagnosticsAreRedacted(t *testing.T) {
	// The span recorder stays the global provider the other tests read
	// (package tracers delegate to the first one set): serve's replaces it
	// while it runs, and it is put back.
	rec := recordSpans()
	prev := otel.GetTracerProvider()
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	_ = rec

	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(collector.Close)
	const token = "glc_" + "eyJvIjoiOTg3NjU0IiwibiI6Im1uZW1vLXRyYWNlcyIsImsiOiJ6WjlxUXA0"
	headers := "Authorization: Bearer " + token
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", headers)

	stderr := captureStderr(t)
	b := startBot(t, scripted.Memory(), "OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL, "OTEL_EXPORTER_OTLP_HEADERS", headers)
	// A library logging through the standard library's log while serve runs.
	stdlog.Print("stdlog canary: the password is Tr0ub4dor&3")

	raw := stderr()
	logs := b.logs.String()
	require.NotContains(t, raw, "glc_", "OpenTelemetry wrote the header's token to stderr")
	require.NotContains(t, raw, "Tr0ub4dor", "the standard library's log wrote a secret to stderr")
	require.NotContains(t, logs, "glc_", "serve's log holds the header's token")
	require.NotContains(t, logs, "Tr0ub4dor")
	// They were read: OpenTelemetry's complaint and the canary are in the log.
	require.Contains(t, logs, "parse headers", "OpenTelemetry's message goes to serve's log")
	require.Contains(t, logs, "Authorization: Bearer "+detect.RedactedMarker)
	require.Contains(t, logs, "stdlog canary")
	line := logLine(logs, "parse headers")
	require.Contains(t, line, `"component":"opentelemetry"`, "marked as OpenTelemetry's")
	t.Logf("OpenTelemetry's line: %s", line)
}
