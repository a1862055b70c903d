package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// In a DM, a top-level message continues the DM's recent conversation: "yes
// please do" reaches the model with the offer it answers. A thread in a DM
// is its own conversation, and channels keep per-thread context.
func TestDMTopLevelMessageContinuesTheConversation(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const dm, ch = "D0ALICE", "C0CONT"
	first, _ := b.dm(alice, dm, "can you draft the release announcement for version nine?", "")
	b.replies(dm, first, 1)
	b.waitDone(dm, first)

	second, _ := b.dm(alice, dm, "yes please do", "")
	b.replies(dm, second, 1)
	b.waitDone(dm, second)
	got := lastTurnTranscript(t, b, "yes please do")
	require.Contains(t, got, "draft the release announcement for version nine", "the earlier top-level exchange")
	require.Contains(t, got, "[assistant]", "with the bot's reply in it")

	// A reply in a DM thread is its own conversation.
	inThread, _ := b.dm(alice, dm, "make it shorter please", first)
	b.replies(dm, first, 2)
	b.waitDone(dm, inThread)
	shorter := lastTurnTranscript(t, b, "make it shorter please")
	require.NotContains(t, shorter, "yes please do")
	// The control: the thread's turn does carry history, its own root, so
	// the top-level post is missing because it is another conversation.
	require.Contains(t, shorter, "draft the release announcement", "the thread's root")

	// Channels: a new top-level mention does not see the previous thread.
	c1, _ := b.mention(alice, ch, "what is the deploy day for the payments team?", "")
	b.replies(ch, c1, 1)
	b.waitDone(ch, c1)
	c2, _ := b.mention(alice, ch, "and for search?", "")
	b.replies(ch, c2, 1)
	b.waitDone(ch, c2)
	require.NotContains(t, lastTurnTranscript(t, b, "and for search?"), "payments team")
	// The control: a reply inside c1's thread does see "payments team", so
	// c2 lacks it because it is another thread.
	inC1, _ := b.mention(alice, ch, "and on bank holidays?", c1)
	b.replies(ch, c1, 2)
	b.waitDone(ch, inC1)
	require.Contains(t, lastTurnTranscript(t, b, "and on bank holidays?"), "payments team", "the thread's own history")
}

func lastTurnTranscript(t *testing.T, b *bot, marker string) string {
	t.Helper()
	return lastTurnRequest(t, b, marker).Transcript()
}
