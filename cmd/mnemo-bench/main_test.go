package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// make eval-embed refuses clearly, exiting non-zero, when no embedding
// endpoint is configured and when the configured one does not answer;
// the key is never printed.
func TestEvalEmbedRefusesWithoutAnEndpoint(t *testing.T) {
	// A port that refuses connections: listen, then close.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	for _, c := range []struct {
		name string
		env  map[string]string
		code int
		want string
	}{
		{"none configured", map[string]string{}, 2, "no embedding endpoint is configured (MNEMO_EMBEDDING_MODEL is not set)"},
		{"not an URL", map[string]string{"MNEMO_EMBEDDING_MODEL": "m", "MNEMO_EMBEDDING_BASE_URL": "localhost:11434"}, 2, "not an http(s) URL"},
		{"unreachable", map[string]string{"MNEMO_EMBEDDING_MODEL": "nomic-embed-text", "MNEMO_EMBEDDING_BASE_URL": closed, "MNEMO_LLM_API_KEY": "sk-secret-key"}, 1,
			"the embedding endpoint (nomic-embed-text at " + closed + ") did not answer, so recall by meaning was not measured"},
		{"unreachable, the LLM's base URL", map[string]string{"MNEMO_EMBEDDING_MODEL": "e", "MNEMO_LLM_BASE_URL": closed, "OPENAI_API_KEY": "sk-secret-key"}, 1,
			"(e at " + closed + ") did not answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/none", "LOCOMO_DIR": t.TempDir()}
			for k, v := range c.env {
				env[k] = v
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--only", "embed"}, func(k string) string { return env[k] }, &stdout, &stderr)
			if code != c.code || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr.String())
			}
			if strings.Contains(stderr.String()+stdout.String(), "sk-secret-key") {
				t.Errorf("the key was printed:\n%s", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %s", stdout.String())
			}
		})
	}
}
