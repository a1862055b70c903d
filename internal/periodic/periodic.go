// Package periodic runs a function every so often until its context ends,
// each run under its own deadline. It is the one ticker loop of serve's
// periodic work (the expiry sweep, the abandoned-turn sweep, the lease
// reaper), so each is owned by whoever calls Run and ends with its context.
package periodic

import (
	"context"
	"time"
)

// Run calls f every interval until ctx ends, and returns then. Each call's
// context ends timeout after it starts, or with ctx. A call that overruns
// the interval delays the next one; calls never overlap.
func Run(ctx context.Context, interval, timeout time.Duration, f func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		f(cctx)
		cancel()
	}
}
