package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

// Both providers carry text, tool calls and tool results through their real
// SDKs and wire formats, and hand the tool's JSON Schema over intact.
func TestProvidersRoundTripToolUse(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":["string","null"]},"max_results":{"type":"integer","minimum":1,"maximum":20}},"required":["query"],"additionalProperties":false}`)
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, fakellm.Queue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "searchTools", Input: json.RawMessage(`{"query":"memory"}`)}}},
				fakellm.Reply{Text: "all done"},
			))
			var m llm.Model
			if provider == "anthropic" {
				m = llm.NewAnthropic("sk-ant-test", srv.URL, "claude-test")
			} else {
				m = llm.NewOpenAI("sk-test", srv.URL+"/v1", "gpt-test")
			}
			req := llm.Request{
				System:   "be brief",
				Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}},
				Tools:    []llm.ToolSpec{{Name: "searchTools", Description: "find tools", InputSchema: schema}},
			}
			resp, err := m.Complete(context.Background(), req)
			require.NoError(t, err)
			require.Len(t, resp.ToolCalls, 1)
			require.Equal(t, "searchTools", resp.ToolCalls[0].Name)
			require.JSONEq(t, `{"query":"memory"}`, string(resp.ToolCalls[0].Input))

			req.Messages = append(req.Messages,
				llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls},
				llm.Message{Role: llm.RoleUser, ToolResults: []llm.ToolResult{{CallID: resp.ToolCalls[0].ID, Content: `{"ok":true}`}}},
			)
			resp, err = m.Complete(context.Background(), req)
			require.NoError(t, err)
			require.Equal(t, "all done", resp.Text)

			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			require.Equal(t, "be brief", reqs[1].System)
			require.Len(t, reqs[1].Messages, 3)
			require.Equal(t, resp.Text, "all done")
			require.Equal(t, `{"ok":true}`, reqs[1].Messages[2].ToolResults[0].Content)
			require.Equal(t, reqs[1].Messages[1].ToolCalls[0].ID, reqs[1].Messages[2].ToolResults[0].CallID)
			require.Len(t, reqs[1].Tools, 1)
			require.JSONEq(t, string(schema), string(reqs[1].Tools[0].InputSchema), "schema reaches the wire unchanged")
		})
	}
}

func TestProviderRejectsNonObjectSchema(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, nil)
	for _, m := range []llm.Model{llm.NewAnthropic("k", srv.URL, "m"), llm.NewOpenAI("k", srv.URL+"/v1", "m")} {
		_, err := m.Complete(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}},
			Tools:    []llm.ToolSpec{{Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`)}},
		})
		require.ErrorIs(t, err, llm.ErrBadSchema)
	}
	require.Empty(t, srv.Requests(), "a bad schema fails before the call, not at call time")
}
