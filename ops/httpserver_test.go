package ops

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
)

// The server's own error lines (here a handler's panic) go to the logger
// it is given, which redacts, and not to the standard logger; and every
// timeout is set, so an idle or slow client holds nothing for long.
func TestHTTPServerLogsThroughItsLoggerWithEveryTimeout(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	hs := HTTPServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("zqxboom") }), zerolog.New(&logs))
	for name, d := range map[string]time.Duration{"ReadHeaderTimeout": hs.ReadHeaderTimeout, "ReadTimeout": hs.ReadTimeout, "WriteTimeout": hs.WriteTimeout, "IdleTimeout": hs.IdleTimeout} {
		require.Positive(t, d, name)
	}
	require.Positive(t, hs.MaxHeaderBytes)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err == nil {
		resp.Body.Close()
	}
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "zqxboom") }, 10*time.Second, 10*time.Millisecond,
		"the panic's line is in the server's logger")
	require.Contains(t, logs.String(), `"component":"http"`)
}
