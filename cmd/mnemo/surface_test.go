package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// command runs /mnemo and returns its ephemeral answer.
func (b *bot) command(user, channel, text string) fakeslack.Message {
	b.t.Helper()
	before := len(b.responses())
	b.slack.WaitAck(b.slack.SendSlashCommand("/mnemo", text, user, channel), 5*time.Second)
	return b.nextResponse(before)
}

func (b *bot) responses() []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range b.slack.Posted() {
		if m.Response {
			out = append(out, m)
		}
	}
	return out
}

func (b *bot) nextResponse(before int) fakeslack.Message {
	b.t.Helper()
	got := b.slack.WaitPosted(before+1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response })
	r := got[before]
	require.True(b.t, r.Ephemeral, "every answer is ephemeral")
	return r
}

// click presses a button as user, in channel (or on the Home tab when
// channel is empty).
func (b *bot) click(user, channel, actionID, value string) string {
	b.t.Helper()
	payload := map[string]any{
		"type": "block_actions", "team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": user, "team_id": fakeslack.TeamID},
		"api_app_id": fakeslack.AppID, "trigger_id": "trig", "response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
		"actions": []any{map[string]any{"type": "button", "action_id": actionID, "block_id": "b1", "value": value, "action_ts": "1800000000.000100"}},
	}
	if channel != "" {
		payload["channel"] = map[string]any{"id": channel}
		payload["container"] = map[string]any{"type": "message", "message_ts": "1800000000.000100", "is_ephemeral": true}
	} else {
		payload["view"] = map[string]any{"id": "V1", "type": "home"}
		payload["container"] = map[string]any{"type": "view", "view_id": "V1"}
	}
	env := b.slack.SendInteractive(payload)
	b.slack.WaitAck(env, 5*time.Second)
	return env
}

func (b *bot) store() *memory.Store { return memory.New(b.db.DB, memory.Options{}) }

func (b *bot) seed(user string, scope memory.Scope, channel, content string) memory.Memory {
	b.t.Helper()
	vis := provenance.Public
	if strings.HasPrefix(channel, "D") {
		vis = provenance.DM
	}
	out, err := b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: user},
		Place: provenance.Place{Team: fakeslack.TeamID, Channel: channel, SourceKey: sourceKey(channel, "1800000000.000100"), Visibility: vis},
		Scope: scope, Content: content, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(b.t, err)
	require.Equal(b.t, memory.Stored, out.Status, out.Reason)
	return *out.Memory
}

func (b *bot) auditActions() []string {
	b.t.Helper()
	rows, err := b.db.Pool.Query(context.Background(), "SELECT actor_id || ' ' || action FROM admin_audit ORDER BY id")
	require.NoError(b.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(b.t, rows.Scan(&s))
		out = append(out, s)
	}
	return out
}

func (b *bot) archived(id string) bool {
	b.t.Helper()
	m, err := b.store().Resolve(context.Background(), memory.Viewer{Actor: provenance.Actor{IsAdmin: true, Team: fakeslack.TeamID}, Place: provenance.Place{Team: fakeslack.TeamID}, Oversight: true}, id)
	require.NoError(b.t, err)
	return m[0].ArchivedAt != nil
}

func TestSlashCommandsAndPermissions(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_ADMINS", carol)
	const ch = "C0TEAM"
	aliceMem := b.seed(alice, memory.ScopePersonal, ch, "I prefer terse PR summaries")
	chanMem := b.seed(bob, memory.ScopeChannel, ch, "Deploys go out on Tuesdays after QA sign-off")

	r := b.command(alice, ch, "help")
	for _, sub := range []string{"memories", "forget", "restore", "export", "purge", "learning on|off", "stats"} {
		require.Contains(t, r.Text, sub)
	}

	r = b.command(alice, ch, "memories")
	require.Contains(t, string(r.Blocks), "Prefers terse PR summaries")
	require.Contains(t, string(r.Blocks), aliceMem.ShortID())
	require.Contains(t, string(r.Blocks), `"action_id":"mnemo_forget"`)
	require.NotContains(t, string(r.Blocks), "Deploys go out")

	for _, adminOnly := range []string{"memories <@U0BOB|bob>", "memories <#C0TEAM|team>", "restore " + aliceMem.ShortID(), "export <@U0BOB>", "purge <@U0BOB>", "learning off"} {
		r = b.command(alice, ch, adminOnly)
		require.Contains(t, r.Text, "Only an admin", adminOnly)
		require.Contains(t, r.Text, "MNEMO_ADMINS", "a refusal says why")
	}
	require.Empty(t, b.auditActions(), "refusals change nothing")

	// Admin via MNEMO_ADMINS (carol) and via users.info (admin).
	r = b.command(carol, ch, "memories <#C0TEAM|team>")
	require.Contains(t, string(r.Blocks), "Deploys go out on Tuesdays")
	r = b.command(admin, ch, "memories <@U0ALICE|alice> terse")
	require.Contains(t, string(r.Blocks), "Prefers terse PR summaries")

	// forget: not someone else's personal memory (it is not even named), but
	// your own, and an admin anyone's.
	r = b.command(bob, ch, "forget "+aliceMem.ShortID())
	require.Contains(t, r.Text, "No single memory you can see")
	require.NotContains(t, r.Text, aliceMem.Content)
	require.False(t, b.archived(aliceMem.ShortID()))
	r = b.command(alice, ch, "forget "+aliceMem.ShortID())
	require.Contains(t, r.Text, "Forgotten")
	require.True(t, b.archived(aliceMem.ShortID()))

	r = b.command(carol, ch, "restore "+aliceMem.ShortID())
	require.Contains(t, r.Text, "Restored")
	require.False(t, b.archived(aliceMem.ShortID()))

	r = b.command(bob, ch, "forget "+chanMem.ShortID()) // anyone in the channel
	require.Contains(t, r.Text, "Forgotten")
	r = b.command(alice, "C0OTHER", "forget "+aliceMem.ShortID())
	require.Contains(t, r.Text, "Forgotten", "your own personal memory, from anywhere")

	r = b.command(admin, ch, "learning off")
	require.Contains(t, r.Text, "now off")
	var on bool
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), "SELECT learning_enabled FROM channel_settings WHERE channel_id = $1", ch).Scan(&on))
	require.False(t, on)

	r = b.command(admin, ch, "stats")
	require.Contains(t, r.Text, "memories:")
	require.Contains(t, r.Text, "archived")
	require.Contains(t, r.Text, "Model usage, the workspace's")
	require.Contains(t, r.Text, "Top people")

	r = b.command(alice, ch, "stats")
	require.Contains(t, r.Text, "Model usage, your", "anyone sees their own usage")
	require.Contains(t, r.Text, "Only an admin sees the workspace's stats")
	require.NotContains(t, r.Text, "Top people")
	require.NotContains(t, r.Text, "memories:")

	r = b.command(alice, ch, "frobnicate")
	require.Contains(t, r.Text, "help")

	require.Equal(t, []string{carol + " search", admin + " search", carol + " restore", bob + " forget", admin + " learning off"}, b.auditActions(),
		"every admin action is recorded with its actor, a listing of others' memories too")
}

func TestExportSendsJSONToTheAdminsDM(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	b.seed(alice, memory.ScopePersonal, "D0ALICE", "I prefer replies in French")
	r := b.command(admin, "C0TEAM", "export <@U0ALICE|alice>")
	require.Contains(t, r.Text, "Sent 1 memories")
	f := b.slack.WaitFile(5 * time.Second)
	require.Equal(t, "D0ADMIN", f.Channel, "to the admin's DM")
	var body struct {
		User     string           `json:"user"`
		Memories []map[string]any `json:"memories"`
	}
	require.NoError(t, json.Unmarshal(f.Content, &body), string(f.Content))
	require.Equal(t, alice, body.User)
	require.Len(t, body.Memories, 1)
	require.Equal(t, "Prefers replies in French", body.Memories[0]["Content"])
	require.Equal(t, []string{admin + " export"}, b.auditActions())
}

// What an admin reads of others' memories through /mnemo is audited, as
// the command line's search and history are: a listing of a person's or a
// channel's memories, its further pages, and the history of a memory they
// see only through oversight. Their own memory's history is not. Before,
// none of these wrote a row.
func TestAnAdminsOversightThroughSlashCommandsIsAudited(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	mine := b.seed(admin, memory.ScopePersonal, "C0TEAM", "I prefer answers with links")
	for i := range slackapp.ListPageSize + 1 {
		b.seed(alice, memory.ScopePersonal, "D0ALICE", fmt.Sprintf("I prefer tea number %d", i))
	}
	hers := b.seed(alice, memory.ScopePersonal, "D0ALICE", "I prefer replies in French")

	r := b.command(admin, "C0TEAM", "history "+mine.ShortID())
	require.Contains(t, r.Text+string(r.Blocks), "History of")
	require.Empty(t, b.auditActions(), "an admin's own memory is not oversight")

	r = b.command(admin, "C0TEAM", "history "+hers.ShortID())
	require.Contains(t, string(r.Blocks), "Prefers replies in French")
	r = b.command(admin, "C0TEAM", "memories <@U0ALICE|alice>")
	require.Contains(t, string(r.Blocks), "mnemo_page", "a second page")
	before := len(b.responses())
	b.click(admin, "C0TEAM", slackapp.ActionPage, fmt.Sprintf(`{"u":%q,"o":%d}`, alice, slackapp.ListPageSize))
	require.Contains(t, string(b.nextResponse(before).Blocks), "Prefers", "the second page")
	require.Equal(t, []string{admin + " history", admin + " search", admin + " search"}, b.auditActions())
	var targets []string
	rows, err := b.db.Pool.Query(context.Background(), "SELECT target FROM admin_audit ORDER BY id")
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		targets = append(targets, s)
	}
	require.Equal(t, []string{hers.ID.String(), alice, alice}, targets, "the memory's id, then whose memories were listed")
}

// An admin's export of a person's memories, run in a private channel,
// does not carry the sensitive memories said there to the admin's DM: the
// file is read as from no place, and a sensitive memory never leaves the
// place it was said, except to its subject.
func TestAnExportRunInAPrivateChannelLeavesItsSensitiveMemoriesThere(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const group = "G0SUPPORT"
	place := provenance.Place{Team: fakeslack.TeamID, Channel: group, SourceKey: sourceKey(group, "1800000000.000100"), Visibility: provenance.Private}
	out, err := b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: bob}, Place: place,
		Scope: memory.ScopePersonal, Content: "I take antidepressants every morning", WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.NotEmpty(t, out.Memory.Sensitive, "the control: the memory is sensitive")
	b.seed(bob, memory.ScopePersonal, "C0TEAM", "I prefer short standups")

	r := b.command(admin, group, "export <@U0BOB|bob>")
	require.Contains(t, r.Text, "Sent 1 memories")
	f := b.slack.WaitFile(5 * time.Second)
	require.Equal(t, "D0ADMIN", f.Channel)
	require.Contains(t, string(f.Content), "short standups", "the control: the file holds bob's other memory")
	require.NotContains(t, string(f.Content), "antidepressants")
}

func TestPurgeNeedsConfirmation(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	m1 := b.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer terse PR summaries")
	m2 := b.seed(alice, memory.ScopePersonal, "D0ALICE", "I prefer replies in French")
	keep := b.seed(bob, memory.ScopePersonal, "C0TEAM", "I prefer long walks after lunch")

	r := b.command(admin, "C0TEAM", "purge <@U0ALICE>")
	require.Contains(t, r.Text, "This erases <@U0ALICE>")
	require.Contains(t, string(r.Blocks), "mnemo_purge_confirm")
	require.Contains(t, string(r.Blocks), "mnemo_purge_keep_shared")
	require.False(t, b.archived(m1.ShortID()), "nothing happens before the confirmation")

	before := len(b.responses())
	b.click(admin, "C0TEAM", "mnemo_purge_cancel", alice)
	require.Contains(t, b.nextResponse(before).Text, "cancelled")
	require.False(t, b.archived(m1.ShortID()))

	// A non-admin pressing the button is refused.
	before = len(b.responses())
	b.click(bob, "C0TEAM", "mnemo_purge_confirm", alice)
	require.Contains(t, b.nextResponse(before).Text, "Only an admin")
	require.False(t, b.archived(m1.ShortID()))

	before = len(b.responses())
	b.click(admin, "C0TEAM", "mnemo_purge_confirm", alice)
	done := b.nextResponse(before)
	require.Contains(t, done.Text, "• memories: 2 deleted")
	require.True(t, done.Replace)
	require.Empty(t, b.memories("--user", alice, "--all"), "deleted, not archived: %s %s", m1.ShortID(), m2.ShortID())
	require.False(t, b.archived(keep.ShortID()), "only that person's")
	require.Equal(t, []string{admin + " erase"}, b.auditActions())
}

// Buttons and the App Home, over Socket Mode and over HTTP.
func TestForgetButtonAndAppHome(t *testing.T) {
	t.Parallel()
	forEachTransport(t, func(t *testing.T, mode []string) {
		b := startBot(t, scripted.Memory(), mode...)
		m1 := b.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer terse PR summaries")
		m2 := b.seed(alice, memory.ScopePersonal, "D0ALICE", "I prefer replies in French")

		// The Forget button on a /mnemo memories answer.
		before := len(b.responses())
		b.click(alice, "C0TEAM", "mnemo_forget", m1.ID.String())
		require.Contains(t, b.nextResponse(before).Text, "Forgotten")
		require.True(t, b.archived(m1.ShortID()))
		// Someone else's Forget press is refused, and names nothing.
		before = len(b.responses())
		b.click(bob, "C0TEAM", "mnemo_forget", m2.ID.String())
		require.Contains(t, b.nextResponse(before).Text, "No single memory you can see")
		require.False(t, b.archived(m2.ShortID()))

		// App Home.
		b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": alice, "channel": "D0ALICE", "tab": "home", "event_ts": "1800000000.000100"}), 5*time.Second)
		view := b.slack.WaitView(alice, 10*time.Second, nil)
		require.Contains(t, string(view), "What mnemo remembers about you")
		require.Contains(t, string(view), "Prefers replies in French")
		require.Contains(t, string(view), "in a DM")
		require.Contains(t, string(view), `"action_id":"mnemo_forget"`)
		require.Contains(t, string(view), "passive learning in our DM is on")
		require.NotContains(t, string(view), "Prefers terse PR summaries", "forgotten memories are gone")

		b.click(alice, "", "mnemo_forget", m2.ID.String())
		view = b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return !strings.Contains(string(v), "Prefers replies in French") })
		require.Contains(t, string(view), "Nothing yet")
		require.True(t, b.archived(m2.ShortID()))
	})
}

// reactionsOn lists the reaction calls on the post at ts, in order.
func reactionsOn(b *bot, ts string) []string {
	var seq []string
	for _, r := range b.slack.Reactions() {
		if r.TS == ts {
			seq = append(seq, r.Op+" "+r.Name)
		}
	}
	return seq
}

func TestReactionLifecycle(t *testing.T) {
	t.Parallel()
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.Contains(req.Transcript(), "break") {
			return fakellm.Reply{Status: 400}
		}
		return scripted.Memory()(n, req)
	})
	ok, _ := b.mention(alice, "C0R", "hello", "")
	b.replies("C0R", ok, 1)
	b.waitDone("C0R", ok)
	require.Equal(t, []string{"add eyes", "remove eyes", "add white_check_mark"}, reactionsOn(b, ok))

	bad, _ := b.mention(alice, "C0R", "please break", "")
	b.slack.WaitReaction("add", "warning", bad, 20*time.Second)
	msgs := b.replies("C0R", bad, 1)
	require.Contains(t, msgs[0].Text, "a problem on my side", "a 400 is mnemo's bug, not an unreachable model")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(msgs[0].Text), "."), "one sentence")
	require.Equal(t, []string{"add eyes", "remove eyes", "add warning"}, reactionsOn(b, bad))
}

// TestTheModelDoesNotWaitForTheWorkingReaction: :eyes: is shown beside
// the turn, so a slow reactions.add (here a 429 with Retry-After: 1) delays
// neither the model nor the reply, and the turn's end still waits for it:
// :eyes: is never added after it was removed.
func TestTheModelDoesNotWaitForTheWorkingReaction(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	b.slack.RateLimitFor("reactions.add", 1, 1)
	ts, _ := b.mention(alice, "C0SLOWR", "hello", "")
	b.replies("C0SLOWR", ts, 1)
	b.waitDone("C0SLOWR", ts)
	require.Equal(t, []string{"add eyes", "remove eyes", "add white_check_mark"}, reactionsOn(b, ts))
	var calls []string
	for _, c := range b.slack.Calls("") {
		if c.Method == "chat.postMessage" || strings.HasPrefix(c.Method, "reactions.") {
			calls = append(calls, c.Method)
		}
	}
	require.Equal(t, []string{"reactions.add", "chat.postMessage", "reactions.add", "reactions.remove", "reactions.add"}, calls,
		"the reply is posted while :eyes: waits out its rate limit")
}

func TestFollowUpsInAThreadTheBotIsPartOf(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const ch = "C0FOLLOW"
	root, _ := b.mention(alice, ch, "hi", "")
	b.replies(ch, root, 1)
	b.waitDone(ch, root)

	message := func(user, text string) string {
		ts := b.nextTS()
		b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "channel", "user": user, "text": text, "ts": ts, "thread_ts": root, "channel": ch}), 5*time.Second)
		return ts
	}
	// Alice follows up directly after the bot's reply: answered.
	f1 := message(alice, "and what about tomorrow?")
	b.replies(ch, root, 2)
	b.waitDone(ch, f1)

	// Bob joins and talks to Alice: chatter, not answered, but logged as context.
	chat := message(bob, "alice, did you see the build?")
	require.Eventually(t, func() bool { return b.sessionRowsWithTS(chat) == 1 }, 5*time.Second, 20*time.Millisecond)
	// Now that two people talk in the thread, a follow-up must name the bot.
	plain := message(alice, "yes, it is green")
	require.Eventually(t, func() bool { return b.sessionRowsWithTS(plain) == 1 }, 5*time.Second, 20*time.Millisecond)
	named := message(alice, "mnemo, can you summarize this thread?")
	b.replies(ch, root, 3)
	b.waitDone(ch, named)
	// The thread's posts are answered one at a time, in order: the named
	// follow-up, answered after the chatter, is the barrier.
	require.Len(t, b.replies(ch, root, 3), 3, "chatter was not answered")
	require.Len(t, b.turnRequests(), 3)

	// A message in a thread the bot is not part of is ignored entirely: it
	// is not taken into the inbox, so nothing can answer it later.
	other := b.nextTS()
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "channel", "user": alice, "text": "mnemo is great", "ts": other, "channel": ch}), 5*time.Second)
	require.Equal(t, 0, b.arrivals(other))
	require.Equal(t, 1, b.arrivals(named), "control: an answered post's arrival is found")
	require.Equal(t, 0, b.sessionRowsWithTS(other))
}

func TestRateLimitedReplyIsRetried(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	b.slack.RateLimit("chat.postMessage", 1)
	ts, _ := b.dm(alice, "D0ALICE", "hello", "")
	b.replies("D0ALICE", ts, 1)
	b.waitDone("D0ALICE", ts)
	require.Len(t, b.slack.Calls("chat.postMessage"), 2, "one 429, then the reply")
	require.Contains(t, b.logs.String(), "rate limited by Slack")
}

// A memory written by the agent's tool republishes the person's App Home.
func TestHomeIsRepublishedAfterAToolWrite(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	ts, _ := b.dm(alice, "D0ALICE", "remember that I prefer meetings after 10am", "")
	b.replies("D0ALICE", ts, 1)
	view := b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "Prefers meetings after 10am") })
	require.Contains(t, string(view), "asked to remember in a DM")
	for _, c := range b.slack.Calls("views.publish") {
		require.Equal(t, alice, c.Form.Get("user_id"), "only the subject's Home")
	}
}

// Self-service: everyone exports their own memories (personal, and the
// shared ones they wrote) to their DM, reads a memory's history, and turns
// passive learning about themselves off, which the Home tab shows.
func TestSelfServiceExportHistoryAndLearningSwitch(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	mine := b.seed(alice, memory.ScopePersonal, "D0ALICE", "I prefer replies in French")
	b.seed(alice, memory.ScopeChannel, "C0TEAM", "Deploys go out on Tuesdays after QA sign-off")
	b.seed(bob, memory.ScopePersonal, "D0BOB", "I prefer replies in German")

	r := b.command(alice, "C0TEAM", "export")
	require.Contains(t, r.Text, "Sent your 2 memories")
	f := b.slack.WaitFile(5 * time.Second)
	require.Equal(t, "D0ALICE", f.Channel, "to her own DM")
	require.Contains(t, string(f.Content), "Prefers replies in French")
	require.Contains(t, string(f.Content), "Deploys go out on Tuesdays")
	require.NotContains(t, string(f.Content), "German", "not someone else's")
	require.Contains(t, b.command(bob, "C0TEAM", "export <@U0ALICE|alice>").Text, "Only an admin")

	r = b.command(alice, "C0TEAM", "history "+mine.ShortID())
	require.Contains(t, string(r.Blocks), `create by \u003c@U0ALICE\u003e via explicit`)
	require.Contains(t, b.command(alice, "C0TEAM", "forget "+mine.ShortID()).Text, "Forgotten")
	require.Contains(t, string(b.command(alice, "C0TEAM", "history "+mine.ShortID()).Blocks), `archive by \u003c@U0ALICE\u003e via slash`)
	require.Contains(t, b.command(bob, "C0TEAM", "history "+mine.ShortID()).Text, "No single memory you can see")

	require.Contains(t, b.command(alice, "C0TEAM", "learning me off").Text, "now off")
	on, err := b.db.DB.Settings().UserLearningEnabled(context.Background(), fakeslack.TeamID, alice)
	require.NoError(t, err)
	require.False(t, on)
	b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "learning about you is off") })
	require.Contains(t, b.command(alice, "C0TEAM", "learning me on").Text, "now on")
	on, err = b.db.DB.Settings().UserLearningEnabled(context.Background(), fakeslack.TeamID, alice)
	require.NoError(t, err)
	require.True(t, on)
}
