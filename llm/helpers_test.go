package llm_test

import (
	"context"
	"sync"
	"time"

	"github.com/mnemo-bot/mnemo/llm"
)

// streamingModel is what both providers are.
type streamingModel interface {
	llm.Model
	llm.Streamer
}

// provider makes one provider's model against a fake server URL.
type provider struct {
	name string
	new  func(url string, opts ...llm.Option) streamingModel
}

var providers = []provider{
	{"anthropic", func(url string, opts ...llm.Option) streamingModel {
		return llm.NewAnthropic("sk-ant-test", url, "claude-test", opts...)
	}},
	{"openai", func(url string, opts ...llm.Option) streamingModel {
		return llm.NewOpenAI("sk-test", url+"/v1", "gpt-test", opts...)
	}},
}

// sleeper stands in for time.Sleep in retry policies: it records each wait
// and returns at once, so tests see what would have been waited without
// waiting it.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// policy is the default retry policy with recorded sleeps and jitter fixed
// at the middle of its range.
func (s *sleeper) policy() llm.Option {
	return llm.WithRetryPolicy(llm.RetryPolicy{SleepFunc: s.sleep, JitterFunc: func() float64 { return 0.5 }})
}
