package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// An answer between one and two stream chunks long streams its start, and
// its end with the final flush; Slack answers that last chat.appendStream
// with 429. The message still ends as the whole answer (replaced with
// chat.update), not at the chunk before it.
func TestStreamedAnswerWhoseLastChunkIsRateLimitedEndsWhole(t *testing.T) {
	t.Parallel()
	answer := strings.TrimSpace(strings.Repeat("Every word of this answer matters to the person who asked. ", 5)) + " THE END."
	require.Greater(t, len(answer), agent.StreamChars)
	require.Less(t, len(answer), 2*agent.StreamChars)
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You are mnemo") {
			return fakellm.Reply{Text: answer}
		}
		return scripted.Memory()(n, req)
	})
	b.slack.RateLimitFor("chat.appendStream", 1, 0)
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "explain", "")
	b.waitDone(ch, root)
	st := b.slack.WaitStream(ch, root, 10*time.Second)
	require.NotContains(t, st.Text(), "THE END", "control: the last chunk did not stream")
	require.Len(t, b.slack.Calls("chat.appendStream"), 1, "control: the refused append was the last")
	shown, blocks := b.slack.Shown(ch, st.TS)
	require.Equal(t, slackapp.ToMrkdwn(answer), shown, "the message is the whole answer")
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	for _, m := range b.replies(ch, root, 1) {
		require.Equal(t, st.TS, m.TS, "nothing posted beside the stream")
	}
}

// A streamed answer whose final chat.update fails is not finished: the turn
// runs again (a resume, which does not stream). That attempt finds the
// streamed message by the metadata its chat.stopStream carried and
// finishes it with the answer, instead of posting the answer a second time.
func TestRetriedTurnFinishesTheStreamedMessageInsteadOfPostingAgain(t *testing.T) {
	t.Parallel()
	preamble := strings.Repeat("Let me look through the tool catalog for that first. ", 6)
	const answer = "Here is the **answer**, after the tools."
	b := startBot(t, preambleThenAnswer(preamble, func() fakellm.Reply { return fakellm.Reply{Text: answer} }))
	b.slack.FailNext("chat.update", "internal_error")
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "look something up", "")
	st := b.slack.WaitStream(ch, root, 20*time.Second)
	// The inbox runs the turn again after its first retry wait (5 s).
	b.slack.WaitReaction("add", "white_check_mark", root, 60*time.Second)
	require.True(t, strings.HasPrefix(st.Text(), preamble[:agent.StreamChars]), "the preamble streamed: %q", st.Text())
	for _, m := range b.slack.Posted() {
		require.False(t, m.Channel == ch && m.ThreadTS == root && !m.Updated && m.TS != st.TS, "a second message was posted: %q", m.Text)
	}
	require.Empty(t, b.slack.Calls("chat.postMessage"), "the answer was never posted")
	require.True(t, b.logs.WaitFor("reply parts posted by an earlier attempt were found, not posted again", 10*time.Second), "the retry found the streamed message")
	shown, blocks := b.slack.Shown(ch, st.TS)
	require.Equal(t, slackapp.ToMrkdwn(answer), shown, "the streamed message was finished with the answer")
	require.Contains(t, string(blocks), `"feedback_buttons"`)
}

// A process killed (kill -9) while its answer streams: the message it
// started has no metadata (chat.startStream takes none, and the stop that
// carries it never came). After a restart the turn runs again, and its
// answer ends in that message: one message answers the post, not a
// half-streamed one with a second beside it.
func TestFaultKillMidStreamThenRestartAnswersInTheSameMessage(t *testing.T) {
	t.Parallel()
	preamble := strings.Repeat("Let me look through the tool catalog for that first. ", 6)
	const answer = "Here is the **answer**, after the tools."
	g := newGate()
	var (
		mu   sync.Mutex
		held bool
	)
	f := newFaultBed(t, preambleThenAnswer(preamble, func() fakellm.Reply {
		mu.Lock()
		first := !held
		held = true
		mu.Unlock()
		if first {
			// The first attempt's process is killed while it waits here.
			close(g.started)
			<-g.release
		}
		return fakellm.Reply{Text: answer}
	}))
	g.hold(t)
	a := f.start("first")
	const ch = "C0STREAMKILL"
	ts, env, _ := f.mention(ch, "look something up", "")
	f.slack.WaitAck(env, 10*time.Second)
	g.waitStarted(t)
	inThread := func() []fakeslack.Stream {
		var out []fakeslack.Stream
		for _, st := range f.slack.Streams() {
			if st.Channel == ch && st.ThreadTS == ts {
				out = append(out, st)
			}
		}
		return out
	}
	require.Len(t, inThread(), 1, "the preamble streamed before the tool call")
	require.False(t, inThread()[0].Stopped)
	a.kill()

	b := f.start("restarted")
	f.waitFinished(ts, "white_check_mark", 90*time.Second)
	require.True(t, b.logs.WaitFor("the answer continues in the message an earlier attempt started", 10*time.Second), "the adoption is logged")
	streams := inThread()
	require.Len(t, streams, 1, "no second message was started beside the first")
	// The thread as conversations.replies shows it, metadata included: the
	// message answers the post, as a later attempt would find it.
	thread, _, _, err := slack.New("xoxb-test", slack.OptionAPIURL(f.slack.URL)).GetConversationReplies(
		&slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: ts, IncludeAllMetadata: true})
	require.NoError(t, err)
	var answers []string
	for _, m := range thread {
		if m.Metadata.EventType == "mnemo_reply" && m.Metadata.EventPayload["post_ts"] == ts {
			answers = append(answers, m.Timestamp)
		}
	}
	require.Equal(t, []string{streams[0].TS}, answers, "one message answers the post: the one the killed process started")
	shown, blocks := f.slack.Shown(ch, streams[0].TS)
	require.Equal(t, slackapp.ToMrkdwn(answer), shown, "finished with the answer")
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	for _, m := range f.replies(ch, ts) {
		require.Equal(t, streams[0].TS, m.TS, "a second message in the thread: %q", m.Text)
	}
}
