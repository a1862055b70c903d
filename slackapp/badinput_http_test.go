package slackapp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// loggedHTTPApp is httpApp with the app's log kept, at debug.
func loggedHTTPApp(t *testing.T, d *testdb.DB) (*fakeslack.Server, *syncbuf.Buffer) {
	t.Helper()
	in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	logs := &syncbuf.Buffer{}
	fs, _ := httpAppLogging(t, d, in, zerolog.New(logs).Level(zerolog.DebugLevel))
	return fs, logs
}

// A slash command whose form can't be parsed is refused with 400, as
// before, and the refusal is logged with its reason: nothing Slack sends
// is dropped without a log line.
func TestBadInputMalformedSlashCommandIsLogged(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs, logs := loggedHTTPApp(t, d)
	a := fs.PostToApp("/slack/commands", "application/x-www-form-urlencoded", []byte("command=%2Fmnemo&text=%zz&user_id=U0ALICE"), fakeslack.PostOptions{})
	require.Equal(t, http.StatusBadRequest, a.Status)
	require.Contains(t, logs.String(), "malformed slash command rejected")
	require.Contains(t, logs.String(), "invalid URL escape")
}

// An event without a channel or a team is rejected with a reason that
// names the missing field, not as a bad timestamp: its ts is fine.
func TestBadInputEventWithoutChannelNamesTheField(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs, logs := loggedHTTPApp(t, d)
	env := fs.SendEvent(map[string]any{"type": "app_mention", "user": "U0ALICE", "text": "hi", "ts": "1800000003.000100"})
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status, "acked: Slack sending it again would not mend it")
	var rejected map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		if m["message"] == "event rejected" {
			rejected = m
		}
	}
	require.NotNil(t, rejected, "the rejection is logged")
	require.Contains(t, rejected["error"], "channel")
	require.NotContains(t, rejected["error"], "timestamp")
	require.Zero(t, arrivals(t, d, "1800000003.000100"))
}

// A mention or a person's message without a user, and not a bot's, can't
// be answered (nobody asked): it is rejected as malformed, at error level,
// not passed over at debug as though it were not for the bot. A bot's
// message without a user is the control: it is not for the bot.
func TestBadInputEventWithoutUserIsRejected(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs, logs := loggedHTTPApp(t, d)
	rejected := func() []string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &m))
			if m["message"] == "event rejected" {
				out = append(out, m["error"].(string))
			}
		}
		return out
	}
	bot := fs.SendEvent(map[string]any{"type": "message", "channel_type": "im", "bot_id": "B0OTHER", "text": "hi", "ts": "1800000004.000100", "channel": "D0ALICE"})
	require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(bot, 10*time.Second).Status)
	require.Empty(t, rejected(), "the control: a bot's message is not for the bot")
	for i, ev := range []map[string]any{
		{"type": "app_mention", "text": "<@" + fakeslack.BotUserID + "> hi", "ts": "1800000005.000100", "channel": "C0GENERAL"},
		{"type": "message", "channel_type": "im", "text": "hi", "ts": "1800000006.000100", "channel": "D0ALICE"},
	} {
		env := fs.SendEvent(ev)
		require.Equal(t, http.StatusOK, fs.WaitHTTPAnswer(env, 10*time.Second).Status, "acked: Slack sending it again would not mend it")
		got := rejected()
		require.Len(t, got, i+1, "%v is rejected", ev)
		require.Contains(t, got[i], "user")
	}
}
