package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/fakellm"
	"github.com/mnemo-bot/mnemo/internal/scripted"
	"github.com/mnemo-bot/mnemo/internal/testdb"
)

// mnemo chat holds a conversation through piped standard input, with the
// same agent, catalog and memory store, and no Slack.
func TestChatHoldsAConversation(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, scripted.Memory())
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": model.URL + "/v1",
		"MNEMO_LLM_API_KEY": "sk-test-0123456789abcdef", "MNEMO_MODEL": "gpt-test", "USER": "dev",
	}
	in := strings.NewReader("hello there\n\nremember that I prefer tabs over spaces\nwhat do you remember?\n/exit\nnever read\n")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"chat"}, func(k string) string { return env[k] }, in, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	transcript := out.String()
	require.Contains(t, transcript, "mnemo> Hello!")
	require.Contains(t, transcript, "mnemo> Got it, I'll remember: Prefers tabs over spaces")
	require.Contains(t, transcript, "From memory (1):\n- Prefers tabs over spaces", "recalled in the next turn of the session")
	require.Equal(t, 3, strings.Count(transcript, "mnemo> "), "the blank line is skipped and /exit ends the chat")

	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM memories WHERE subject_id = 'ULOCAL' AND scope = 'personal'").Scan(&n))
	require.Equal(t, 1, n)
	// Each line was a turn of one thread: the third request carried the first two exchanges.
	var turns []*fakellm.Request
	for _, r := range model.Requests() {
		if strings.HasPrefix(r.System, "You are mnemo") {
			turns = append(turns, r)
		}
	}
	last := turns[len(turns)-1].Transcript()
	require.Contains(t, last, "hello there")
	require.Contains(t, last, "remember that I prefer tabs over spaces")
}
