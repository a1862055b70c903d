package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// Issue 20, item 6, through the real binary: when conversations.info fails
// for a mention in a C… channel (which Slack also gives private channels),
// the place counts as private: what Alice asks to remember there is stored
// as said in a private place, and the failure is counted. The failure is
// not remembered: on the next mention Slack says the channel is public,
// and it is (control: the same query finds the public row).
func TestUnknownChannelTypeFailsClosed(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	r := f.start("only")
	const ch = "C0NEWPRIV"
	visibility := func(content string) string {
		t.Helper()
		var v string
		require.NoError(t, f.pool.QueryRow(context.Background(), "SELECT visibility FROM memories WHERE content = $1", content).Scan(&v))
		return v
	}

	f.slack.Fail("conversations.info", "missing_scope") // as without groups:read
	ts, _, _ := f.mention(ch, "remember that I prefer release notes as bullet lists", "")
	f.waitFinished(ts, "white_check_mark", 30*time.Second)
	require.Len(t, f.answersTo(ch, ts), 1)
	require.Equal(t, "private", visibility("Prefers release notes as bullet lists"), "an unknown channel is private")
	_, metrics := r.get("/metrics")
	failures := len(f.slack.Calls("conversations.info"))
	require.Positive(t, failures)
	require.True(t, hasMetric(metrics, fmt.Sprintf("mnemo_channel_type_unknown_total %d", failures)), "each failure is counted:\n%s", mnemoMetrics(metrics))

	f.slack.Fail("conversations.info", "")
	ts, _, _ = f.mention(ch, "remember that I prefer changelogs grouped by team", "")
	f.waitFinished(ts, "white_check_mark", 30*time.Second)
	require.Equal(t, "public", visibility("Prefers changelogs grouped by team"), "once Slack says so, it is public")
	_, metrics = r.get("/metrics")
	require.True(t, hasMetric(metrics, fmt.Sprintf("mnemo_channel_type_unknown_total %d", failures)), "a success is not counted:\n%s", mnemoMetrics(metrics))
}
