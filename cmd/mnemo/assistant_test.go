package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
	"github.com/mnemo-bot/mnemo/tools"
)

// longPreference is long enough that its confirmation streams in parts.
const longPreference = "release notes that list every breaking change first, then new features, then fixes, " +
	"each with a link to its pull request and the name of whoever reviewed it, so that the person on call can scan them in under a minute"

// statuses are the status lines set on an assistant thread, in order.
func (b *bot) statuses(channel, threadTS string) []string {
	var out []string
	for _, c := range b.slack.Calls("assistant.threads.setStatus") {
		if c.Form.Get("channel_id") == channel && c.Form.Get("thread_ts") == threadTS {
			out = append(out, c.Form.Get("status"))
		}
	}
	return out
}

// pressFeedback presses a reply's 👍 or 👎 as user, as Slack sends a
// feedback_buttons action.
func (b *bot) pressFeedback(user, channel, messageTS, value string) {
	b.t.Helper()
	env := b.slack.SendInteractive(map[string]any{
		"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": user, "team_id": fakeslack.TeamID},
		"api_app_id": fakeslack.AppID, "trigger_id": "trig", "channel": map[string]any{"id": channel},
		"container": map[string]any{"type": "message", "message_ts": messageTS, "channel_id": channel, "is_ephemeral": false},
		"message":   map[string]any{"ts": messageTS, "type": "message"},
		"actions":   []any{map[string]any{"type": "feedback_buttons", "action_id": slackapp.ActionFeedback, "block_id": "mnemo_feedback", "value": value, "action_ts": b.nextTS()}},
	})
	b.slack.WaitAck(env, 5*time.Second)
}

// feedback is user's stored verdict on the turn that posted messageTS, or "".
func (b *bot) feedback(channel, messageTS, user string) string {
	b.t.Helper()
	var v string
	err := b.db.Pool.QueryRow(context.Background(), `SELECT f.value FROM turn_feedback f
		JOIN session_messages m ON m.turn_id = f.turn_id
		WHERE m.channel_id = $1 AND m.ts = $2 AND f.user_id = $3`, channel, messageTS, user).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return ""
	}
	require.NoError(b.t, err)
	return v
}

// An assistant thread, as the container drives it: prompts when it opens
// (one made from what mnemo remembers of the person, nothing of anyone
// else's), a title from the first request, the status line following the
// turn's steps through the memory tools, the answer streamed through
// Slack's streaming methods ending as the model's text with feedback
// buttons, and a press stored with the turn, replaced by a second press and
// counted in /mnemo stats.
func TestAssistantThreadPromptsStatusStreamAndFeedback(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const dm = "D0ALICE"
	b.seed(alice, memory.ScopePersonal, dm, "Prefers tea over coffee")
	b.seed(bob, memory.ScopePersonal, "D0BOB", "Prefers window seats")

	thread := b.nextTS()
	b.slack.WaitAck(b.slack.SendAssistantThreadStarted(alice, dm, thread), 5*time.Second)
	var prompts []slackPrompt
	require.Eventually(t, func() bool { return len(b.slack.Calls("assistant.threads.setSuggestedPrompts")) > 0 }, 10*time.Second, 20*time.Millisecond)
	call := b.slack.Calls("assistant.threads.setSuggestedPrompts")[0]
	require.Equal(t, dm, call.Form.Get("channel_id"))
	require.Equal(t, thread, call.Form.Get("thread_ts"))
	require.NoError(t, json.Unmarshal([]byte(call.Form.Get("prompts")), &prompts))
	var messages []string
	for _, p := range prompts {
		require.NotEmpty(t, p.Title)
		messages = append(messages, p.Message)
	}
	require.Contains(t, messages, "What do you remember about me?")
	require.Contains(t, messages, "Forget Prefers tea over coffee", "one prompt is made from her own memory")
	require.NotContains(t, call.Form.Get("prompts"), "window seats", "nothing of Bob's")

	request := "remember that I prefer " + longPreference
	ts, _ := b.dm(alice, dm, request, thread)
	st := b.slack.WaitStream(dm, thread, 20*time.Second)
	b.waitDone(dm, ts)

	// The final text is the model's, streamed in more than one part.
	ms := b.memories("--user", alice)
	var stored string
	for _, m := range ms {
		if strings.Contains(m.Content, "breaking change") {
			stored = m.Content
		}
	}
	require.NotEmpty(t, stored, "the turn called the memory tools and stored the preference")
	want := "Got it, I'll remember: " + stored
	require.Equal(t, want, st.Text())
	require.Greater(t, len(st.Appends), 1, "streamed in parts")
	require.Equal(t, alice, st.RecipientUser)
	require.Contains(t, string(st.Blocks), `"feedback_buttons"`)
	shown, _ := b.slack.Shown(dm, st.TS)
	require.Equal(t, want, shown, "no chat.update replaced it")
	reqs := b.turnRequests()
	require.True(t, reqs[len(reqs)-1].Stream, "the model was asked for a stream")

	// The status line followed the turn's steps, and the title is the request.
	require.Equal(t, []string{
		"is " + agent.StatusRecalling, "is " + agent.StatusThinking, "is " + agent.StatusSearching,
		"is " + agent.StatusThinking, "is " + agent.StatusSaving, "is " + agent.StatusThinking,
	}, b.statuses(dm, thread))
	titles := b.slack.Calls("assistant.threads.setTitle")
	require.Len(t, titles, 1)
	require.Equal(t, thread, titles[0].Form.Get("thread_ts"))
	require.True(t, strings.HasPrefix(request, strings.TrimSuffix(titles[0].Form.Get("title"), "…")), titles[0].Form.Get("title"))

	// A second request in the thread keeps the title.
	ts2, _ := b.dm(alice, dm, "hi again", thread)
	b.waitDone(dm, ts2)
	require.Len(t, b.slack.Calls("assistant.threads.setTitle"), 1, "the title comes from the first request only")

	// Feedback: stored with the turn, one per person, replaced, counted.
	require.Empty(t, b.feedback(dm, st.TS, alice))
	b.pressFeedback(alice, dm, st.TS, "positive")
	require.Eventually(t, func() bool { return b.feedback(dm, st.TS, alice) == "positive" }, 10*time.Second, 20*time.Millisecond)
	b.pressFeedback(alice, dm, st.TS, "negative")
	require.Eventually(t, func() bool { return b.feedback(dm, st.TS, alice) == "negative" }, 10*time.Second, 20*time.Millisecond)
	var n int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM turn_feedback").Scan(&n))
	require.Equal(t, 1, n, "one verdict per person per turn")
	require.Contains(t, b.command(admin, "C0GENERAL", "stats").Text, "feedback: 0 👍, 1 👎")
}

type slackPrompt struct {
	Title   string `json:"title"`
	Message string `json:"message"`
}

// A stream that fails midway ends with the failure sentence in the same
// message; in a channel, where the answer is posted once and then updated,
// the same holds for the updated message.
func TestStreamFailingMidwayEndsInTheSameMessage(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("The answer keeps going with more words about the question. ", 12)
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You are mnemo") {
			return fakellm.Reply{Text: long, ErrorAfter: 60, ErrorMessage: "Overloaded"}
		}
		return scripted.Memory()(n, req)
	})
	sentence := agent.FailureSentence(&agent.ModelError{Err: &llm.Error{Class: llm.ClassOverloaded}}, agent.Outcome{})

	const dm = "D0ALICE"
	thread := b.nextTS()
	ts, _ := b.dm(alice, dm, "tell me a long story", thread)
	b.slack.WaitReaction("add", "warning", ts, 20*time.Second)
	st := b.slack.WaitStream(dm, thread, 5*time.Second)
	require.True(t, strings.HasSuffix(st.Text(), "\n\n"+sentence), st.Text())
	partial := strings.TrimSuffix(st.Text(), "\n\n"+sentence)
	require.NotEmpty(t, partial)
	require.True(t, strings.HasPrefix(long, partial), "what streamed is the model's text so far")
	for _, m := range b.slack.Posted() {
		require.False(t, m.Channel == dm && m.TS != st.TS && m.Text == sentence, "the sentence is not posted on its own")
	}
	require.NotEmpty(t, b.statuses(dm, thread), "the assistant thread had a status line")

	// A channel streams too, and ends the same way.
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "tell me a long story", "")
	b.slack.WaitReaction("add", "warning", root, 20*time.Second)
	cst := b.slack.WaitStream(ch, root, 10*time.Second)
	require.True(t, strings.HasSuffix(cst.Text(), "\n\n"+sentence), cst.Text())
	require.NotEmpty(t, strings.TrimSuffix(cst.Text(), "\n\n"+sentence))
	require.Equal(t, alice, cst.RecipientUser)
	for _, m := range b.replies(ch, root, 1) {
		require.Equal(t, cst.TS, m.TS, "nothing posted beside the stream")
	}
	require.Empty(t, b.statuses(ch, root), "a channel shows reactions, not a status line")
}

// preambleThenAnswer is a model whose turn writes preamble and calls a tool
// (searchTools), then answers with answer() once it has the tool's result;
// learning and reviews get scripted.Memory's answers.
func preambleThenAnswer(preamble string, answer func() fakellm.Reply) fakellm.Script {
	return func(n int, req *fakellm.Request) fakellm.Reply {
		if !strings.HasPrefix(req.System, "You are mnemo") {
			return scripted.Memory()(n, req)
		}
		if len(req.Messages[len(req.Messages)-1].ToolResults) == 0 {
			return fakellm.Reply{Text: preamble, ToolCalls: []llm.ToolCall{{ID: "c1", Name: tools.SearchToolsName, Input: json.RawMessage(`{"query":"anything"}`)}}}
		}
		return answer()
	}
}

// Text the model writes before calling tools may stream, since it is shown
// as it comes; the message still ends as the final answer alone, replaced
// with chat.update, with the feedback buttons.
func TestStreamedPreambleIsReplacedByTheAnswer(t *testing.T) {
	t.Parallel()
	preamble := strings.Repeat("Let me look through the tool catalog for that first. ", 6)
	const answer = "Here is the **answer**, after the tools."
	b := startBot(t, preambleThenAnswer(preamble, func() fakellm.Reply { return fakellm.Reply{Text: answer} }))
	const dm = "D0ALICE"
	thread := b.nextTS()
	ts, _ := b.dm(alice, dm, "look something up", thread)
	st := b.slack.WaitStream(dm, thread, 20*time.Second)
	b.waitDone(dm, ts)
	require.True(t, strings.HasPrefix(st.Text(), preamble[:agent.StreamChars]), "the preamble streamed: %q", st.Text())
	require.Empty(t, st.Blocks, "the buttons go with the final text")
	shown, blocks := b.slack.Shown(dm, st.TS)
	require.Equal(t, slackapp.ToMrkdwn(answer), shown)
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	require.Contains(t, string(blocks), slackapp.ToMrkdwn(answer))
}

// In a channel the answer streams too, to the person who asked (Slack
// requires recipient_user_id and recipient_team_id outside a DM, and the
// fake Slack refuses a stream without them), ending as the model's text
// with the feedback buttons.
func TestChannelAnswerIsStreamedToItsAsker(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Another sentence of a long and careful answer. ", 14)
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You are mnemo") {
			return fakellm.Reply{Text: long}
		}
		return scripted.Memory()(n, req)
	})
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "explain at length", "")
	b.waitDone(ch, root)
	st := b.slack.WaitStream(ch, root, 10*time.Second)
	require.Equal(t, alice, st.RecipientUser)
	require.Equal(t, fakeslack.TeamID, st.RecipientTeam)
	require.Greater(t, len(st.Appends), 1, "streamed in parts")
	want := slackapp.ToMrkdwn(strings.TrimSpace(long))
	shown, blocks := b.slack.Shown(ch, st.TS)
	require.Equal(t, want, slackapp.ToMrkdwn(strings.TrimSpace(shown)))
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	require.Empty(t, b.slack.Calls("chat.update"), "a stream needs no updates")
}

// When Slack refuses to stream in a channel, the answer is posted once and
// updated as it grows, ending as the model's text with the feedback
// buttons, even when Slack rate-limits an update.
func TestChannelAnswerIsPostedAndUpdatedWhenSlackRefusesToStream(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Another sentence of a long and careful answer. ", 14)
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You are mnemo") {
			return fakellm.Reply{Text: long}
		}
		return scripted.Memory()(n, req)
	})
	b.slack.FailNext("chat.startStream", "channel_type_not_supported")
	b.slack.RateLimit("chat.update", 1)
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "explain at length", "")
	b.waitDone(ch, root)
	posts := b.replies(ch, root, 1)
	require.Len(t, posts, 1, "one message, updated")
	want := slackapp.ToMrkdwn(strings.TrimSpace(long))
	shown, blocks := b.slack.Shown(ch, posts[0].TS)
	require.Equal(t, want, shown)
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	require.NotEqual(t, want, posts[0].Text, "the first post was the start of the answer")
	require.True(t, strings.HasPrefix(want, posts[0].Text))
	require.Len(t, b.slack.Calls("chat.startStream"), 1, "the stream was tried, and refused")
	require.Empty(t, b.slack.Streams())
}
