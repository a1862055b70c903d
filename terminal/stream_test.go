package terminal_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/terminal"
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

const longAnswer = "The clock tool says it is noon in Paris. That is twelve o'clock, the middle of the day, when the sun is highest; " +
	"in winter it sits low over the Seine even then, and the cafés along the quays fill with people taking a long lunch. " +
	"If you meant another city, tell me which one and I will ask the clock again, since time zones differ by up to a day."

// writes records each write to the terminal.
type writes struct{ got []string }

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, string(p))
	return len(p), nil
}

// mnemo chat's session prints an answer as it is generated, and the whole
// of what it prints is the reply Say returns, on its own line.
func TestSessionStreamsToTheTerminal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		answer   string
		streamed bool
	}{
		{name: "long answer in parts", answer: longAnswer, streamed: true},
		{name: "short answer at once", answer: "It is noon."},
		// The reply is trimmed; the stream is not. Ending in whitespace
		// once printed the whole answer a second time.
		{name: "streamed answer ending in whitespace", answer: longAnswer + "\n\n", streamed: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := testdb.New(t)
			srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: c.answer} })
			a := agent.New(agent.Options{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m"), Registry: registry(t)})
			s := terminal.NewSession(agent.NewRunner(d.DB, a, agent.RunnerOptions{}), provenance.Actor{Kind: provenance.KindUser, Team: "local", ID: "dev"}, zerolog.Nop(), nil)
			w := &writes{}
			s.StreamTo(w)
			var status []string
			s.OnStatus(func(text string) { status = append(status, text) })
			reply, err := s.Say(context.Background(), "what time is it?")
			require.NoError(t, err)
			require.Equal(t, strings.TrimSpace(c.answer), reply)
			printed := strings.Join(w.got, "")
			require.Equal(t, 1, strings.Count(printed, "The clock tool says")+strings.Count(printed, "It is noon."), "printed once: %q", printed)
			require.Equal(t, strings.TrimSpace(c.answer), strings.TrimSpace(printed))
			require.True(t, strings.HasSuffix(printed, "\n"), "the answer ends its line")
			require.Equal(t, []string{agent.StatusThinking}, status, "the one step this turn took")
			if c.streamed {
				require.GreaterOrEqual(t, len(w.got), 2, "printed as it came")
			} else {
				require.Len(t, w.got, 1)
			}
		})
	}
}

// A model's answer is written to an operator's terminal as it comes: an
// escape sequence or a bell in it must not act there, as it is not kept
// in the reply (db.Sanitize).
func TestAStreamedAnswerCarriesNoTerminalEscapes(t *testing.T) {
	t.Parallel()
	answer := longAnswer + " \x1b[2J\x1b]0;pwned\x07Cleared\u202e."
	d := testdb.New(t)
	srv := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: answer} })
	a := agent.New(agent.Options{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m"), Registry: registry(t)})
	s := terminal.NewSession(agent.NewRunner(d.DB, a, agent.RunnerOptions{}), provenance.Actor{Kind: provenance.KindUser, Team: "local", ID: "dev"}, zerolog.Nop(), nil)
	w := &writes{}
	s.StreamTo(w)
	reply, err := s.Say(context.Background(), "what time is it?")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(w.got), 2, "the control: printed as it came")
	printed := strings.Join(w.got, "")
	require.NotContains(t, printed, "\x1b")
	require.NotContains(t, printed, "\x07")
	require.NotContains(t, printed, "\u202e")
	require.Contains(t, printed, "[2J]0;pwnedCleared.", "the printable rest is shown")
	require.Equal(t, reply, strings.TrimSpace(printed), "printed once, as the reply")
}
