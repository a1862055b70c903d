package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// OpenAI's own API is asked for one call of the forced tool
// (parallel_tool_calls false); a compatible server is not sent the
// parameter. The requests go through the SDK to a local server that
// records their bodies; OpenAI's own API is told by the model's base URL.
func TestOpenAIOwnAPIIsAskedForOneCall(t *testing.T) {
	t.Parallel()
	bodies := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		bodies <- string(raw)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"verdict","arguments":"{}"}}]}}]}`)
	}))
	t.Cleanup(srv.Close)
	req := Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}, Schema: &Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object"}`)}}
	for _, c := range []struct {
		baseURL string
		own     bool
	}{
		{"", true},
		{"https://api.openai.com/v1", true},
		{"https://API.OpenAI.com:443/v1/", true},
		{"http://localhost:11434/v1", false},
		{"https://openrouter.ai/api/v1", false},
		{"https://api.openai.com.example.net/v1", false},
	} {
		o := NewOpenAI("sk-test", c.baseURL, "m")
		o.client = newOpenAIClient("sk-test", srv.URL) // whatever the base URL, the test server answers
		_, err := o.complete(context.Background(), req, modeTool)
		require.NoError(t, err, c.baseURL)
		body := <-bodies
		require.Contains(t, body, `"tool_choice":{"function":{"name":"verdict"}`, "control: the tool is forced (%s)", c.baseURL)
		if c.own {
			require.Contains(t, body, `"parallel_tool_calls":false`, "OpenAI's own API (%q)", c.baseURL)
		} else {
			require.NotContains(t, body, `"parallel_tool_calls"`, "a compatible server (%q)", c.baseURL)
		}
	}
}
