package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
)

// thirdPerson is the scripted memory model, except that it states what
// Alice says about her medication in the third person, as mnemo's prompts
// ask ("without I"): told to remember it, it calls memory__remember with
// "Takes antidepressants every morning at nine" as a preference; asked to
// extract memories, it proposes the same, citing her line. Its review
// names no sensitive category ("none"), as scripted's always does.
func thirdPerson() fakellm.Script {
	mem := scripted.Memory()
	return func(n int, req *fakellm.Request) fakellm.Reply {
		switch {
		case strings.HasPrefix(req.System, learn.ExtractPromptMarker):
			return extractThirdPerson(req)
		case strings.HasPrefix(req.System, "You are mnemo") && strings.Contains(lastUserText(req), "remember that I take antidepressants"):
			if last := req.Messages[len(req.Messages)-1]; len(last.ToolResults) > 0 {
				return fakellm.Reply{Text: "The tool said: " + last.ToolResults[0].Content}
			}
			in, _ := json.Marshal(map[string]any{"tool_name": "memory__remember", "arguments": map[string]any{
				"content": "Takes antidepressants every morning at nine", "kind": "preference"}})
			return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "executeTool", Input: in}}}
		}
		return mem(n, req)
	}
}

var extractLine = regexp.MustCompile(`(?m)^\[(\d+)\] [^\n]*?, instruction: (.*)$`)

// extractThirdPerson proposes, for each new line of Alice's, the memory
// it states in the third person.
func extractThirdPerson(req *fakellm.Request) fakellm.Reply {
	stated := map[string]string{
		"I take antidepressants every morning at nine": "Takes antidepressants every morning at nine",
		"I prefer terse replies":                       "Prefers terse replies",
	}
	out := []map[string]any{}
	for _, m := range extractLine.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Text, -1) {
		if content, ok := stated[strings.TrimSpace(m[2])]; ok {
			var i int
			_ = json.Unmarshal([]byte(m[1]), &i)
			out = append(out, map[string]any{"kind": "preference", "content": content, "expires": "", "evidence": []int{i}})
		}
	}
	b, _ := json.Marshal(map[string]any{"memories": out})
	return fakellm.Reply{JSON: string(b)}
}

// sensitiveRow is Alice's memory that mentions antidepressants, as stored.
type sensitiveRow struct{ Content, Sensitive, Visibility string }

func (b *bot) antidepressantRows() []sensitiveRow {
	b.t.Helper()
	rows, err := b.db.Pool.Query(context.Background(), `SELECT content, sensitive, visibility FROM memories WHERE subject_id = $1 AND content ILIKE '%antidepressants%'`, alice)
	require.NoError(b.t, err)
	defer rows.Close()
	var out []sensitiveRow
	for rows.Next() {
		var r sensitiveRow
		require.NoError(b.t, rows.Scan(&r.Content, &r.Sensitive, &r.Visibility))
		out = append(out, r)
	}
	require.NoError(b.t, rows.Err())
	return out
}

// turnOf runs one turn for text from alice in channel (a DM when it starts
// with D) and returns the model requests made until it finished.
func (b *bot) turnOf(channel, text string) (reply string, reqs []*fakellm.Request) {
	b.t.Helper()
	before := len(b.llm.Requests())
	var ts string
	if strings.HasPrefix(channel, "D") {
		ts, _ = b.dm(alice, channel, text, "")
	} else {
		ts, _ = b.mention(alice, channel, text, "")
	}
	reply = b.replies(channel, ts, 1)[0].Text
	b.waitDone(channel, ts)
	return reply, b.llm.Requests()[before:]
}

// checkPublicTurn asks about Alice's morning in #general and checks that no
// model request of that turn carries her DM health fact.
func (b *bot) checkPublicTurn() {
	b.t.Helper()
	reply, reqs := b.turnOf("C0GENERAL", "what should my morning routine look like?")
	turns := 0
	for _, r := range reqs {
		require.NotContains(b.t, r.Transcript(), "antidepressants", "a model request of Alice's public turn")
		if strings.HasPrefix(r.System, "You are mnemo") && strings.Contains(r.Transcript(), "morning routine") {
			turns++
		}
	}
	require.Positive(b.t, turns, "the public turn's requests were checked")
	require.NotContains(b.t, reply, "antidepressants")
}

// inDM says whether a later turn of Alice's in her DM gives the model her
// health fact: where it was said, it is applied.
func (b *bot) inDM() bool {
	b.t.Helper()
	_, reqs := b.turnOf("D0ALICE", "what should my morning routine look like?")
	for _, r := range reqs {
		if strings.HasPrefix(r.System, "You are mnemo") && strings.Contains(r.System, "Takes antidepressants every morning at nine") {
			return true
		}
	}
	return false
}

// Issue 30, item 1, end to end through the binary: Alice tells mnemo in her
// DM to remember that she takes antidepressants. The model writes it in the
// third person as a preference, and the review names no category. The
// detectors read her own words too, so it is kept as sensitive, in the DM:
// no model request of her later turn in #general carries it. Controls: the
// row is in the database, and a later turn in her DM is given it.
func TestDMHealthFactInTheThirdPersonNeverReachesAPublicTurn(t *testing.T) {
	t.Parallel()
	b := startBot(t, thirdPerson())
	reply, _ := b.turnOf("D0ALICE", "remember that I take antidepressants every morning at nine")
	require.Contains(t, reply, `"stored":true`)
	rows := b.antidepressantRows()
	require.Len(t, rows, 1, "control: the memory is in the database")
	require.Equal(t, "Takes antidepressants every morning at nine", rows[0].Content)

	b.checkPublicTurn()

	require.Equal(t, sensitiveRow{"Takes antidepressants every morning at nine", "health", "dm"}, b.antidepressantRows()[0], "kept as sensitive, in the DM")
	require.True(t, b.inDM(), "control: applied in her DM")
}

// Issue 30, item 1, through passive learning: Alice says it in her DM
// without asking; extraction proposes it in the third person. The evidence
// line is hers, in the first person, so it is never learned, and her later
// public turn carries nothing of it. Control: her ordinary preference, said
// the same way, is learned, and the query finds it.
func TestDMHealthFactLearnedInTheThirdPersonNeverReachesAPublicTurn(t *testing.T) {
	t.Parallel()
	b := startBot(t, thirdPerson())
	b.turnOf("D0ALICE", "I prefer terse replies")
	b.turnOf("D0ALICE", "I take antidepressants every morning at nine")
	require.Eventually(t, func() bool {
		return strings.Count(b.logs.String(), `"event":"`+learn.EventDecided+`"`) >= 2
	}, 60*time.Second, 20*time.Millisecond, "both turns' learning decided")

	var learned int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE written_by = 'passive' AND subject_id = $1 AND content = 'Prefers terse replies'`, alice).Scan(&learned))
	require.Equal(t, 1, learned, "control: the ordinary preference was learned")
	decision := logLine(b.logs.String(), `"kind":"preference","stored":false`)
	require.Contains(t, decision, "sensitive personal data (health) is never learned from conversation")
	require.Empty(t, b.antidepressantRows(), "the health fact was not learned")

	b.checkPublicTurn()
}
