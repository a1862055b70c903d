package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// slowServer is a real streamable HTTP MCP server whose handshake
// (initialize, or server/discover in the newer protocol) waits until the
// test releases it. Its source waits a minute to connect and to
// retry, so a test that depended on either timeout would hang, not pass.
type slowServer struct {
	src        *Source
	reached    chan struct{} // closed when the first handshake arrives
	release    func()
	handshakes atomic.Int32
}

func newSlowServer(t *testing.T) *slowServer {
	t.Helper()
	ss := &slowServer{reached: make(chan struct{})}
	released := make(chan struct{})
	var reachedOnce, releaseOnce sync.Once
	ss.release = func() { releaseOnce.Do(func() { close(released) }) }
	h := server.NewStreamableHTTPServer(weatherServer("slow"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"initialize"`)) || bytes.Contains(body, []byte(`"method":"server/discover"`)) {
				ss.handshakes.Add(1)
				reachedOnce.Do(func() { close(ss.reached) })
				select {
				case <-released:
				case <-r.Context().Done():
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ss.src = NewSource("slow", ServerConfig{Type: HTTP, URL: srv.URL + "/mcp"}, zerolog.Nop())
	ss.src.ConnectTimeout, ss.src.RetryAfter = time.Minute, time.Minute
	t.Cleanup(ss.src.Close)
	t.Cleanup(ss.release) // first: Close and srv.Close wait for the handshake
	return ss
}

type toolsResult struct {
	n   int
	err error
}

func (ss *slowServer) goTools(ctx context.Context) <-chan toolsResult {
	ch := make(chan toolsResult, 1)
	go func() {
		list, err := ss.src.Tools(ctx)
		ch <- toolsResult{len(list), err}
	}()
	return ch
}

// wait is a watchdog, not a measure: the result is expected long before.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		require.FailNow(t, what+" did not return")
		panic("unreachable")
	}
}

func waitReached(t *testing.T, ss *slowServer) {
	t.Helper()
	wait(t, ss.reached, "the handshake")
}

// A slow server's connection holds no lock: while its handshake is held,
// another caller gives up on its own context, and the source's lock is free.
func TestMCPSlowConnectBlocksNoOne(t *testing.T) {
	t.Parallel()
	ss := newSlowServer(t)
	first := ss.goTools(context.Background())
	waitReached(t, ss)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	second := wait(t, ss.goTools(ctx), "a caller with an ended context")
	require.ErrorIs(t, second.err, context.Canceled)
	require.True(t, ss.src.mu.TryLock(), "the lock is free while the server connects")
	ss.src.mu.Unlock()

	select {
	case r := <-first:
		require.FailNow(t, "the first caller returned before the handshake was released", "%+v", r)
	default:
	}
	ss.release()
	r := wait(t, first, "the first caller")
	require.NoError(t, r.err)
	require.Equal(t, 1, r.n)
	require.EqualValues(t, 1, ss.handshakes.Load())
}

// The caller that started the connection giving up does not fail it for
// the others: the attempt goes on, and a waiting caller gets the tools.
func TestMCPConnectOutlivesTheCallerThatStartedIt(t *testing.T) {
	t.Parallel()
	ss := newSlowServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	first := ss.goTools(ctx)
	waitReached(t, ss)
	second := ss.goTools(context.Background())

	cancel()
	r := wait(t, first, "the cancelled first caller")
	require.ErrorIs(t, r.err, context.Canceled)

	ss.release()
	r = wait(t, second, "the waiting second caller")
	require.NoError(t, r.err, "the first caller's cancellation is not cached for the rest")
	require.Equal(t, 1, r.n)
	list, err := ss.src.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.EqualValues(t, 1, ss.handshakes.Load(), "one connection, shared")
}

// Close while connecting ends the attempt and waits for it; nothing is
// published, and the next use connects again.
func TestMCPCloseWhileConnecting(t *testing.T) {
	t.Parallel()
	ss := newSlowServer(t)
	first := ss.goTools(context.Background())
	waitReached(t, ss)
	closed := make(chan struct{})
	go func() { ss.src.Close(); close(closed) }()
	wait(t, closed, "Close")
	r := wait(t, first, "the caller of a closed source")
	require.ErrorContains(t, r.err, "closed while connecting")

	ss.release()
	list, err := ss.src.Tools(context.Background())
	require.NoError(t, err, "no error is cached by Close")
	require.Len(t, list, 1)
}
