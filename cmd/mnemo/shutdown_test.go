package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// hungMethods are the Web API calls a turn makes once it has taken its
// post in, and its background work; a hung Slack never answers them.
// (conversations.info and users.info answer, so the turn gets that far.)
var hungMethods = []string{
	"reactions.add", "reactions.remove", "chat.postMessage", "chat.update", "chat.postEphemeral",
	"conversations.replies", "views.publish",
	"chat.startStream", "chat.appendStream", "chat.stopStream",
	"assistant.threads.setTitle", "assistant.threads.setStatus", "assistant.threads.setSuggestedPrompts",
}

// A Slack that takes connections and never answers: on SIGTERM the real
// binary still exits, cleanly, within MNEMO_SHUTDOWN_TIMEOUT. Before,
// the :eyes: reaction ran in the background with no deadline, on a client
// with no timeout, and shutdown waited for it for ever.
func TestFaultHungSlackSIGTERMExitsWithinShutdownTimeout(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	const timeout = 3 * time.Second
	a := f.start("only", "MNEMO_SHUTDOWN_TIMEOUT", timeout.String())
	f.slack.Hang(hungMethods...)
	f.mention("C0HUNG", "what is the deploy day?", "")
	// The :eyes: reaction in the background, and the turn's reply.
	f.slack.WaitHung(2, 30*time.Second)

	code, took := a.term(time.Minute)
	require.Equal(t, 0, code, a.logs.String())
	// The deadline was what ended it: the turn stuck on Slack was
	// cancelled, and the background reaction too. The bound only tells a
	// hang apart from the deadline; how close to it a loaded machine
	// exits is no test's business.
	require.Contains(t, a.logs.String(), "turns still running at the shutdown deadline")
	require.Contains(t, a.logs.String(), "background Slack calls cancelled at the shutdown deadline")
	require.Less(t, took, 15*time.Second, "exited %s after SIGTERM, with a %s shutdown timeout; before, it waited for ever", took, timeout)
}

// The same in process, where the goroutines can be counted: serve returns
// within its shutdown timeout and leaves none of its goroutines behind.
// Not parallel: goleak sees every goroutine of the test binary, and the
// parallel tests are paused while this one runs.
func TestServeWithHungSlackReturnsInTimeAndLeavesNoGoroutine(t *testing.T) {
	var baseline goleak.Option
	// Registered first, so it runs last, after the fakes and the database
	// are closed.
	t.Cleanup(func() {
		if baseline != nil {
			goleak.VerifyNone(t, baseline)
		}
	})
	d := testdb.New(t)
	slack := fakeslack.New(t)
	model := fakellm.New(t, scripted.Memory())
	slack.AddUser(fakeslack.User{ID: alice, Name: "Alice"})
	baseline = goleak.IgnoreCurrent()

	const timeout = 3 * time.Second
	env := map[string]string{
		"DATABASE_URL":           d.URL,
		"SLACK_BOT_TOKEN":        "xoxb-test-bot-token",
		"SLACK_APP_TOKEN":        "xapp-1-test-app-token",
		"SLACK_API_URL":          slack.URL,
		"MNEMO_LLM_PROVIDER":     "anthropic",
		"MNEMO_LLM_BASE_URL":     model.URL,
		"MNEMO_LLM_API_KEY":      "sk-ant-test-key-0123456789abcdef",
		"MNEMO_MODEL":            "claude-test",
		"MNEMO_LOG_LEVEL":        "info",
		"MNEMO_HTTP_ADDR":        "127.0.0.1:0",
		"MNEMO_SHUTDOWN_TIMEOUT": timeout.String(),
	}
	logs := &harness.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, logs)
	}()
	slack.WaitConnected(30 * time.Second)
	slack.Hang(hungMethods...)
	ts := slack.NextTS()
	slack.SendEvent(map[string]any{"type": "app_mention", "user": alice, "text": "<@" + fakeslack.BotUserID + "> hello", "ts": ts, "channel": "C0HUNG", "event_ts": ts})
	// The :eyes: reaction in the background, and the turn's reply.
	slack.WaitHung(2, 30*time.Second)

	start := time.Now()
	cancel()
	select {
	case code := <-done:
		require.Equal(t, 0, code, logs.String())
	case <-time.After(time.Minute):
		t.Fatalf("serve did not return a minute after its context ended:\n%s", logs.String())
	}
	// As above: the deadline ended it, and the bound tells a hang apart.
	took := time.Since(start)
	require.Contains(t, logs.String(), "turns still running at the shutdown deadline")
	require.Contains(t, logs.String(), "background Slack calls cancelled at the shutdown deadline")
	require.Less(t, took, 15*time.Second, "returned %s after its context ended, with a %s shutdown timeout", took, timeout)
}
