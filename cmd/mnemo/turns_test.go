package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// turnsShow runs `mnemo turns show` against the bot's database.
func (b *bot) turnsShow(t *testing.T, extraEnv map[string]string, args ...string) (string, string, int) {
	t.Helper()
	env := map[string]string{}
	for k, v := range b.env {
		env[k] = v
	}
	for k, v := range extraEnv {
		env[k] = v
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"turns", "show"}, args...), func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func (b *bot) turnID(t *testing.T, channel, ts string) int64 {
	t.Helper()
	var id int64
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), "SELECT id FROM turns WHERE channel_id = $1 AND message_ts = $2", channel, ts).Scan(&id))
	return id
}

// `mnemo turns show` of a turn with tools, and of one that recalled a
// memory: the timeline, the tools, the tokens and cost, the recalled
// memory with its provenance and score, shown to an admin only where they
// could see it, or through audited oversight.
func TestTurnsShowATurnWithRecallAndTools(t *testing.T) {
	t.Parallel()
	b := startBot(t, func(n int, req *fakellm.Request) fakellm.Reply {
		r := scripted.Memory()(n, req)
		r.InputTokens, r.OutputTokens, r.CachedTokens = 1000, 100, 600
		return r
	}, "MNEMO_ADMINS", carol, "MNEMO_PRICES", "claude-test=3/15")
	const ch = "C0TEAM"
	first, _ := b.mention(alice, ch, "remember that I drink green tea in the morning", "")
	b.waitDone(ch, first)
	second, _ := b.mention(alice, ch, "what do you remember about green tea?", "")
	b.waitDone(ch, second)

	out, stderr, code := b.turnsShow(t, nil, "--as", carol, strconv.FormatInt(b.turnID(t, ch, first), 10))
	require.Equal(t, 0, code, stderr)
	t.Logf("mnemo turns show (tools):\n%s", out)
	require.Contains(t, out, "asked by <@"+alice+">")
	require.Regexp(t, `tool searchTools: ok`, out)
	require.Regexp(t, `tool memory__remember: ok`, out)
	require.Contains(t, out, "Tools called: searchTools (ok), memory__remember (ok)")
	require.Contains(t, out, "model claude-test (anthropic): 1000 tokens in (600 cached), 100 out")
	require.Regexp(t, `Tokens: 4000 in \(2400 cached\), 400 out, in 4 model calls; ≈ \$0\.0180`, out, "three turn calls and the memory judge's")
	require.Contains(t, out, "Errors: none")

	// Alice's personal memory, said in the channel, recalled into her turn:
	// an admin who is not its subject does not see its text there.
	link := "https://team.slack.com/archives/" + ch + "/p" + strings.ReplaceAll(second, ".", "")
	out, stderr, code = b.turnsShow(t, nil, "--as", carol, link)
	require.Equal(t, 0, code, stderr)
	t.Logf("mnemo turns show (recall, no oversight):\n%s", out)
	require.Regexp(t, `1\. \d\.\d{3}  [0-9a-f]{8}: not visible here`, out)
	require.NotContains(t, out, "green tea in the morning")
	require.Empty(t, b.auditActions(), "nothing overseen, nothing audited")

	out, stderr, code = b.turnsShow(t, map[string]string{"MNEMO_ADMIN_OVERSIGHT": "true"}, "--as", carol, link)
	require.Equal(t, 0, code, stderr)
	t.Logf("mnemo turns show (recall, oversight):\n%s", out)
	require.Regexp(t, `1\. \d\.\d{3}  [0-9a-f]{8}: personal \w+ about user `+alice+`, written by <@`+alice+`> \(explicit\) in <#`+ch+`> \(public\) on \d{4}-\d\d-\d\d: "[^"]*green tea in the morning"`, out)
	require.Contains(t, out, "recall ok: 1 memories")
	require.Equal(t, []string{carol + " inspect"}, b.auditActions(), "the oversight is audited")

	// In Slack: the Inspect shortcut on mnemo's reply, for an admin only.
	inspect := func(user, ts string) string {
		before := len(b.responses())
		env := b.slack.SendInteractive(map[string]any{
			"type": "message_action", "callback_id": "mnemo_inspect", "trigger_id": "trig",
			"team": map[string]any{"id": fakeslack.TeamID}, "user": map[string]any{"id": user, "team_id": fakeslack.TeamID},
			"channel": map[string]any{"id": ch}, "message": map[string]any{"ts": ts, "type": "message"},
			"response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
		})
		b.slack.WaitAck(env, 5*time.Second)
		return b.nextResponse(before).Text
	}
	reply := b.replies(ch, second, 1)[0]
	got := inspect(alice, reply.TS)
	require.Contains(t, got, "Only an admin can inspect turns")
	got = inspect(carol, reply.TS)
	t.Logf("Inspect shortcut:\n%s", got)
	require.Contains(t, got, "Turn 2 in <#C0TEAM>")
	require.Contains(t, got, "Tools called: searchTools (ok), memory__recall (ok)")
	require.Contains(t, got, "not visible here", "oversight is off for serve")
	require.NotContains(t, got, "green tea in the morning")

	_, stderr, code = b.turnsShow(t, nil, "--as", alice, "1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "an admin listed in MNEMO_ADMINS")
}

// An admin is not in another person's DM with the bot: `mnemo turns show`
// of a turn there shows none of its memories but through oversight, which
// is audited, not even a memory of the DM's own thread.
func TestTurnsShowOfAnotherPersonsDMNeedsOversight(t *testing.T) {
	t.Parallel()
	turnsShowNeedsOversight(t, "D0ALICE", provenance.DM, memory.ScopeConversation,
		"The offer letter to Globex is drafted in this thread", "what about the offer letter to Globex?", "offer letter to Globex")
}

// The same in a private channel or a group DM: the command line can't tell
// who is in one, so a turn there is another person's place to an admin,
// and its channel's memories are shown only by oversight, audited. They
// were shown as if the admin were in the channel, and nothing was
// recorded.
func TestTurnsShowOfAnotherPersonsPrivateChannelNeedsOversight(t *testing.T) {
	t.Parallel()
	turnsShowNeedsOversight(t, "G0FALCON", provenance.Private, memory.ScopeChannel,
		"The project codename is Falcon", "what is the project codename?", "codename is Falcon")
}

// turnsShowNeedsOversight has alice remember content (of scope) in
// channel, then ask question there, and checks what `mnemo turns show`
// of that turn shows of it: to alice, the asker, it (the control); to
// carol, an admin, nothing and no audit row without oversight, and it,
// audited, with oversight.
func turnsShowNeedsOversight(t *testing.T, channel string, vis provenance.Visibility, scope memory.Scope, content, question, shows string) {
	b := startBot(t, scripted.Memory(), "MNEMO_ADMINS", carol)
	say := b.mention
	if vis == provenance.DM {
		say = b.dm
	}
	root, _ := say(alice, channel, "hello there", "")
	b.waitDone(channel, root)
	out, err := b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: alice}, Scope: scope,
		Place:   provenance.Place{Team: fakeslack.TeamID, Channel: channel, SourceKey: "slack:" + fakeslack.TeamID + ":" + channel + ":" + root, ThreadTS: root, Visibility: vis},
		Content: content, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	ask, _ := say(alice, channel, question, root)
	b.waitDone(channel, ask)
	id := strconv.FormatInt(b.turnID(t, channel, ask), 10)

	shown, stderr, code := b.turnsShow(t, map[string]string{"MNEMO_ADMINS": carol + "," + alice}, "--as", alice, id)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, shown, shows, "the control: the turn recalled it, and its asker sees it")

	shown, stderr, code = b.turnsShow(t, nil, "--as", carol, id)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, shown, shows, "another person's place, without oversight")
	require.Contains(t, shown, "not visible here")
	require.Empty(t, b.auditActions(), "nothing overseen, nothing audited")

	shown, stderr, code = b.turnsShow(t, map[string]string{"MNEMO_ADMIN_OVERSIGHT": "true"}, "--as", carol, id)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, shown, shows)
	require.Equal(t, []string{carol + " inspect"}, b.auditActions(), "the oversight is audited")
}
