package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// callRe is how the privacy test asks its model to run one memory tool:
// "call memory__forget {"memory": "abcd"}".
var callRe = regexp.MustCompile(`call (memory__\w+) (\{.*\})`)

// toolCaller runs the tool a message names through executeTool and answers
// with the tool's whole result, so whatever a tool returns reaches Slack.
// Other messages go to the scripted memory model.
func toolCaller() fakellm.Script {
	mem := scripted.Memory()
	return func(n int, req *fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		m := callRe.FindStringSubmatch(req.Transcript())
		if m == nil || !strings.HasPrefix(req.System, "You are mnemo") || !strings.Contains(lastUserText(req), "call memory__") {
			return mem(n, req)
		}
		if len(last.ToolResults) > 0 {
			return fakellm.Reply{Text: "The tool said: " + last.ToolResults[0].Content}
		}
		m = callRe.FindStringSubmatch(lastUserText(req))
		in, _ := json.Marshal(map[string]any{"tool_name": m[1], "arguments": json.RawMessage(m[2])})
		return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "executeTool", Input: in}}}
	}
}

func lastUserText(req *fakellm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser && len(req.Messages[i].ToolResults) == 0 {
			return req.Messages[i].Text
		}
	}
	return ""
}

// Bob learns nothing of Alice's DM memories by any path: forget by an
// ambiguous id prefix, the recall and list tools, the prompt before his
// turns, and every slash command. Each probe has a positive control: Alice,
// in her DM, does reach the same memories the same way.
func TestBobCannotLearnAlicesDMMemoriesByAnyPath(t *testing.T) {
	t.Parallel()
	b := startBot(t, toolCaller())
	const dm, ch = "D0ALICE", "C0GENERAL"
	secrets := []string{"4411", "diabetes"} // words of each memory that must not leak
	for _, s := range []string{"remember that my badge number is 4411", "remember that I prefer nobody mentions my diabetes diagnosis at team lunches"} {
		ts, _ := b.dm(alice, dm, s, "")
		b.replies(dm, ts, 1)
		b.waitDone(dm, ts)
	}
	// Give both of Alice's memories ids that share a 4-digit prefix, the
	// reproduction's ambiguous prefix.
	ctx := context.Background()
	for i, s := range secrets {
		tag, err := b.db.Pool.Exec(ctx, "UPDATE memories SET id = $1 WHERE content LIKE '%' || $2 || '%'", "abcd0000-0000-4000-8000-00000000000"+string(rune('1'+i)), s)
		require.NoError(t, err)
		require.Equal(t, int64(1), tag.RowsAffected(), "stored as %q", s)
	}

	leaks := func(text string) []string {
		var out []string
		for _, w := range secrets {
			if strings.Contains(text, w) {
				out = append(out, w)
			}
		}
		return out
	}
	ask := func(user, channel, text string) string {
		t.Helper()
		var ts string
		if strings.HasPrefix(channel, "D") {
			ts, _ = b.dm(user, channel, text, "")
		} else {
			ts, _ = b.mention(user, channel, text, "")
		}
		reply := b.replies(channel, ts, 1)[0].Text
		b.waitDone(channel, ts)
		return reply
	}

	// Positive controls, by Alice in her DM.
	require.Contains(t, ask(alice, dm, `call memory__forget {"memory": "abcd"}`), "several memories match")
	require.Contains(t, ask(alice, dm, `call memory__recall {"query": "badge number"}`), "4411")
	require.Contains(t, ask(alice, dm, `call memory__list {}`), "diabetes")
	r := b.command(alice, dm, "memories")
	require.Contains(t, string(r.Blocks), "4411")
	require.Contains(t, b.command(alice, dm, "history abcd0000-0000-4000-8000-000000000001").Text, "History")

	// Bob, in a public channel and in his own DM.
	for _, where := range []string{ch, "D0BOB"} {
		for _, probe := range []string{
			`call memory__forget {"memory": "abcd"}`,
			`call memory__forget {"memory": "abcd0000-0000-4000-8000-000000000001"}`,
			`call memory__forget {"memory": "badge number"}`,
			`call memory__recall {"query": "badge number"}`,
			`call memory__recall {"query": "diabetes"}`,
			`call memory__list {"limit": 50}`,
			"what do you remember about Alice's badge number?",
		} {
			require.Empty(t, leaks(ask(bob, where, probe)), "%s in %s", probe, where)
		}
		for _, cmd := range []string{"memories", "memories <@U0ALICE|alice>", "memories badge", "forget abcd", "forget abcd0000-0000-4000-8000-000000000002", "history abcd", "history abcd0000-0000-4000-8000-000000000001", "export <@U0ALICE|alice>", "restore abcd"} {
			r := b.command(bob, where, cmd)
			require.Empty(t, leaks(r.Text+string(r.Blocks)), "/mnemo %s in %s", cmd, where)
		}
	}
	// Nothing mnemo put into Bob's turns (the prompt, tool results) carried
	// them either; his own words may name them.
	bobsResults := 0
	for _, req := range b.turnRequests() {
		if !strings.Contains(req.System, "<@"+bob+">") {
			continue
		}
		bobsResults += len(req.LastToolResults())
		seen := req.System
		for _, m := range req.Messages {
			for _, r := range m.ToolResults {
				seen += "\n" + r.Content
			}
		}
		require.Empty(t, leaks(seen), "what mnemo gave the model in Bob's turn: %s", seen)
	}
	require.GreaterOrEqual(t, bobsResults, 12, "the probes' tool results were checked")
	// And both are still there, unforgotten.
	for _, s := range secrets {
		ms, err := b.store().ListAll(ctx, memory.Filter{SubjectUser: alice, Query: s})
		require.NoError(t, err)
		require.NotEmpty(t, ms)
		require.Nil(t, ms[0].ArchivedAt, s)
	}
}
