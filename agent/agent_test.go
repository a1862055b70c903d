package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
)

func registry(t *testing.T) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(tools.Tool{
		Name: "clock", Source: "builtin", Exposure: tools.Direct, Description: "Tell the time.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"additionalProperties":false}`),
		Handler:     func(context.Context, tools.Invocation, json.RawMessage) (any, error) { return "12:00", nil },
	}))
	return reg
}

var turn = agent.Turn{
	Inv: tools.Invocation{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UA", Name: "Alice"}, Place: provenance.Place{Team: "T1", Channel: "C1", Visibility: provenance.Public}},
	History: []threads.Message{
		{Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "UB", Name: "Bob"}, Text: "context from Bob"},
		{Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "UA", Name: "Alice"}, Text: "what time is it?"},
	},
}

func TestStepLimitEndsWithAnAnswerWithoutTools(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if len(req.Tools) == 0 {
			return fakellm.Reply{Text: "It is noon, as far as I got."}
		}
		return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "clock", Input: json.RawMessage(`{}`)}}}
	})
	a := agent.New(agent.Options{Model: llm.NewAnthropic("k", srv.URL, "m"), Registry: registry(t), MaxSteps: 3})
	out, err := a.Run(context.Background(), turn)
	require.NoError(t, err)
	require.Equal(t, 3, out.Steps)
	require.Equal(t, "It is noon, as far as I got.", out.Reply)
	require.Equal(t, []string{"clock", "clock", "clock"}, out.ToolsRun)
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	last := reqs[3].Messages[len(reqs[3].Messages)-1]
	require.Contains(t, last.Text, "Step limit reached")
	require.Len(t, last.ToolResults, 1, "the nudge rides with the last tool results, so roles still alternate")
}

func TestBadToolCallsComeBackAsResultsNotCrashes(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Queue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "clocks", Input: json.RawMessage(`{}`)}, {Name: "clock", Input: json.RawMessage(`{"zone": 5}`)}, {Name: "clock", Input: json.RawMessage(`{not json`)}}},
		fakellm.Reply{Text: "done"},
	))
	a := agent.New(agent.Options{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m"), Registry: registry(t)})
	out, err := a.Run(context.Background(), turn)
	require.NoError(t, err)
	require.Equal(t, "done", out.Reply)
	results := srv.Requests()[1].LastToolResults()
	require.Len(t, results, 3)
	require.Contains(t, results[0].Content, `did you mean \"clock\"`)
	require.Contains(t, results[1].Content, "violations")
	require.Contains(t, results[2].Content, "not valid JSON")
}

func TestTurnDeadline(t *testing.T) {
	t.Parallel()
	// A model that does not answer before the test ends: only the turn's
	// deadline can end the turn.
	release := make(chan struct{})
	srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
		<-release
		return fakellm.Reply{Text: "too late"}
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	a := agent.New(agent.Options{Model: llm.NewAnthropic("k", srv.URL, "m"), Registry: registry(t), TurnTimeout: 200 * time.Millisecond})
	ended := make(chan error, 1)
	go func() {
		_, err := a.Run(context.Background(), turn)
		ended <- err
	}()
	select {
	case err := <-ended:
		require.Error(t, err)
		require.True(t, errors.Is(err, context.DeadlineExceeded), err)
	case <-time.After(30 * time.Second):
		t.Fatal("the turn's deadline did not end it")
	}
}

func TestTranscriptNamesSpeakersAndAlternates(t *testing.T) {
	t.Parallel()
	msgs := agent.Transcript(append([]threads.Message{{Role: threads.RoleAssistant, Text: "earlier answer"}}, turn.History...))
	require.Len(t, msgs, 3)
	require.Equal(t, llm.RoleUser, msgs[0].Role, "a thread may start with the bot; the model still sees a user turn first")
	require.Equal(t, llm.RoleAssistant, msgs[1].Role)
	require.Equal(t, llm.RoleUser, msgs[2].Role)
	require.True(t, strings.HasPrefix(msgs[2].Text, "Bob (<@UB>): context from Bob"))
	require.Contains(t, msgs[2].Text, "Alice (<@UA>): what time is it?")
}
