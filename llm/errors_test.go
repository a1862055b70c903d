package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

var hello = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}}}

// Each case scripts the provider's replies and says what the caller sees:
// the answer after retries, or the classified error, and how many requests
// and which waits it took. Sleeps are recorded, not slept.
func TestProviderErrorsAreClassifiedAndRetried(t *testing.T) {
	t.Parallel()
	ok := fakellm.Reply{Text: "fine"}
	type want struct {
		requests   int
		waits      []time.Duration
		class      llm.Class // empty: success
		status     int
		retryAfter time.Duration
		contains   []string
		excludes   []string
	}
	cases := []struct {
		name     string
		replies  []fakellm.Reply
		deadline time.Duration
		want     want
	}{
		{
			name:    "429 with a short Retry-After is waited out and retried",
			replies: []fakellm.Reply{{Status: 429, RetryAfter: "2"}, ok},
			want:    want{requests: 2, waits: []time.Duration{2 * time.Second}},
		},
		{
			name:    "retry-after-ms is honoured to the millisecond",
			replies: []fakellm.Reply{{Status: 429, RetryAfterMs: "1500", RetryAfter: "2"}, ok},
			want:    want{requests: 2, waits: []time.Duration{1500 * time.Millisecond}},
		},
		{
			name:     "429 asking for 5 minutes with 2 minutes left fails at once",
			replies:  []fakellm.Reply{{Status: 429, RetryAfter: "300"}, ok},
			deadline: 2 * time.Minute,
			want: want{requests: 1, class: llm.ClassRateLimited, status: 429, retryAfter: 300 * time.Second,
				contains: []string{"rate limited", "per-minute rate limit", "the model provider asked me to wait 5 minutes"}},
		},
		{
			name:    "429 asking for longer than MaxWait fails at once without a deadline",
			replies: []fakellm.Reply{{Status: 429, RetryAfter: "3600"}, ok},
			want:    want{requests: 1, class: llm.ClassRateLimited, status: 429, retryAfter: time.Hour, contains: []string{"wait 1 hour"}},
		},
		{
			name:    "500 is retried after a jittered backoff",
			replies: []fakellm.Reply{{Status: 500}, ok},
			want:    want{requests: 2, waits: []time.Duration{375 * time.Millisecond}},
		},
		{
			name:    "5xx until attempts run out ends with the last error",
			replies: []fakellm.Reply{{Status: 502}, {Status: 500}, {Status: 500}, ok},
			want: want{requests: 3, waits: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond},
				class: llm.ClassServer, status: 500, contains: []string{"Internal server error", "try again in a few minutes"}},
		},
		{
			name:     "a backoff that does not fit the deadline's margin fails at once",
			replies:  []fakellm.Reply{{Status: 500}, ok},
			deadline: 3 * time.Second,
			want:     want{requests: 1, class: llm.ClassServer, status: 500},
		},
		{
			name:    "400 is a bug on our side and is not retried",
			replies: []fakellm.Reply{{Status: 400, ErrorMessage: "messages: roles must alternate"}, ok},
			want: want{requests: 1, class: llm.ClassBadRequest, status: 400,
				contains: []string{"messages: roles must alternate", "bug"}, excludes: []string{"try again"}},
		},
		{
			name:    "404 (unknown model) is a bad request that names the model",
			replies: []fakellm.Reply{{Status: 404, ErrorMessage: "model: claude-test"}, ok},
			want: want{requests: 1, class: llm.ClassBadRequest, status: 404, contains: []string{
				"was not found at the provider (HTTP 404): model: claude-test", "check the model name"},
				excludes: []string{"bug in mnemo"}},
		},
		{
			name:    "401 keeps the provider's message and says to check the key",
			replies: []fakellm.Reply{{Status: 401, ErrorMessage: "invalid x-api-key"}, ok},
			want: want{requests: 1, class: llm.ClassAuth, status: 401,
				contains: []string{"invalid x-api-key", "check the API key"}, excludes: []string{"try again", "wait"}},
		},
		{
			name:    "a key echoed in the provider's message is masked",
			replies: []fakellm.Reply{{Status: 401, ErrorMessage: "Incorrect API key provided: sk-live1234567890abcd. You can find your API key in your settings."}, ok},
			want: want{requests: 1, class: llm.ClassAuth, status: 401,
				contains: []string{"Incorrect API key provided", "check the API key"}, excludes: []string{"sk-live1234567890abcd"}},
		},
		{
			name:    "a body that is not JSON is malformed, not retried",
			replies: []fakellm.Reply{{Body: `{"id": "msg_fake", "content": [`}, ok},
			want:    want{requests: 1, class: llm.ClassMalformed, contains: []string{"could not be read"}},
		},
	}
	for _, p := range providers {
		for _, c := range cases {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				srv := fakellm.New(t, fakellm.Queue(c.replies...))
				var s sleeper
				ctx := context.Background()
				if c.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, c.deadline)
					defer cancel()
				}
				resp, err := p.new(srv.URL, s.policy()).Complete(ctx, hello)
				require.Len(t, srv.Requests(), c.want.requests)
				require.Equal(t, c.want.waits, s.recorded())
				if c.want.class == "" {
					require.NoError(t, err)
					require.Equal(t, "fine", resp.Text)
					return
				}
				var e *llm.Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, p.name, e.Provider)
				require.Equal(t, c.want.class, e.Class)
				require.Equal(t, c.want.status, e.Status)
				require.Equal(t, c.want.retryAfter, e.RetryAfter)
				for _, s := range c.want.contains {
					require.Contains(t, err.Error(), s)
				}
				for _, s := range c.want.excludes {
					require.NotContains(t, err.Error(), s)
				}
			})
		}
	}
}

// Anthropic's 529 and OpenAI's 503 mean the provider is overloaded: retried,
// and named as such when attempts run out.
func TestOverloadedIsRetried(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			status := 529
			if p.name == "openai" {
				status = 503
			}
			over := fakellm.Reply{Status: status}
			srv := fakellm.New(t, fakellm.Queue(over, fakellm.Reply{Text: "fine"}, over, over, over))
			var s sleeper
			m := p.new(srv.URL, s.policy())
			resp, err := m.Complete(context.Background(), hello)
			require.NoError(t, err)
			require.Equal(t, "fine", resp.Text)

			_, err = m.Complete(context.Background(), hello)
			var e *llm.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, llm.ClassOverloaded, e.Class)
			require.True(t, e.Retryable())
			require.Contains(t, err.Error(), "overloaded")
			require.Len(t, srv.Requests(), 5)
		})
	}
}

// Retry-After may be an HTTP date; the wait is measured on the injected clock.
func TestRetryAfterAsHTTPDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, fakellm.Queue(
				fakellm.Reply{Status: 429, RetryAfter: now.Add(30 * time.Second).Format(http.TimeFormat)},
				fakellm.Reply{Text: "fine"},
			))
			var s sleeper
			m := p.new(srv.URL, llm.WithRetryPolicy(llm.RetryPolicy{SleepFunc: s.sleep, NowFunc: func() time.Time { return now }}))
			_, err := m.Complete(context.Background(), hello)
			require.NoError(t, err)
			require.Equal(t, []time.Duration{30 * time.Second}, s.recorded())
		})
	}
}

func TestUnreachableProviderIsANetworkError(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var s sleeper
			_, err := p.new(url, s.policy()).Complete(context.Background(), hello)
			var e *llm.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, llm.ClassNetwork, e.Class)
			require.Zero(t, e.Status)
			require.Contains(t, err.Error(), "check the network")
			require.Empty(t, s.recorded(), "no answer is not retried")
		})
	}
}

// The caller's deadline ending is the caller's doing: it stays a context
// error, so a turn can tell "too slow" from "provider failed".
func TestCallerDeadlineStaysAContextError(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
				<-release
				return fakellm.Reply{Text: "too late"}
			})
			t.Cleanup(func() { close(release) })
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := p.new(srv.URL).Complete(ctx, hello)
			require.True(t, errors.Is(err, context.DeadlineExceeded), err)
			var e *llm.Error
			require.False(t, errors.As(err, &e))
			require.Len(t, srv.Requests(), 1)
		})
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		300 * time.Millisecond: "a moment",
		time.Second:            "1 second",
		45 * time.Second:       "45 seconds",
		5 * time.Minute:        "5 minutes",
		90 * time.Minute:       "2 hours",
	} {
		require.Equal(t, want, llm.HumanDuration(d), d)
	}
}
