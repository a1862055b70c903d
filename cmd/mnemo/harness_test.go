package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// bot is a running `mnemo serve` wired to a fake Slack, a fake model server
// and its own PostgreSQL database.
type bot struct {
	t     *testing.T
	db    *testdb.DB
	slack *fakeslack.Server
	llm   *fakellm.Server
	env   map[string]string
	logs  *harness.Buffer
}

const (
	alice = "U0ALICE"
	bob   = "U0BOB"
	carol = "U0CAROL"
	admin = "U0ADMIN"
)

func startBot(t *testing.T, script fakellm.Script, extraEnv ...string) *bot {
	t.Helper()
	return startBotOn(t, testdb.New(t), script, extraEnv...)
}

// startBotOn is startBot on a database the test prepared.
func startBotOn(t *testing.T, d *testdb.DB, script fakellm.Script, extraEnv ...string) *bot {
	t.Helper()
	b := &bot{t: t, db: d, slack: fakeslack.New(t), llm: fakellm.New(t, script), logs: &harness.Buffer{}}
	for _, u := range []fakeslack.User{{ID: alice, Name: "Alice"}, {ID: bob, Name: "Bob"}, {ID: carol, Name: "Carol"}, {ID: admin, Name: "Ada", IsAdmin: true}} {
		b.slack.AddUser(u)
	}
	b.env = map[string]string{
		"DATABASE_URL":       b.db.URL,
		"SLACK_BOT_TOKEN":    "xoxb-test-bot-token",
		"SLACK_APP_TOKEN":    "xapp-1-test-app-token",
		"SLACK_API_URL":      b.slack.URL,
		"MNEMO_LLM_PROVIDER": "anthropic",
		"MNEMO_LLM_BASE_URL": b.llm.URL,
		"MNEMO_LLM_API_KEY":  "sk-ant-test-key-0123456789abcdef",
		"MNEMO_MODEL":        "claude-test",
		"MNEMO_LOG_LEVEL":    "debug",
		"MNEMO_HTTP_ADDR":    "127.0.0.1:0", // tests run side by side
	}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		b.env[extraEnv[i]] = extraEnv[i+1]
	}
	overHTTP := b.env["MNEMO_SLACK_MODE"] == "http"
	if overHTTP {
		// Slack posts to the bot: no app token, a signing secret, and a
		// port of its own for /slack/*.
		delete(b.env, "SLACK_APP_TOKEN")
		b.env["SLACK_SIGNING_SECRET"] = testSigningSecret
		b.env["MNEMO_SLACK_HTTP_ADDR"] = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve"}, b.getenv, strings.NewReader(""), io.Discard, b.logs) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Errorf("serve did not stop")
		}
		if t.Failed() {
			t.Logf("serve logs:\n%s", b.logs.String())
		}
	})
	if overHTTP {
		b.slack.DeliverHTTP("http://"+b.servingAddr("slack_http"), testSigningSecret)
	}
	b.slack.WaitConnected(15 * time.Second)
	return b
}

// testSigningSecret is the fake Slack app's signing secret in http mode.
const testSigningSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// transports are the two ways Slack reaches serve; the core end-to-end
// suite runs over each (MNEMO_SLACK_MODE).
var transports = []string{"socket", "http"}

// forEachTransport runs f as a subtest per transport, with the extra
// environment that selects it.
func forEachTransport(t *testing.T, f func(t *testing.T, modeEnv []string)) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f(t, []string{"MNEMO_SLACK_MODE", mode})
		})
	}
}

// servingAddr waits until serve says it is serving and returns the address
// its "mnemo serving" line gives in field (http, slack_http).
func (b *bot) servingAddr(field string) string {
	b.t.Helper()
	var line string
	require.Eventually(b.t, func() bool {
		line = logLine(b.logs.String(), `"mnemo serving"`)
		return line != ""
	}, 30*time.Second, 10*time.Millisecond, "serve never said it was serving:\n%s", b.logs.String())
	var fields map[string]any
	require.NoError(b.t, json.Unmarshal([]byte(line), &fields))
	addr, _ := fields[field].(string)
	require.NotEmpty(b.t, addr, "%s in %s", field, line)
	return addr
}

func (b *bot) getenv(k string) string { return b.env[k] }

// nextTS hands out strictly valid Slack timestamps, increasing with the
// fake Slack's own.
func (b *bot) nextTS() string { return b.slack.NextTS() }

// mention sends an app_mention from user in channel; threadTS may be empty.
func (b *bot) mention(user, channel, text, threadTS string) (ts, envelope string) {
	ts = b.nextTS()
	ev := map[string]any{"type": "app_mention", "user": user, "text": "<@" + fakeslack.BotUserID + "> " + text, "ts": ts, "channel": channel, "event_ts": ts}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	return ts, b.slack.SendEvent(ev)
}

// dm sends a direct message from user.
func (b *bot) dm(user, channel, text, threadTS string) (ts, envelope string) {
	ts = b.nextTS()
	ev := map[string]any{"type": "message", "channel_type": "im", "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	return ts, b.slack.SendEvent(ev)
}

// replies waits for n bot replies in the thread rooted at root.
func (b *bot) replies(channel, root string, n int) []fakeslack.Message {
	b.t.Helper()
	return b.slack.WaitPosted(n, 20*time.Second, func(m fakeslack.Message) bool {
		return m.Channel == channel && m.ThreadTS == root && !m.Ephemeral && !m.Updated
	})
}

// waitDone waits until the turn for the post at ts has finished.
func (b *bot) waitDone(channel, ts string) {
	b.t.Helper()
	b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
}

type listedMemory struct {
	ID          string     `json:"id"`
	Content     string     `json:"content"`
	Kind        string     `json:"kind"`
	Scope       string     `json:"scope"`
	SubjectType string     `json:"subjectType"`
	SubjectID   string     `json:"subjectId"`
	SourceKey   string     `json:"sourceKey"`
	CreatedAt   time.Time  `json:"createdAt"`
	ArchivedAt  *time.Time `json:"archivedAt"`
}

// memories runs `mnemo memories list --json` with args, as an operator would.
func (b *bot) memories(args ...string) []listedMemory {
	b.t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"memories", "list", "--json"}, args...), b.getenv, strings.NewReader(""), &out, &errOut)
	require.Equal(b.t, 0, code, errOut.String())
	var ms []listedMemory
	require.NoError(b.t, json.Unmarshal(out.Bytes(), &ms), out.String())
	return ms
}

func sourceKey(channel, root string) string {
	return "slack:" + fakeslack.TeamID + ":" + channel + ":" + root
}

// turnRequests are the model requests of conversation turns (not memory review).
func (b *bot) turnRequests() []*fakellm.Request {
	var out []*fakellm.Request
	for _, r := range b.llm.Requests() {
		if strings.HasPrefix(r.System, "You are mnemo") {
			out = append(out, r)
		}
	}
	return out
}
