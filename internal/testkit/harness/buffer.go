package harness

import (
	"strings"
	"sync"
	"time"
)

// Buffer collects a running bot's logs; it is safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
	// wrote is closed by the next Write, for those waiting on a line.
	wrote chan struct{}
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor waits until the log holds text, up to timeout, and reports
// whether it does.
func (s *Buffer) WaitFor(text string, timeout time.Duration) bool {
	return s.Await(timeout, func(log string) bool { return strings.Contains(log, text) })
}

// Await waits until cond holds for the log, checking after each write, up
// to timeout, and reports whether it does.
func (s *Buffer) Await(timeout time.Duration, cond func(log string) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if cond(s.b.String()) {
			s.mu.Unlock()
			return true
		}
		if s.wrote == nil {
			s.wrote = make(chan struct{})
		}
		wrote := s.wrote
		s.mu.Unlock()
		select {
		case <-wrote:
		case <-deadline.C:
			return cond(s.String())
		}
	}
}
