package ops_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/ops"
)

// /readyz says which checks failed and why in a line each, with the
// secrets a dependency's error may quote (a connection string's password,
// a token, a key in a URL) redacted, and a long error cut short.
func TestReadyzRedactsAndShortensCheckErrors(t *testing.T) {
	t.Parallel()
	const (
		password = "Zq8vPw3kLmRedis"
		token    = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
		apiKey   = "sk-proj-ZqxReadyzKey0123456789abcdef"
	)
	base := serve(t, nil,
		ops.Check{Name: "postgres", Check: func(context.Context) error {
			return errors.New("connect postgres://mnemo:" + password + "@db.internal:5432/mnemo: connection refused")
		}},
		ops.Check{Name: "slack", Check: func(context.Context) error {
			return errors.New("auth.test with " + token + ": invalid_auth\nsecond line of detail")
		}},
		ops.Check{Name: "queue", Check: func(context.Context) error {
			return errors.New("GET https://api.example.com/v1/health?api_key=" + apiKey + ": " + strings.Repeat("é", 300))
		}},
	)
	code, body := get(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	for _, secret := range []string{password, token, "AbCdEfGhIjKlMnOpQrStUvWx", apiKey} {
		require.NotContains(t, body, secret)
	}
	require.Contains(t, body, "postgres: connect postgres://mnemo:"+detect.RedactedMarker+"@db.internal:5432/mnemo", "the reason is still read")
	require.Contains(t, body, "slack: auth.test with "+detect.RedactedMarker+": invalid_auth;", "one line a check")
	require.NotContains(t, body, "second line")
	require.Less(t, len(body), 500, "each reason is cut short:\n%s", body)
	require.True(t, strings.HasSuffix(strings.TrimSpace(body), "…"), body)
}
