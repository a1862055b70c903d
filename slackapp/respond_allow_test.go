package slackapp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// A button press whose response_url is neither Slack's nor on the Web API's
// host is answered ephemerally through the Web API, and nothing is posted
// to that URL; the warning names its host, not its path.
func TestAResponseURLThatIsNotSlacksIsRefused(t *testing.T) {
	t.Parallel()
	hit := make(chan string, 1)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hit <- r.URL.Path:
		default:
		}
		w.WriteHeader(http.StatusOK) // as a response URL answers
	}))
	t.Cleanup(elsewhere.Close)

	d := testdb.New(t)
	in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	logs := &syncbuf.Buffer{}
	fs, _ := httpAppLogging(t, d, in, zerolog.New(logs))
	const secretPath = "/commands/T0AAAA/1234567890/zqxRespSecret0123"
	env := fs.SendInteractive(map[string]any{"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID},
		"user": map[string]any{"id": "U0ALICE"}, "channel": map[string]any{"id": "C0HTTP"},
		"response_url": elsewhere.URL + secretPath,
		"actions":      []any{map[string]any{"type": "button", "block_id": "b1", "action_id": slackapp.ActionPurgeCancel, "value": "x"}}})
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status)

	// respond posts to the response URL first and answers ephemerally only
	// when that post failed or was refused: once the ephemeral answer is
	// in, a post to the URL would already have been made.
	answer := func() []fakeslack.Message {
		var got []fakeslack.Message
		for _, m := range fs.Posted() {
			if m.Ephemeral && !m.Response && strings.Contains(m.Text, "Erasure cancelled") {
				got = append(got, m)
			}
		}
		return got
	}
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var got []fakeslack.Message
	for len(got) == 0 {
		select {
		case path := <-hit:
			t.Fatalf("the answer was posted to a response URL that is not Slack's (%s)", path)
		case <-deadline:
			t.Fatal("no ephemeral answer")
		case <-tick.C:
			got = answer()
		}
	}
	require.Equal(t, "C0HTTP", got[0].Channel)
	require.Equal(t, "U0ALICE", got[0].Target)
	select {
	case path := <-hit:
		t.Fatalf("the answer was posted to a response URL that is not Slack's (%s)", path)
	default:
	}
	out := logs.String()
	require.Contains(t, out, "response_url refused")
	require.Contains(t, out, strings.TrimPrefix(elsewhere.URL, "http://"), "the warning names the host")
	require.NotContains(t, out, "zqxRespSecret0123", "and not the path")
}
