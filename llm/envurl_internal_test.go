package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostRecorder answers no request: it records each one's host and fails
// it, so nothing leaves the machine.
type hostRecorder struct {
	mu    sync.Mutex
	hosts []string
}

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hosts = append(h.hosts, r.URL.Host)
	return nil, errors.New("recorded, not sent")
}

// A model without a base URL goes to its provider's own API, whatever the
// environment says: the SDKs read OPENAI_BASE_URL and ANTHROPIC_BASE_URL,
// and would have sent the model's key (and, for OpenAI, its own
// parameters, such as parallel_tool_calls) to a host mnemo's settings
// never named. Not parallel: it sets the environment and the package's
// HTTP client.
func TestAModelWithoutABaseURLIgnoresTheSDKsEnvironment(t *testing.T) {
	hit := make(chan string, 8)
	env := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit <- r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(env.Close)
	t.Setenv("OPENAI_BASE_URL", env.URL+"/v1")
	t.Setenv("ANTHROPIC_BASE_URL", env.URL)

	rec := &hostRecorder{}
	was := httpClient
	httpClient = &http.Client{Transport: rec, Timeout: HTTPTimeout}
	t.Cleanup(func() { httpClient = was })

	req := Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}, MaxTokens: 16}
	_, err := NewOpenAI("sk-secret-openai", "", "m").Complete(context.Background(), req)
	require.Error(t, err)
	_, err = NewAnthropic("sk-ant-secret", "", "m").Complete(context.Background(), req)
	require.Error(t, err)
	_, err = NewEmbedder("sk-secret-openai", "", "text-embedding-3-small").Embed(context.Background(), []string{"hi"})
	require.Error(t, err)

	rec.mu.Lock()
	hosts := append([]string(nil), rec.hosts...)
	rec.mu.Unlock()
	require.NotEmpty(t, hosts)
	for _, h := range hosts {
		require.Contains(t, []string{"api.openai.com", "api.anthropic.com"}, h)
	}
	require.Contains(t, hosts, "api.openai.com")
	require.Contains(t, hosts, "api.anthropic.com")
	select {
	case key := <-hit:
		t.Fatalf("a request went to the environment's base URL, with %q", key)
	default:
	}
	require.True(t, NewOpenAI("k", "", "m").ownAPI(), "OpenAI's own API is asked for one call")
}
