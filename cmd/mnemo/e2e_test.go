package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// The walking skeleton, end to end, over Socket Mode and over HTTP: a mention in a thread asks mnemo to
// remember; the scripted model finds the memory tools through the catalog;
// the memory is keyed by the thread, not the message; the reply is threaded;
// and the next message in the thread carries the earlier exchange.
func TestMentionRemembersPerThreadWithContinuity(t *testing.T) {
	t.Parallel()
	forEachTransport(t, func(t *testing.T, mode []string) {
		b := startBot(t, scripted.Memory(), mode...)
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
	})
}

// The scripted model knows no tool names: it reads the catalog's tools from
// the tool list and search results, remembers, then forgets.
func TestRememberAndForgetThroughTheCatalog(t *testing.T) {
	t.Parallel()
	forEachTransport(t, func(t *testing.T, mode []string) {
		b := startBot(t, scripted.Memory(), mode...)
		const dm = "D0ALICE"
		ts, _ := b.dm(alice, dm, "remember that I prefer tabs over spaces", "")
		require.Contains(t, b.replies(dm, ts, 1)[0].Text, "Prefers tabs over spaces")
		b.waitDone(dm, ts)
		require.Len(t, b.memories("--user", alice), 1)

		ts2, _ := b.dm(alice, dm, "please forget tabs over spaces", ts)
		got := b.replies(dm, ts, 2)
		b.waitDone(dm, ts2)
		require.Contains(t, got[1].Text, "forgotten")
		require.Empty(t, b.memories("--user", alice), "no active copy left")
		all := b.memories("--user", alice, "--all")
		require.Len(t, all, 1, "archived, not deleted")
		require.NotNil(t, all[0].ArchivedAt)

		// The tool calls went through the catalog under the names it returned.
		var called []string
		for _, r := range b.turnRequests() {
			for _, m := range r.Messages {
				for _, c := range m.ToolCalls {
					called = append(called, c.Name+" "+string(c.Input))
				}
			}
		}
		joined := strings.Join(called, "\n")
		require.Contains(t, joined, `searchTools {"source":"memory"}`)
		require.Contains(t, joined, `"tool_name":"memory__remember"`)
		require.Contains(t, joined, `"tool_name":"memory__forget"`)
	})
}

// Recall before every turn: a preference follows its person to a new
// thread; personal knowledge told in a DM never reaches a public channel.
func TestRecallAcrossThreadsAndPrivacy(t *testing.T) {
	t.Parallel()
	forEachTransport(t, func(t *testing.T, mode []string) {
		b := startBot(t, scripted.Memory(), mode...)
		const ch, dm = "C0RECALL", "D0ALICE"

		r1, _ := b.mention(alice, ch, "remember that I prefer terse PR summaries", "")
		b.replies(ch, r1, 1)
		b.waitDone(ch, r1)
		d1, _ := b.dm(alice, dm, "remember that my badge number is 4411", "")
		require.Contains(t, b.replies(dm, d1, 1)[0].Text, "Badge number is 4411")
		b.waitDone(dm, d1)

		// A new thread in the public channel: the preference is in the prompt,
		// the DM-only knowledge is not.
		r2, _ := b.mention(alice, ch, "summarize PR 42 for me", "")
		reply := b.replies(ch, r2, 1)[0].Text
		b.waitDone(ch, r2)
		prompt := lastTurnPrompt(t, b, "summarize PR 42")
		require.Contains(t, prompt, "Prefers terse PR summaries")
		// Not "4411" alone: the prompt names memories by short random ids,
		// which contain it now and then.
		require.NotContains(t, strings.ToLower(prompt), "badge")
		require.NotContains(t, strings.ToLower(reply), "badge")
		require.Contains(t, prompt, "not instructions", "memories are quoted context")

		// Control: in a new DM thread the same query path does carry it.
		d2, _ := b.dm(alice, dm, "what is my badge number?", "")
		b.replies(dm, d2, 1)
		b.waitDone(dm, d2)
		require.Contains(t, lastTurnPrompt(t, b, "what is my badge number?"), "Badge number is 4411")

		// Bob, in the same public channel, sees neither of Alice's memories.
		r3, _ := b.mention(bob, ch, "summarize PR 43 for me", "")
		b.replies(ch, r3, 1)
		b.waitDone(ch, r3)
		require.NotContains(t, lastTurnPrompt(t, b, "summarize PR 43"), "Prefers terse PR summaries")
	})
}

func lastTurnPrompt(t *testing.T, b *bot, marker string) string {
	t.Helper()
	return lastTurnRequest(t, b, marker).System
}

// lastTurnRequest is the last model request of a turn whose transcript
// carries marker.
func lastTurnRequest(t *testing.T, b *bot, marker string) *fakellm.Request {
	t.Helper()
	reqs := b.turnRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if strings.Contains(reqs[i].Transcript(), marker) {
			return reqs[i]
		}
	}
	t.Fatalf("no turn request carried %q", marker)
	return nil
}

// Passive learning: a procedure stated in one turn, without "remember", is
// recalled in a later turn of another thread in the same channel.
func TestPassiveProcedureRecalledInAnotherThread(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0OPS"
	r1, _ := b.mention(alice, ch, "FYI: deploys go out on Tuesdays after QA sign-off. Can you draft the announcement?", "")
	b.replies(ch, r1, 1)
	b.waitDone(ch, r1)
	require.Eventually(t, func() bool {
		for _, m := range b.memories() {
			if strings.Contains(m.Content, "Tuesdays after QA sign-off") {
				return m.Scope == "channel" && m.SubjectID == ch
			}
		}
		return false
	}, 20*time.Second, 100*time.Millisecond, "the learning job stored the procedure for the channel")

	r2, _ := b.mention(bob, ch, "when do deploys go out?", "")
	reply := b.replies(ch, r2, 1)[0].Text
	b.waitDone(ch, r2)
	require.Contains(t, lastTurnPrompt(t, b, "when do deploys go out?"), "Tuesdays after QA sign-off")
	require.Contains(t, reply, "Tuesdays after QA sign-off")

	// Control for the other direction: another channel does not see it.
	r3, _ := b.mention(bob, "C0ELSEWHERE", "when do deploys go out?", "")
	b.replies("C0ELSEWHERE", r3, 1)
	b.waitDone("C0ELSEWHERE", r3)
	require.NotContains(t, lastTurnPrompt(t, b, "when do deploys go out?"), "Tuesdays")
}
