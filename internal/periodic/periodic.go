// Package periodic runs a function every so often until its context ends,
// each run under its own deadline. It is the one ticker loop of serve's
// periodic work (the expiry sweep, the abandoned-turn sweep, the lease
// reaper), so each is owned by whoever calls Run and ends with its context.
package periodic

import (
	"context"
	"time"
)

// Run calls f every interval until ctx ends, and returns then; f is never
// called once ctx has ended. Each call's context ends timeout after it
// starts, or with ctx. A call that overruns the interval delays the next
// one; calls never overlap.
func Run(ctx context.Context, interval, timeout time.Duration, f func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	run(ctx, t.C, timeout, f)
}

// run is Run on the ticks of ticks.
func run(ctx context.Context, ticks <-chan time.Time, timeout time.Duration, f func(ctx context.Context)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		// A tick and the end of ctx can be ready together, and select
		// then picks either.
		if ctx.Err() != nil {
			return
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		f(cctx)
		cancel()
	}
}
