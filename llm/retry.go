package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/rs/zerolog"
)

// RetryPolicy decides how a provider call that failed with 429 or 5xx is
// retried. Retrying lives here, in one place for every provider and for
// streams and embeddings alike; the SDKs' own retries are off. Zero fields
// take the defaults noted.
type RetryPolicy struct {
	// MaxAttempts counts the first call too; 0 means 3.
	MaxAttempts int
	// BaseDelay is the first backoff when the provider gives no Retry-After;
	// it doubles on each attempt, up to MaxDelay, with jitter. 0 means 500ms.
	BaseDelay time.Duration
	// MaxDelay caps the computed backoff. 0 means 8s.
	MaxDelay time.Duration
	// MaxWait is the longest Retry-After we sit out; a longer request ends the
	// call at once with Error.RetryAfter set. 0 means 1 minute.
	MaxWait time.Duration
	// Margin is the time that must be left before the context's deadline after
	// a wait, for the retried call itself. 0 means 5s.
	Margin time.Duration

	// NowFunc, SleepFunc and JitterFunc are injected by tests. SleepFunc must
	// return early with ctx's error when ctx ends; JitterFunc returns [0,1).
	NowFunc    func() time.Time
	SleepFunc  func(ctx context.Context, d time.Duration) error
	JitterFunc func() float64
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 3
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 8 * time.Second
	}
	if p.MaxWait <= 0 {
		p.MaxWait = time.Minute
	}
	if p.Margin <= 0 {
		p.Margin = 5 * time.Second
	}
	if p.NowFunc == nil {
		p.NowFunc = time.Now
	}
	if p.SleepFunc == nil {
		p.SleepFunc = sleep
	}
	if p.JitterFunc == nil {
		p.JitterFunc = rand.Float64
	}
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before attempt n+1 when the provider named none: half
// the exponential delay fixed, half jitter, so that callers failing together
// do not retry together.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.BaseDelay << min(n, 30)
	if d <= 0 || d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d/2 + time.Duration(p.JitterFunc()*float64(d/2))
}

// HTTPTimeout bounds one HTTP request to a provider, streamed answers
// included: past the longest deadline any caller sets (a turn's 4 minutes),
// so that a request with no deadline of its own still ends.
const HTTPTimeout = 5 * time.Minute

// httpClient is the providers' and embedders' HTTP client.
var httpClient = &http.Client{Timeout: HTTPTimeout}

// Option configures a provider or an embedder.
type Option func(*config)

type config struct {
	retry  RetryPolicy
	logger zerolog.Logger
}

func newConfig(opts []Option) config {
	c := config{logger: zerolog.Nop()}
	for _, o := range opts {
		o(&c)
	}
	c.retry = c.retry.withDefaults()
	return c
}

// WithRetryPolicy replaces the default retry policy.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) { c.retry = p }
}

// WithLogger logs retries to l. Only the provider, status, class and wait
// are logged, never request or answer text.
func WithLogger(l zerolog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// call runs one provider call. committed reports that output already reached
// the caller (stream deltas), which forbids another attempt.
type call[T any] func(ctx context.Context) (v T, committed bool, err error)

// withRetry runs fn, retrying retryable provider errors while the wait fits
// before ctx's deadline. Every error it returns is an *Error, except a
// context error, which stays recognisable with errors.Is.
func withRetry[T any](ctx context.Context, c config, provider string, classify func(error) *Error, fn call[T]) (T, error) {
	var zero T
	p := c.retry
	for n := 0; ; n++ {
		v, committed, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		if cerr := contextError(ctx, err); cerr != nil {
			return zero, fmt.Errorf("%s: %w", provider, cerr)
		}
		var e *Error
		if !errors.As(err, &e) {
			e = classify(err)
		}
		if !e.Retryable() || committed || n+1 >= p.MaxAttempts {
			return zero, e
		}
		wait := e.RetryAfter
		if wait == 0 {
			wait = p.backoff(n)
		} else if wait > p.MaxWait {
			return zero, e
		}
		if deadline, ok := ctx.Deadline(); ok && p.NowFunc().Add(wait+p.Margin).After(deadline) {
			return zero, e
		}
		c.logger.Warn().Str("provider", provider).Int("status", e.Status).Str("class", string(e.Class)).
			Dur("wait", wait).Int("attempt", n+1).Msg("model call failed, retrying")
		if err := p.SleepFunc(ctx, wait); err != nil {
			return zero, fmt.Errorf("%s: waiting to retry: %w", provider, err)
		}
	}
}
