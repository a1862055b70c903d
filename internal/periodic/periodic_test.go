package periodic_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/periodic"
)

func TestRunBoundsEachCallAndEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	deadlines := make(chan time.Duration, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		periodic.Run(ctx, time.Millisecond, time.Hour, func(ctx context.Context) {
			d, ok := ctx.Deadline()
			require.True(t, ok, "every call has a deadline")
			deadlines <- time.Until(d)
			if calls.Add(1) == 3 {
				cancel()
				<-ctx.Done() // a call blocked on its context ends with Run's
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}
	require.EqualValues(t, 3, calls.Load())
	require.Greater(t, <-deadlines, 59*time.Minute)
}

func TestRunCallEndsAtItsTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	returned := make(chan struct{})
	defer func() { cancel(); <-returned }()
	go func() {
		defer close(returned)
		periodic.Run(ctx, time.Millisecond, 20*time.Millisecond, func(ctx context.Context) {
			<-ctx.Done()
			select {
			case ended <- ctx.Err():
			default:
			}
		})
	}()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(10 * time.Second):
		t.Fatal("a call blocked on its context was not ended by its timeout")
	}
}

// endsOnTick is a context that ends the moment the tick waiting in ticks
// is taken: until then it is open, so a select between the two can only
// take the tick; whoever looks after that finds it ended.
type endsOnTick struct {
	context.Context
	ticks chan time.Time
	once  sync.Once
	done  chan struct{}
}

func newEndsOnTick() *endsOnTick {
	c := &endsOnTick{Context: context.Background(), ticks: make(chan time.Time, 1), done: make(chan struct{})}
	c.ticks <- time.Now()
	return c
}

func (c *endsOnTick) end() { c.once.Do(func() { close(c.done) }) }

func (c *endsOnTick) Done() <-chan struct{} {
	if len(c.ticks) == 0 {
		c.end()
	}
	return c.done
}

func (c *endsOnTick) Err() error {
	select {
	case <-c.Done():
		return context.Canceled
	default:
		return nil
	}
}

// A tick that comes as the context ends, or after, calls nothing: Go's
// select picks at random among ready cases, so the tick alone decides
// nothing.
func TestRunNeverCallsAfterItsContextEnds(t *testing.T) {
	t.Parallel()
	t.Run("ended as the tick is taken", func(t *testing.T) {
		ctx := newEndsOnTick()
		var calls int
		periodic.RunOn(ctx, ctx.ticks, time.Hour, func(context.Context) {
			calls++
			ctx.end() // so that Run returns even when it calls
		})
		require.Zero(t, calls)
		require.Empty(t, ctx.ticks, "control: Run took the tick")
	})
	t.Run("ended with a tick waiting", func(t *testing.T) {
		// Either case is ready at each try: a Run that may take the tick
		// calls f in all of them with probability 1 - 2^-100.
		for range 100 {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			ticks := make(chan time.Time, 1)
			ticks <- time.Now()
			var calls int
			periodic.RunOn(ctx, ticks, time.Hour, func(context.Context) { calls++ })
			require.Zero(t, calls)
		}
	})
	// Control: a tick before the end calls f, under a context with a deadline.
	ctx, cancel := context.WithCancel(context.Background())
	ticks := make(chan time.Time, 1)
	ticks <- time.Now()
	var calls int
	periodic.RunOn(ctx, ticks, time.Hour, func(ctx context.Context) {
		calls++
		_, ok := ctx.Deadline()
		require.True(t, ok)
		cancel()
	})
	require.Equal(t, 1, calls)
}
