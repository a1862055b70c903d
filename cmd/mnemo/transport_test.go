package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/memory"
)

// The slash command, over Socket Mode and over HTTP: its ack, then its
// answer through the response URL.
func TestSlashCommandOverBothTransports(t *testing.T) {
	t.Parallel()
	forEachTransport(t, func(t *testing.T, mode []string) {
		b := startBot(t, scripted.Memory(), mode...)
		m := b.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer terse PR summaries")
		r := b.command(alice, "C0TEAM", "memories")
		require.Contains(t, string(r.Blocks), "Prefers terse PR summaries")
		require.Contains(t, string(r.Blocks), m.ShortID())
		r = b.command(alice, "C0TEAM", "forget "+m.ShortID())
		require.Contains(t, r.Text, "Forgotten")
		require.True(t, b.archived(m.ShortID()))
	})
}

// eventBody is an Events API event callback as Slack posts it.
func eventBody(eventID string, event map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"token": "legacy", "team_id": fakeslack.TeamID, "api_app_id": fakeslack.AppID, "type": "event_callback",
		"event_id": eventID, "event_time": 1800000000, "event": event,
	})
	return b
}

func (b *bot) mentionEvent(channel, text string) (string, map[string]any) {
	ts := b.nextTS()
	return ts, map[string]any{"type": "app_mention", "user": alice, "text": "<@" + fakeslack.BotUserID + "> " + text, "ts": ts, "channel": channel, "event_ts": ts}
}

// A request that Slack did not sign, signed with another secret, signed
// too long ago, or too large, is refused before it is parsed: nothing
// reaches the inbox, and each refusal is counted. The same query finds the
// post a well-signed request brings.
func TestHTTPRefusesWhatSlackDidNotSign(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_SLACK_MODE", "http")
	const ch = "C0SIGNED"
	cases := []struct {
		name   string
		opts   fakeslack.PostOptions
		pad    int
		status int
	}{
		{"unsigned", fakeslack.PostOptions{Unsigned: true}, 0, http.StatusUnauthorized},
		{"another secret", fakeslack.PostOptions{Secret: "not-the-signing-secret"}, 0, http.StatusUnauthorized},
		{"six minutes old", fakeslack.PostOptions{At: time.Now().Add(-6 * time.Minute)}, 0, http.StatusUnauthorized},
		{"six minutes ahead", fakeslack.PostOptions{At: time.Now().Add(6 * time.Minute)}, 0, http.StatusUnauthorized},
		{"over a megabyte", fakeslack.PostOptions{}, 1 << 20, http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		ts, ev := b.mentionEvent(ch, "hi "+strings.Repeat("x", c.pad))
		a := b.slack.PostToApp("/slack/events", "application/json", eventBody("Ev0"+strings.ToUpper(strings.ReplaceAll(c.name, " ", "")), ev), c.opts)
		require.NoError(t, a.Err, c.name)
		require.Equal(t, c.status, a.Status, c.name)
		// The answer came after the handler finished: nothing is on its way.
		require.Zero(t, b.arrivals(ts), "%s: nothing reached the inbox", c.name)
	}
	// A body altered after signing is refused too: the signature covers it.
	ts, ev := b.mentionEvent(ch, "hi")
	body := eventBody("Ev0ALTERED", ev)
	tsHeader, sig := fakeslack.Sign(testSigningSecret, time.Now(), body)
	altered := bytes.Replace(body, []byte(alice), []byte(bob), 1)
	req, err := http.NewRequest(http.MethodPost, "http://"+b.servingAddr("slack_http")+"/slack/events", bytes.NewReader(altered))
	require.NoError(t, err)
	req.Header.Set("X-Slack-Request-Timestamp", tsHeader)
	req.Header.Set("X-Slack-Signature", sig)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Zero(t, b.arrivals(ts))

	// Control: the same post, well signed, is taken in and answered.
	ts, ev = b.mentionEvent(ch, "hi")
	a := b.slack.PostToApp("/slack/events", "application/json", eventBody("Ev0GOOD", ev), fakeslack.PostOptions{})
	require.NoError(t, a.Err)
	require.Equal(t, http.StatusOK, a.Status)
	require.Equal(t, 1, b.arrivals(ts), "the query finds a post that was taken in")
	b.replies(ch, ts, 1)

	metrics := b.metrics()
	for _, want := range []string{
		`mnemo_slack_requests_refused_total{reason="missing_signature"} 1`,
		`mnemo_slack_requests_refused_total{reason="bad_signature"} 2`,
		`mnemo_slack_requests_refused_total{reason="stale_timestamp"} 2`,
		`mnemo_slack_requests_refused_total{reason="too_large"} 1`,
	} {
		require.Contains(t, metrics, want)
	}
}

// metrics fetches the operator server's /metrics.
func (b *bot) metrics() string {
	b.t.Helper()
	resp, err := http.Get("http://" + b.servingAddr("http") + "/metrics")
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return string(body)
}

// Slack retries an event it thinks was not acked (X-Slack-Retry-Num): the
// retry lands in the inbox's dedup, as a Socket Mode redelivery does, and
// the post is answered once.
func TestHTTPRetryIsDeduplicated(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_SLACK_MODE", "http")
	const ch = "C0RETRY"
	ts, ev := b.mentionEvent(ch, "hi")
	body := eventBody("Ev0RETRIED", ev)
	first := b.slack.PostToApp("/slack/events", "application/json", body, fakeslack.PostOptions{})
	require.Equal(t, http.StatusOK, first.Status)
	for n := 1; n <= 2; n++ {
		retry := b.slack.PostToApp("/slack/events", "application/json", body, fakeslack.PostOptions{RetryNum: n, RetryReason: "http_timeout"})
		require.Equal(t, http.StatusOK, retry.Status, "a retry is acked too, or Slack tries again")
	}
	b.replies(ch, ts, 1)
	b.waitDone(ch, ts)
	require.Equal(t, 1, b.arrivals(ts))
	require.Equal(t, 1, b.postedIn(ch), "answered once")
	require.Contains(t, b.metrics(), `mnemo_events_deduplicated_total{type="app_mention"} 2`)
	require.Contains(t, b.logs.String(), `"retry_attempt":2`)
}

// Slack checks a request URL with url_verification; the answer is its
// challenge. Unsigned, it is refused like any other request.
func TestHTTPURLVerification(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_SLACK_MODE", "http")
	body := []byte(`{"token":"legacy","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	a := b.slack.PostToApp("/slack/events", "application/json", body, fakeslack.PostOptions{})
	require.Equal(t, http.StatusOK, a.Status)
	require.JSONEq(t, `{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}`, string(a.Body))
	a = b.slack.PostToApp("/slack/events", "application/json", body, fakeslack.PostOptions{Unsigned: true})
	require.Equal(t, http.StatusUnauthorized, a.Status)
	require.NotContains(t, string(a.Body), "3eZbrw1a")
}
