package inbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"
)

// probeEvery is how often the inbox checks that River can read its table,
// and how long posts have waited to be moved into it.
const probeEvery = 5 * time.Second

// stuckAfter is how long a post may wait to be moved into River before the
// inbox is unhealthy: several sweeps, so every mover has failed or stalled.
const stuckAfter = 30 * time.Second

// health tracks whether River works, from its own error logs and a probe,
// and logs River's errors once per outage rather than once per batch.
type health struct {
	log zerolog.Logger
	now func() time.Time

	mu         sync.Mutex
	running    bool
	probeErr   error
	lastErr    time.Time
	lastErrMsg string
	outage     time.Time // zero when there is none
	suppressed int

	moveErr       error         // the last move's error, nil once one works
	unmoved       int64         // posts waiting to be moved, at the last probe
	unmovedOldest time.Duration // how long the oldest of them had waited
}

func newHealth(log zerolog.Logger, now func() time.Time) *health {
	return &health{log: log, now: now, probeErr: errors.New("not started")}
}

func (h *health) started() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.running = true
}

func (h *health) stopping() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.running = false
}

// err is nil while River works.
func (h *health) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.running:
		return errors.New("job queue not running")
	case h.probeErr != nil:
		return fmt.Errorf("job queue: %w", h.probeErr)
	case !h.outage.IsZero():
		return fmt.Errorf("job queue: %s", h.lastErrMsg)
	case h.moveErr != nil:
		return fmt.Errorf("moving posts into the job queue: %w", h.moveErr)
	case h.unmovedOldest > stuckAfter:
		return fmt.Errorf("%d posts not moved into the job queue, the oldest for %s", h.unmoved, h.unmovedOldest.Round(time.Second))
	}
	return nil
}

// moved records a move's result: the first failure is logged, and the
// first success after failures.
func (h *health) moved(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err != nil && h.moveErr == nil:
		h.log.Error().Err(err).Msg("moving posts into the job queue failed; they wait in the inbox, and further failures are not logged until a move works")
	case err == nil && h.moveErr != nil:
		h.log.Info().Msg("posts move into the job queue again")
	}
	h.moveErr = err
}

// waiting records how many posts wait to be moved, and for how long the
// oldest has.
func (h *health) waiting(n int64, oldest time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.unmoved, h.unmovedOldest = n, oldest
}

// riverError records an error River logged: the first of an outage is
// logged, the rest counted.
func (h *health) riverError(msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastErr, h.lastErrMsg = h.now(), msg
	if !h.outage.IsZero() {
		h.suppressed++
		return
	}
	h.outage = h.lastErr
	h.log.Error().Str("river", msg).Msg("job queue error; further job queue errors are not logged until it recovers")
}

// probed records a probe's result, and ends an outage once River has been
// quiet for two probes and the probe works.
func (h *health) probed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probeErr = err
	if err != nil {
		if h.outage.IsZero() {
			h.outage, h.lastErrMsg = h.now(), err.Error()
			h.log.Error().Err(err).Msg("job queue unreachable; further job queue errors are not logged until it recovers")
		}
		return
	}
	if !h.outage.IsZero() && h.now().Sub(h.lastErr) > 2*probeEvery {
		h.log.Info().Dur("after", h.now().Sub(h.outage)).Int("errors_not_logged", h.suppressed).Msg("job queue recovered")
		h.outage, h.suppressed = time.Time{}, 0
	}
}

// probe checks, until ctx ends, that River can read its job table, and
// how long posts wait to be moved into it.
func (i *Inbox) probe(ctx context.Context) {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, probeEvery)
		_, err := i.client.JobList(pctx, river.NewJobListParams().Queues(TurnsQueue).First(1))
		if err == nil {
			var n int64
			var oldest time.Duration
			if n, oldest, err = i.db.Inbox().Arrivals(pctx); err == nil {
				i.health.waiting(n, oldest)
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		i.health.probed(err)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// slogHandler is River's logger: warnings pass through to zerolog, errors
// go to the outage tracking.
func (h *health) slogHandler() slog.Handler { return &riverLog{h: h} }

type riverLog struct {
	h     *health
	attrs []slog.Attr
}

func (l *riverLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelWarn }

func (l *riverLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range l.attrs {
		add(a)
	}
	r.Attrs(add)
	if r.Level >= slog.LevelError {
		l.h.riverError(b.String())
		return nil
	}
	l.h.log.Warn().Str("river", b.String()).Msg("job queue warning")
	return nil
}

func (l *riverLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &riverLog{h: l.h, attrs: append(append([]slog.Attr(nil), l.attrs...), attrs...)}
}

func (l *riverLog) WithGroup(string) slog.Handler { return l }
