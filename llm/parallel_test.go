package llm_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

// A local OpenAI-compatible server without response_format reaches the
// forced-tool mode. parallel_tool_calls is OpenAI's own parameter, and is
// not sent there: a server that fails on it, with a 5xx or a 400, still
// answers in that mode. One answer is still all that is taken (two calls
// are refused by the answer check, TestCompleteJSONRefusesTwoAnswers).
func TestLocalServerThatFailsOnParallelToolCallsStillAnswers(t *testing.T) {
	t.Parallel()
	for _, status := range []int{500, 503, 400} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			answer := fakellm.Reply{JSON: `{"store":true,"reason":"a durable preference"}`}
			srv := fakellm.New(t, fakellm.RefusesResponseFormat(fakellm.RefusesParameter("parallel_tool_calls", status,
				fakellm.IgnoresResponseFormat(func(int, *fakellm.Request) fakellm.Reply { return answer }))))
			var s sleeper
			m := llm.NewOpenAI("sk-test", srv.URL+"/v1", "local-model", s.policy())
			var v verdict
			require.NoError(t, llm.CompleteJSON(context.Background(), m, verdictRequest(), &v))
			require.Equal(t, verdict{Store: true, Reason: "a durable preference"}, v)

			tool := toolRequests(srv.Requests())
			require.Len(t, tool, 1, "answered in the forced-tool mode, at the first try")
			require.NotContains(t, string(tool[0].Raw), `"parallel_tool_calls"`, "not sent to a compatible server")
			require.Empty(t, s.recorded(), "nothing was retried")

			// The mode is kept: the next request goes to it at once.
			require.NoError(t, llm.CompleteJSON(context.Background(), m, verdictRequest(), &v))
			reqs := srv.Requests()
			require.Equal(t, verdictSchema.Name, reqs[len(reqs)-1].ForcedTool())
		})
	}
}
