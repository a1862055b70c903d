package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/slackapp"
	"github.com/mnemo-bot/mnemo/tools"
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
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if !strings.HasPrefix(req.System, "You are mnemo") {
			return scripted.Memory()(n, req)
		}
		if len(req.Messages[len(req.Messages)-1].ToolResults) == 0 {
			return fakellm.Reply{Text: preamble, ToolCalls: []llm.ToolCall{{ID: "c1", Name: tools.SearchToolsName, Input: json.RawMessage(`{"query":"anything"}`)}}}
		}
		return fakellm.Reply{Text: answer}
	})
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
