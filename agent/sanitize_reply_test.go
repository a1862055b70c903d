package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/usage"
)

// A model's answer with a NUL in it (which PostgreSQL refuses) is answered
// at the first attempt, without the NUL, and kept as it was posted: it
// used to fail the turn on every attempt, each paying the model.
func TestAnswerWithANulIsPostedAndKeptWithoutIt(t *testing.T) {
	t.Parallel()
	b := setupRunner(t, fakellm.Queue(fakellm.Reply{Text: "hello\x00 there\x1b[2J"}))
	s := newSurface()
	p := post("1800000000.000100", "hi")
	res, err := b.runner.Run(context.Background(), p, s)
	require.NoError(t, err)
	require.Empty(t, res.Failure)
	require.Equal(t, []string{"hello there[2J"}, s.replies[p.TS])
	require.Len(t, b.llm.Requests(), 1, "the model is asked once")

	got := b.turn(t, p)
	require.Equal(t, db.TurnDone, got.Status)
	log, err := b.db.DB.Sessions().History(context.Background(), p.Key, 10)
	require.NoError(t, err)
	require.Len(t, log, 2)
	require.Equal(t, "hello there[2J", log[1].Text)
}

// A tool call whose input holds a NUL (an OpenAI model's \u0000 in its
// arguments becomes one) is logged with the answer, without it: the log
// used to refuse it after the answer was posted, and the next run logged
// the answer without what its tools did.
func TestToolInputWithANulIsLoggedWithoutIt(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Queue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: tools.SearchToolsName, Input: json.RawMessage("{\"query\":\"mem\x00ory\"}")}}},
		fakellm.Reply{Text: "done"},
	))
	d := testdb.New(t)
	meter := usage.NewMeter(d.DB, usage.Limits{}, zerolog.Nop(), nil)
	model := meter.Model(llm.NewOpenAI("k", srv.URL+"/v1", "m"))
	store := memory.New(d.DB, memory.Options{})
	reg := tools.NewRegistry()
	require.NoError(t, store.Register(reg))
	a := agent.New(agent.Options{Model: model, Registry: reg, Recall: store})
	runner := agent.NewRunner(d.DB, a, agent.RunnerOptions{Logger: zerolog.Nop(), Meter: meter})

	s := newSurface()
	p := post("1800000000.000100", "what can you do with memory?")
	res, err := runner.Run(context.Background(), p, s)
	require.NoError(t, err)
	require.Empty(t, res.Failure)
	require.Equal(t, []string{"done"}, s.replies[p.TS])

	log, err := d.DB.Sessions().History(context.Background(), p.Key, 10)
	require.NoError(t, err)
	require.Len(t, log, 2)
	require.Equal(t, threads.RoleAssistant, log[1].Role)
	require.Equal(t, "done", log[1].Text)
	require.Contains(t, log[1].Tools, `searchTools {"query":"memory"} = `, "what the tools did rides with the answer")
	require.NotContains(t, log[1].Tools, "\x00")
}
