package ops_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/ops"
)

// With MNEMO_TRACE_CONTENT=true a model call's span carries its system
// prompt, messages and answer; a tool's result (an MCP server's, say) and
// the answer quoting it may hold a secret, which the span carries redacted,
// as the session log does. The words around each secret are there, so
// each attribute was read.
func TestTraceContentIsRedacted(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))

	const (
		ghToken   = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
		awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
		password  = "Tr0ub4dor&3"
	)
	secrets := []string{ghToken, awsSecret, password, `Tr0ub4dor\u00263`}
	srv := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		in, _ := json.Marshal(map[string]string{"query": "answerquery GITHUB_TOKEN=" + ghToken})
		if n == 0 {
			return fakellm.Reply{Text: "answercanary: the tool said GITHUB_TOKEN=" + ghToken, ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "search", Input: in}}}
		}
		return fakellm.Reply{Text: "answercanary: the tool said GITHUB_TOKEN=" + ghToken}
	})
	model := ops.Trace(llm.NewAnthropic("k", srv.URL, "claude-test"), true)
	callInput, _ := json.Marshal(map[string]string{"query": "inputquery password: " + password})
	req := llm.Request{
		System:    "systemcanary; the deploy key is GITHUB_TOKEN=" + ghToken,
		MaxTokens: 100,
		Tools:     []llm.ToolSpec{{Name: "search", Description: "searches", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "usercanary: my password is " + password},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "search", Input: callInput}}},
			{Role: llm.RoleUser, ToolResults: []llm.ToolResult{{CallID: "call_1", Content: "resultcanary aws_secret_access_key = " + awsSecret}}},
		},
	}
	_, err := model.Complete(context.Background(), req)
	require.NoError(t, err)
	_, err = model.(llm.Streamer).Stream(context.Background(), req, func(string) {})
	require.NoError(t, err)

	var chats []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "chat claude-test" {
			chats = append(chats, s)
		}
	}
	require.Len(t, chats, 2, "a span per call")
	for _, s := range chats {
		got := map[string]string{}
		for _, kv := range s.Attributes() {
			got[string(kv.Key)] = kv.Value.String()
			for _, secret := range secrets {
				require.NotContains(t, kv.Value.String(), secret, "span %s attribute %s", s.Name(), kv.Key)
			}
		}
		require.Contains(t, got["gen_ai.system_instructions"], "systemcanary")
		for _, w := range []string{"usercanary", "inputquery", "resultcanary"} {
			require.Contains(t, got["gen_ai.input.messages"], w)
		}
		require.Contains(t, got["gen_ai.output.messages"], "answercanary")
		require.True(t, json.Valid([]byte(got["gen_ai.input.messages"])), got["gen_ai.input.messages"])
		require.True(t, json.Valid([]byte(got["gen_ai.output.messages"])), got["gen_ai.output.messages"])
		t.Logf("%s: %s\n%s", s.Name(), got["gen_ai.input.messages"], got["gen_ai.output.messages"])
		all := strings.Join([]string{got["gen_ai.system_instructions"], got["gen_ai.input.messages"], got["gen_ai.output.messages"]}, "\n")
		require.Contains(t, all, detect.RedactedMarker)
	}
}
