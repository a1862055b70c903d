package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/scripted"
)

// The walking skeleton, end to end: a mention in a thread asks mnemo to
// remember; the scripted model finds the memory tools through the catalog;
// the memory is keyed by the thread, not the message; the reply is threaded;
// and the next message in the thread carries the earlier exchange.
func TestMentionRemembersPerThreadWithContinuity(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0GENERAL"

	root, _ := b.mention(alice, ch, "hi there", "")
	b.replies(ch, root, 1)
	b.waitDone(ch, root)

	second, _ := b.mention(alice, ch, "remember that I prefer terse PR summaries", root)
	got := b.replies(ch, root, 2)
	b.waitDone(ch, second)
	require.Contains(t, got[1].Text, "Prefers terse PR summaries")

	ms := b.memories("--user", alice)
	require.Len(t, ms, 1, "exactly one active memory of the user")
	require.Equal(t, sourceKey(ch, root), ms[0].SourceKey, "keyed by the thread's root, not the message")
	require.NotEqual(t, sourceKey(ch, second), ms[0].SourceKey)
	require.Equal(t, "Prefers terse PR summaries", ms[0].Content)
	require.Equal(t, "personal", ms[0].Scope)
	require.Equal(t, "user", ms[0].SubjectType)
	require.Equal(t, alice, ms[0].SubjectID)
	// The same query finds it by thread too.
	require.Len(t, b.memories("--source-key", sourceKey(ch, root)), 1)

	third, _ := b.mention(alice, ch, "what do you know about me?", root)
	all := b.replies(ch, root, 3)
	b.waitDone(ch, third)
	require.Len(t, all, 3, "one threaded reply per mention")
	for _, m := range all {
		require.Equal(t, root, m.ThreadTS)
	}

	// The model saw the thread so far on the second and third turns.
	reqs := b.turnRequests()
	var secondTurn, thirdTurn string
	for _, r := range reqs {
		tr := r.Transcript()
		if strings.Contains(tr, "what do you know about me?") && thirdTurn == "" {
			thirdTurn = tr
		}
		if strings.Contains(tr, "remember that I prefer") && secondTurn == "" {
			secondTurn = tr
		}
	}
	require.Contains(t, secondTurn, "hi there", "second turn carries the first exchange")
	require.Contains(t, secondTurn, all[0].Text)
	require.Contains(t, thirdTurn, "remember that I prefer terse PR summaries")
	require.Contains(t, thirdTurn, all[1].Text)
}
