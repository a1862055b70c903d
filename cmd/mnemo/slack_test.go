package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// sessionRows counts the session-log rows of a thread; the query is the
// positive control for every "nothing stored" assertion below.
func (b *bot) sessionRows(channel, root string) int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM session_messages WHERE source_key = $1", sourceKey(channel, root)).Scan(&n))
	return n
}

func (b *bot) sessionRowsWithTS(ts string) int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM session_messages WHERE ts = $1", ts).Scan(&n))
	return n
}

// arrivals counts the inbox's arrivals of the post at ts. The arrival is
// written before the envelope is acked, and nothing answers a post without
// one: after WaitAck, none means the post will never be answered.
func (b *bot) arrivals(ts string) int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM inbox_arrivals WHERE ts = $1", ts).Scan(&n))
	return n
}

// postedIn counts the bot's messages in channel.
func (b *bot) postedIn(channel string) int {
	n := 0
	for _, m := range b.slack.Posted() {
		if m.Channel == channel {
			n++
		}
	}
	return n
}

func TestBadTimestampIsRejectedAndNothingStored(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0BADTS"

	// What each rejected event asks: a memory specific enough to be stored,
	// as the control at the end shows, so that none in the listing means
	// the events were rejected, not that the memory was refused.
	const rememberTabs = "remember that I prefer tabs for indentation"

	// Positive control: a valid post in the same channel is stored and answered.
	good, _ := b.mention(alice, ch, "hello", "")
	b.replies(ch, good, 1)
	b.waitDone(ch, good)
	require.Equal(t, 2, b.sessionRows(ch, good), "control: the query finds a thread's rows")
	require.Equal(t, 1, b.arrivals(good), "control: the query finds a post's arrival")

	for _, bad := range []struct{ ts, threadTS string }{
		{"17000000.memory-explicit", ""}, // rejected: label-suffixed
		{"1700000000", ""},
		{b.nextTS(), "17000000.memory-explicit"}, // rejected: label-suffixed thread_ts
		{b.nextTS(), "1700000000.1"},
	} {
		ev := map[string]any{"type": "app_mention", "user": alice, "text": "<@" + fakeslack.BotUserID + "> " + rememberTabs, "ts": bad.ts, "channel": ch}
		if bad.threadTS != "" {
			ev["thread_ts"] = bad.threadTS
		}
		env := b.slack.SendEvent(ev)
		b.slack.WaitAck(env, 5*time.Second)
		require.Eventually(t, func() bool { return logLine(b.logs.String(), env) != "" }, 5*time.Second, 20*time.Millisecond)
		line := logLine(b.logs.String(), env)
		require.Contains(t, line, `"level":"error"`)
		require.Contains(t, line, "bad timestamp")
		badValue := bad.ts
		if bad.threadTS != "" {
			badValue = bad.threadTS
		}
		require.Contains(t, line, badValue, "the log names the bad value")
		require.Equal(t, 0, b.sessionRowsWithTS(bad.ts), "nothing stored for the rejected post")
		require.Equal(t, 0, b.arrivals(bad.ts), "nor taken into the inbox, so it is never answered")
	}
	require.Empty(t, b.memories("--all"), "no memory from rejected events")
	require.Equal(t, 1, b.postedIn(ch), "only the control post was answered")

	// The control for the listing: the rejected events' text, in a valid
	// post, does store a memory, and the same listing finds it.
	ok, _ := b.mention(alice, ch, rememberTabs, "")
	b.waitDone(ch, ok)
	require.NotEmpty(t, b.memories("--all"), "control: the listing finds the memory a valid post stores")
}

func logLine(logs, needle string) string {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, needle) && strings.HasPrefix(l, "{") {
			return l
		}
	}
	return ""
}

func TestRetriesAndDoubleDeliveryAnswerOnce(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0RETRY"

	ts := b.nextTS()
	ev := map[string]any{"type": "app_mention", "user": alice, "text": "<@" + fakeslack.BotUserID + "> hi", "ts": ts, "channel": ch}
	first := b.slack.SendEvent(ev, fakeslack.EventOptions{EventID: "Ev0RETRY1"})
	retry := b.slack.SendEvent(ev, fakeslack.EventOptions{EventID: "Ev0RETRY1", RetryAttempt: 1})
	// The same post as a message event (channels:history) with its own event id.
	msg := b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "channel", "user": alice, "text": ev["text"], "ts": ts, "channel": ch})
	for _, e := range []string{first, retry, msg} {
		b.slack.WaitAck(e, 5*time.Second)
	}
	b.replies(ch, ts, 1)
	b.waitDone(ch, ts)

	// A second, distinct post in the thread is still answered: the dedup
	// keys on event and post, not on the thread.
	next, _ := b.mention(alice, ch, "and again", ts)
	b.replies(ch, ts, 2)
	b.waitDone(ch, next)
	// Barrier: a thread's posts are answered one at a time, in order, so
	// once a later post is answered no earlier one can be answered again.
	last, _ := b.mention(alice, ch, "one more", ts)
	b.replies(ch, ts, 3)
	b.waitDone(ch, last)
	require.Len(t, b.replies(ch, ts, 3), 3, "each post answered exactly once")
	require.Len(t, b.turnRequests(), 3)
}

func TestIgnoresBotsEditsAndOwnMessages(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const dm = "D0ALICE"
	ignored := []map[string]any{
		{"type": "message", "channel_type": "im", "user": fakeslack.BotUserID, "bot_id": fakeslack.BotID, "text": "my own reply", "ts": b.nextTS(), "channel": dm},
		{"type": "message", "channel_type": "im", "bot_id": "B0OTHER", "username": "otherbot", "text": "beep", "ts": b.nextTS(), "channel": dm},
		{"type": "message", "subtype": "message_changed", "channel_type": "im", "ts": b.nextTS(), "channel": dm, "message": map[string]any{"user": alice, "text": "edited", "ts": "1800000001.000200"}},
		{"type": "message", "subtype": "channel_join", "channel_type": "channel", "user": alice, "text": "<@U0ALICE> has joined", "ts": b.nextTS(), "channel": "C0JOIN"},
		{"type": "message", "subtype": "message_deleted", "channel_type": "im", "ts": b.nextTS(), "channel": dm, "deleted_ts": "1800000001.000200"},
	}
	for _, ev := range ignored {
		b.slack.WaitAck(b.slack.SendEvent(ev), 5*time.Second)
	}
	// Positive control: a human DM in the same channel is answered.
	ts, _ := b.dm(alice, dm, "hello from a DM", "")
	b.replies(dm, ts, 1)
	b.waitDone(dm, ts)
	for _, ev := range ignored {
		require.Equal(t, 0, b.sessionRowsWithTS(ev["ts"].(string)))
		require.Equal(t, 0, b.arrivals(ev["ts"].(string)), "not taken into the inbox, so never answered")
	}
	require.Equal(t, 1, b.sessionRowsWithTS(ts), "control: the answered DM is logged")
	require.Equal(t, 1, b.arrivals(ts), "control: and was taken into the inbox")
	require.Len(t, b.turnRequests(), 1, "only the human DM reached the model")
}

func TestBackfillsAThreadSeenForTheFirstTime(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0BACKFILL"
	root := b.nextTS()
	b.slack.Seed(fakeslack.Message{Channel: ch, TS: root, User: bob, Text: "the deploy freeze starts Friday"})
	b.slack.Seed(fakeslack.Message{Channel: ch, TS: b.nextTS(), ThreadTS: root, User: carol, Text: "noted, thanks"})
	ts, _ := b.mention(alice, ch, "what did Bob say?", root)
	b.replies(ch, root, 1)
	b.waitDone(ch, ts)
	reqs := b.turnRequests()
	require.Len(t, reqs, 1)
	tr := reqs[0].Transcript()
	require.Contains(t, tr, "the deploy freeze starts Friday")
	require.Contains(t, tr, "noted, thanks")
	require.Less(t, strings.Index(tr, "deploy freeze"), strings.Index(tr, "what did Bob say?"), "history in thread order")
	require.Equal(t, 4, b.sessionRows(ch, root), "two backfilled, the question and the reply")
}

// A thread longer than one page of conversations.replies is read page by
// page, and what is kept is its root and the newest replies before the
// mention (500 in all by default), not its oldest 200.
func TestBackfillReadsTheNewestMessagesOfALongThread(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0LONG"
	root := b.nextTS()
	b.slack.Seed(fakeslack.Message{Channel: ch, TS: root, User: bob, Text: "thread root: the Q3 migration plan"})
	var replies []string
	for i := 1; i < 1200; i++ {
		ts := b.nextTS()
		replies = append(replies, ts)
		b.slack.Seed(fakeslack.Message{Channel: ch, TS: ts, ThreadTS: root, User: []string{bob, carol}[i%2], Text: fmt.Sprintf("reply number %04d", i)})
	}
	ts, _ := b.mention(alice, ch, "what was said last?", root)
	b.replies(ch, root, 1)
	b.waitDone(ch, ts)

	require.Equal(t, 1, b.sessionRowsWithTS(root), "the root is kept")
	require.Equal(t, 1, b.sessionRowsWithTS(replies[len(replies)-1]), "the reply just before the mention is kept")
	require.Equal(t, 1, b.sessionRowsWithTS(replies[len(replies)-499]), "the 499th newest reply is kept")
	require.Equal(t, 0, b.sessionRowsWithTS(replies[len(replies)-500]), "older replies are not")
	require.Equal(t, 0, b.sessionRowsWithTS(replies[0]))
	require.Equal(t, 500+2, b.sessionRows(ch, root), "500 backfilled, the question and the reply")
	require.Contains(t, b.turnRequests()[0].Transcript(), "reply number 1199")

	var pages int
	for _, c := range b.slack.Calls("conversations.replies") {
		if c.Form.Get("ts") == root {
			pages++
		}
	}
	require.Equal(t, 6, pages, "1,200 messages are 6 pages of 200")
}

// A backfill that fails leaves nothing marked: the thread's next post reads
// it again.
func TestFailedBackfillIsTriedAgain(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0REFILL"
	root := b.nextTS()
	b.slack.Seed(fakeslack.Message{Channel: ch, TS: root, User: bob, Text: "the deploy freeze starts Friday"})
	b.slack.Seed(fakeslack.Message{Channel: ch, TS: b.nextTS(), ThreadTS: root, User: carol, Text: "noted, thanks"})
	b.slack.FailNext("conversations.replies", "missing_scope")
	first, _ := b.mention(alice, ch, "what did Bob say?", root)
	b.replies(ch, root, 1)
	b.waitDone(ch, first)
	require.Equal(t, 2, b.sessionRows(ch, root), "the backfill failed: only the question and the reply")
	require.Equal(t, 0, b.sessionRowsWithTS(root))

	second, _ := b.mention(alice, ch, "and what did Carol say?", root)
	b.replies(ch, root, 2)
	b.waitDone(ch, second)
	require.Equal(t, 1, b.sessionRowsWithTS(root), "the second post read the thread again")
	require.Equal(t, 6, b.sessionRows(ch, root), "two backfilled, two questions and two replies")
	tr := b.turnRequests()[1].Transcript()
	require.Contains(t, tr, "the deploy freeze starts Friday")
	require.Contains(t, tr, "noted, thanks")
}

func TestMalformedFrameIsAckedAndLogged(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	b.slack.SendRaw([]byte(`{"type":"events_api","envelope_id":"env-garbled","payload":"not an object"}`))
	b.slack.WaitAck("env-garbled", 5*time.Second)
	require.Eventually(t, func() bool { return logLine(b.logs.String(), "env-garbled") != "" }, 5*time.Second, 20*time.Millisecond)
	require.Contains(t, logLine(b.logs.String(), "env-garbled"), `"level":"error"`)
	// Still serving.
	ts, _ := b.dm(alice, "D0ALICE", "still there?", "")
	b.replies("D0ALICE", ts, 1)
}

// serve's own tokens and key never reach its log: not in what it logs of
// its work (a turn, a reconnect), nor when someone pastes them into a
// message, which the Socket Mode client logs whole at debug level.
func TestLogsNeverCarryTokensOrKeys(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	secrets := []string{b.env["SLACK_BOT_TOKEN"], b.env["SLACK_APP_TOKEN"], b.env["MNEMO_LLM_API_KEY"]}
	ts, _ := b.dm(alice, "D0ALICE", "hello", "")
	b.replies("D0ALICE", ts, 1)
	b.waitDone("D0ALICE", ts)
	b.slack.SendDisconnect()
	require.Eventually(t, func() bool { return b.slack.Opens() >= 2 }, 10*time.Second, 50*time.Millisecond, "reconnects after disconnect")
	b.slack.WaitConnected(10 * time.Second)

	// The control: a message quoting them puts them on a line of the log,
	// the frame socketmode's debug output holds, so only the scrubber
	// keeps them out.
	const pasted = "pasted our config by mistake"
	ts, _ = b.dm(alice, "D0ALICE", pasted+": "+strings.Join(secrets, " "), "")
	b.replies("D0ALICE", ts, 1)
	b.waitDone("D0ALICE", ts)
	logs := b.logs.String()
	var frame string
	for _, l := range strings.Split(logs, "\n") {
		if strings.HasPrefix(l, "socketmode: Received WebSocket message") && strings.Contains(l, pasted) {
			frame = l
		}
	}
	require.NotEmpty(t, frame, "control: the frame with the pasted secrets was logged")
	require.Equal(t, len(secrets), strings.Count(frame, detect.RedactedMarker), "each secret is redacted in place: %s", frame)
	for _, secret := range secrets {
		require.NotContains(t, logs, secret)
	}
}

// An oversized message gets a clear answer, is kept in the thread's log, and
// never reaches the model.
func TestOversizedMessageIsExplainedAndKept(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	huge := strings.Repeat("lorem ipsum ", 1500) // 18,000 characters
	ts, _ := b.dm(alice, "D0ALICE", huge, "")
	reply := b.replies("D0ALICE", ts, 1)[0].Text
	require.Contains(t, reply, fmt.Sprintf("%d characters", len(strings.TrimSpace(huge))))
	require.Contains(t, reply, "12000")
	b.slack.WaitReaction("add", "warning", ts, 10*time.Second)
	require.Equal(t, 1, b.sessionRowsWithTS(ts), "the message is kept")
	require.Empty(t, b.turnRequests(), "and the model never saw it")

	// The next normal message in the thread is answered as usual.
	next, _ := b.dm(alice, "D0ALICE", "sorry, short version: hi", ts)
	b.replies("D0ALICE", ts, 2)
	b.waitDone("D0ALICE", next)
	reqs := b.turnRequests()
	require.Len(t, reqs, 1)
	require.Less(t, len(reqs[0].Transcript()), 14000, "the oversized message is cut in later turns' history")
	require.Contains(t, reqs[0].Transcript(), "(truncated)")
}

// users.info failing in a DM, where a person of another organisation can
// be, holds the post back until it answers (the inbox tries again); the
// turn then runs for the person of the live event, once.
func TestUsersInfoFailureStillAnswers(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	b.slack.FailNext("users.info", "ratelimited")
	ts, _ := b.dm(alice, "D0ALICE", "remember that I prefer short standups", "")
	b.replies("D0ALICE", ts, 1)
	b.waitDone("D0ALICE", ts)
	require.Len(t, b.memories("--user", alice), 1)
	require.Contains(t, b.logs.String(), "actor where another organisation's people can be")
}

// Defect 8, logs: at debug level the Socket Mode client logs raw frames,
// which carry people's messages; they pass through the token scrubber too.
func TestSocketModeDebugFramesAreScrubbed(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const leaked = "xoxp-1234567890-1234567890-abcdefabcdef0123456789"
	ts, _ := b.dm(alice, "D0ALICE", "the old token was "+leaked+", please ignore it", "")
	b.replies("D0ALICE", ts, 1)
	b.waitDone("D0ALICE", ts)
	logs := b.logs.String()
	require.Contains(t, logs, "socketmode: ", "control: the client's debug frames are logged")
	require.Contains(t, logs, "please ignore it", "control: the frame with the message was logged")
	require.NotContains(t, logs, leaked)
}
