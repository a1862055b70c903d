package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/memory"
)

// A person can ask mnemo to repeat text that reads as a special mention
// (Slack sends what they typed escaped, &lt;!channel&gt;, and mnemo reads
// it as typed), and an answer can quote a stored memory that holds one:
// what mnemo posts shows them as text, so nobody is notified; the person
// it names by id stays a mention.
func TestAnAnswerNeverNotifiesAChannelOrAGroup(t *testing.T) {
	t.Parallel()
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if !strings.HasPrefix(req.System, "You are mnemo") {
			return scripted.Memory()(n, req)
		}
		asked := req.Messages[len(req.Messages)-1].Text
		_, echo, _ := strings.Cut(asked, "exactly: ")
		return fakellm.Reply{Text: echo + "\n\nYour note says: > our alias is <!here>, or <!subteam^S0OPS|@ops>, or <!everyone>. Asked by <@" + alice + ">."}
	})
	// Slack refuses to stream here: the answer is posted and updated.
	b.slack.FailNext("chat.startStream", "channel_type_not_supported")
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "reply with exactly: &lt;!channel&gt; outage", "")
	b.waitDone(ch, root)

	var model string
	for _, r := range b.turnRequests() {
		model += r.Transcript()
	}
	require.Contains(t, model, "<!channel> outage", "the model reads what the person typed")

	posts := b.replies(ch, root, 1)
	shown, blocks := b.slack.Shown(ch, posts[0].TS)
	t.Logf("shown: %s", shown)
	require.Contains(t, shown, "&lt;!channel&gt; outage")
	require.Contains(t, shown, "&lt;!here&gt;")
	require.Contains(t, shown, "&lt;!subteam^S0OPS|@ops&gt;")
	require.Contains(t, shown, "&lt;!everyone&gt;")
	require.Contains(t, shown, "<@"+alice+">", "a person's mention is kept")
	var sections []struct {
		Text struct{ Text string } `json:"text"`
	}
	require.NoError(t, json.Unmarshal(blocks, &sections))
	require.Contains(t, sections[0].Text.Text, "&lt;!channel&gt; outage", "the blocks show it as text too")
	calls := append(b.slack.Calls("chat.postMessage"), b.slack.Calls("chat.update")...)
	require.NotEmpty(t, calls)
	for _, c := range calls {
		for _, field := range []string{"text", "blocks"} {
			require.NotContains(t, c.Form.Get(field), "<!", "%s %s", c.Method, field)
		}
	}
}

// Slack escapes &, < and > in a slash command's text: /mnemo memories R&D
// arrives as "R&amp;D", and searches for what was typed. Typed text that
// looks like a mention is searched for, not taken as one.
func TestSlashCommandQueryIsSearchedAsTyped(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_ADMINS", carol)
	const ch = "C0TEAM"
	m := b.seed(alice, memory.ScopePersonal, ch, "The R&D budget review is on <Fridays>")

	r := b.command(alice, ch, "memories R&amp;D")
	require.Contains(t, string(r.Blocks), m.ShortID(), "found: %s", r.Text)
	require.Contains(t, string(r.Blocks), `matching “R\u0026amp;D”`, "the query is shown as typed, escaped for Slack")
	r = b.command(alice, ch, "memories &lt;fridays&gt;")
	require.Contains(t, string(r.Blocks), m.ShortID(), "found: %s", r.Text)

	// Bob typed "<@U0ALICE>" as text, not as a mention: not a request to
	// see Alice's memories (which needs an admin), but a search of his own.
	r = b.command(bob, ch, "memories &lt;@"+alice+"&gt;")
	require.NotContains(t, r.Text, "Only an admin")
	require.Contains(t, r.Text, "What mnemo remembers about <@"+bob+"> matching “&lt;@"+alice+"&gt;”: nothing.")
	// A real mention still names whose memories.
	r = b.command(bob, ch, "memories <@"+alice+"|alice> budget")
	require.Contains(t, r.Text, "Only an admin")
}

// A recalled memory's text, what someone wrote, is shown by the Inspect
// shortcut inside a code block: a ``` in it cannot close the block, and a
// <!channel> in it is not a mention. `mnemo turns show` shows it as a Go
// string literal, which reads back as the text.
func TestInspectShowsAMemorysTextInsideItsCodeBlock(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_ADMINS", carol)
	const ch = "C0TEAM"
	const content = "Deploy alias is <!channel> & R&D, see ``` *not bold* ``` done"
	m := b.seed(bob, memory.ScopeChannel, ch, content)
	require.Equal(t, content, m.Content)
	root, _ := b.mention(alice, ch, "what do you remember about the deploy alias?", "")
	b.waitDone(ch, root)
	reply := b.replies(ch, root, 1)[0]

	before := len(b.responses())
	env := b.slack.SendInteractive(map[string]any{
		"type": "message_action", "callback_id": "mnemo_inspect", "trigger_id": "trig",
		"team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": carol, "team_id": fakeslack.TeamID},
		"channel": map[string]any{"id": ch}, "message": map[string]any{"ts": reply.TS, "type": "message"},
		"response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
	})
	b.slack.WaitAck(env, 5*time.Second)
	got := b.nextResponse(before).Text
	t.Logf("Inspect shortcut:\n%s", got)
	require.Contains(t, got, m.ShortID(), "the memory was recalled and is shown")
	require.True(t, strings.HasPrefix(got, "```\n") && strings.HasSuffix(got, "```"))
	require.Equal(t, 2, strings.Count(got, "```"), "one code block, never closed early")
	require.NotContains(t, got, "<!")
	require.Contains(t, got, `"Deploy alias is &lt;!channel> & R&D, see`, "the text as written, its mention shown and not sent")

	out, stderr, code := b.turnsShow(t, nil, "--as", carol, strconv.FormatInt(b.turnID(t, ch, root), 10))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, strconv.Quote(content), "the terminal shows the text quoted")
}

// A long answer is streamed as the model writes it, in Markdown that
// ToMrkdwn never sees: its special mentions are broken there too, one
// split between two pieces included, and the final message shows them as
// text.
func TestAStreamedAnswerNeverNotifiesAChannel(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("The outage notes follow. ", 12)
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if !strings.HasPrefix(req.System, "You are mnemo") {
			return scripted.Memory()(n, req)
		}
		return fakellm.Reply{Text: long + "Tell <!channel> and <!here> now. " + long}
	})
	const ch = "C0GENERAL"
	root, _ := b.mention(alice, ch, "write the outage notes, long please", "")
	b.waitDone(ch, root)
	streamed := append(b.slack.Calls("chat.startStream"), b.slack.Calls("chat.appendStream")...)
	require.NotEmpty(t, streamed, "the answer was streamed")
	var all string
	for _, c := range streamed {
		all += c.Form.Get("markdown_text")
	}
	require.Contains(t, all, "Tell <", "the control: the streamed text holds the mention's place")
	require.NotContains(t, all, "<!", "a special mention in the streamed Markdown")
	for _, c := range append(b.slack.Calls("chat.stopStream"), b.slack.Calls("chat.update")...) {
		for _, field := range []string{"markdown_text", "text", "blocks"} {
			require.NotContains(t, c.Form.Get(field), "<!", "%s %s", c.Method, field)
		}
	}
}
