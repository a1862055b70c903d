package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/memory"
)

// Issue 20, item 7: the App Home's Forget button works for every memory it
// lists, the shared memories its owner wrote included (a channel memory, a
// thread-only instruction), with the authorization of `/mnemo forget`: Bob
// pressing Forget on his Home with the id of Alice's channel memory forgets
// nothing, as `/mnemo forget` by Bob outside that channel does not.
func TestHomeForgetWorksForSharedMemories(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	channelMem := b.seed(alice, memory.ScopeChannel, "C0TEAM", "Deploys go out on Tuesdays after QA sign-off")
	threadMem := b.seed(alice, memory.ScopeConversation, "C0TEAM", "The incident in this thread was caused by the cache TTL")
	personal := b.seed(alice, memory.ScopePersonal, "D0ALICE", "I prefer replies in French")

	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": alice, "channel": "D0ALICE", "tab": "home", "event_ts": "1800000000.000100"}), 5*time.Second)
	view := string(b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool {
		return strings.Contains(string(v), "Deploys go out on Tuesdays")
	}))
	require.Contains(t, view, "What you asked mnemo to remember for others")
	for _, m := range []memory.Memory{channelMem, threadMem, personal} {
		require.Contains(t, view, `"value":"`+m.ID.String()+`"`, "a Forget button for %q", m.Content)
	}

	for _, m := range []memory.Memory{channelMem, threadMem, personal} {
		b.click(alice, "", "mnemo_forget", m.ID.String())
		b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return !strings.Contains(string(v), m.Content) })
		require.True(t, b.archived(m.ShortID()), "%q forgotten from the Home", m.Content)
	}

	// Bob, on his own Home, with the id of another of Alice's channel
	// memories.
	other := b.seed(alice, memory.ScopeChannel, "C0TEAM", "Staging is refreshed nightly from production snapshots")
	b.click(bob, "", "mnemo_forget", other.ID.String())
	b.slack.WaitView(bob, 10*time.Second, nil) // his Home, published again once refused
	require.False(t, b.archived(other.ShortID()), "Bob is not its author, and not in its channel here")
}
