// Package harness is what the local fakes and test databases run in, both
// under go test and inside `mnemo eval`: TB, the part of testing.TB they
// need; Run, a TB for one eval scenario outside go test; and Buffer, a
// running bot's log.
package harness

import (
	"fmt"
	"runtime"
	"sync"
)

// TB is the part of testing.TB the fakes use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Run is a TB for one eval scenario outside go test. Fatalf records the
// failure and ends the calling goroutine, as testing.T does.
type Run struct {
	mu       sync.Mutex
	failures []string
	cleanups []func()
}

// Helper does nothing; it is there to satisfy TB.
func (r *Run) Helper() {}

// Fatalf records a failure and stops the goroutine that called it.
func (r *Run) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}

// Cleanup registers f to run, last first, when Close is called.
func (r *Run) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Close runs the cleanups.
func (r *Run) Close() {
	r.mu.Lock()
	cs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

// Failures returns what Fatalf recorded.
func (r *Run) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

// Do runs f in its own goroutine, so a Fatalf inside ends only f, and
// reports whether f finished without one.
func (r *Run) Do(f func()) bool {
	before := len(r.Failures())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
	return len(r.Failures()) == before
}
