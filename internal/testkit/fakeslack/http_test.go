package fakeslack_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
)

// request is what the app saw of one delivery.
type request struct {
	retry, reason string
	verified      bool
}

// An event the app does not answer 200 in time is sent again, signed,
// with X-Slack-Retry-Num and the reason, as Slack does: http_timeout after
// a hung answer, http_error after an error status; a 200 ends it.
func TestHTTPDeliveryRetriesUntilAcked(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []request
	release := make(chan struct{})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sv, err := slack.NewSecretsVerifier(r.Header, "s3cret")
		verified := err == nil
		if verified {
			_, _ = sv.Write(body)
			verified = sv.Ensure() == nil
		}
		mu.Lock()
		seen = append(seen, request{r.Header.Get("X-Slack-Retry-Num"), r.Header.Get("X-Slack-Retry-Reason"), verified})
		n := len(seen)
		mu.Unlock()
		switch n {
		case 1:
			select { // hangs past the fake's timeout
			case <-release:
			case <-r.Context().Done():
			}
		case 2:
			http.Error(w, "down", http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte(`{"ok":true}`))
		}
	}))
	t.Cleanup(app.Close)
	t.Cleanup(func() { close(release) })
	fs := fakeslack.New(t)
	fs.DeliverHTTP(app.URL, "s3cret")
	fs.SetHTTPAckTimeout(200 * time.Millisecond)
	fs.Redeliver(10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond)

	env := fs.SendEvent(map[string]any{"type": "app_mention", "user": "U1", "text": "hi", "ts": "1800000000.000100", "channel": "C1"}, fakeslack.EventOptions{EventID: "Ev1"})
	acked := env + "-r2"
	require.JSONEq(t, `{"ok":true}`, string(fs.WaitAck(acked, 10*time.Second)))
	require.False(t, fs.Acked(env))
	require.False(t, fs.Acked(env+"-r1"))
	require.Equal(t, 3, fs.Deliveries("Ev1"), "no retry after the ack")
	a, _ := fs.HTTPAnswer(env + "-r1")
	require.Equal(t, http.StatusServiceUnavailable, a.Status)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []request{{"", "", true}, {"1", "http_timeout", true}, {"2", "http_error", true}}, seen)
}
