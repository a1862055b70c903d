package inbox

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
)

// River's errors are logged once per outage, however many batches fail,
// and the recovery once, with how many were not logged.
func TestRiverErrorsAreLoggedOncePerOutage(t *testing.T) {
	t.Parallel()
	logs := &harness.Buffer{}
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	h := newHealth(zerolog.New(logs), func() time.Time { return now })
	h.started()
	h.probed(nil)
	if err := h.err(); err != nil {
		t.Fatalf("healthy at start: %v", err)
	}
	river := slog.New(h.slogHandler()).With("queue", "turns")
	for i := 0; i < 50; i++ {
		river.Error("producer: Error fetching jobs", "err", "connection refused")
		h.probed(errors.New("connection refused"))
		now = now.Add(time.Second)
	}
	river.Warn("producer: a warning passes through")
	if n := strings.Count(logs.String(), `"level":"error"`); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "Error fetching jobs queue=turns err=connection refused") {
		t.Fatalf("the first error is logged whole:\n%s", logs.String())
	}
	if err := h.err(); err == nil {
		t.Fatal("unhealthy during the outage")
	}
	h.probed(nil)
	if err := h.err(); err == nil {
		t.Fatal("still unhealthy right after the last error")
	}
	now = now.Add(3 * probeEvery)
	h.probed(nil)
	if err := h.err(); err != nil {
		t.Fatalf("healthy once quiet: %v", err)
	}
	if !strings.Contains(logs.String(), `"errors_not_logged":49`) || strings.Count(logs.String(), "job queue recovered") != 1 {
		t.Fatalf("recovery logged once, with the count:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "a warning passes through") {
		t.Fatalf("warnings are not swallowed:\n%s", logs.String())
	}
}
