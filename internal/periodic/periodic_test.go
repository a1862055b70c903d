package periodic_test

import (
	"context"
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
	defer cancel()
	ended := make(chan error, 1)
	go periodic.Run(ctx, time.Millisecond, 20*time.Millisecond, func(ctx context.Context) {
		<-ctx.Done()
		select {
		case ended <- ctx.Err():
		default:
		}
	})
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(10 * time.Second):
		t.Fatal("a call blocked on its context was not ended by its timeout")
	}
}
