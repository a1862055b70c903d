package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// pastedSecrets are the eleven shapes of issue 20's reproduction: the text
// pasted, and the part of it that must never be written down.
var pastedSecrets = []struct{ text, secret string }{
	{"the token is eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"connect with postgres://app:Sup3rS3cret@db.internal:5432/prod", "Sup3rS3cret"},
	{"password: Tr0ub4dor&3", "Tr0ub4dor&3"},
	{"ci uses github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_11ABCDEFG0abcdefghij"},
	{"the deploy token is glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-AbCdEfGhIjKlMnOpQrSt"},
	{"billing uses sk_live_FAKE4eC39HqLyjWDarjtT1zdp7dc", "sk_live_FAKE4eC39HqLyjWDarjtT1zdp7dc"},
	{"maps key AIzaSyFAKE_abcdefghijklmnopqrstuvwxyz01", "AIzaSyFAKE_abcdefghijklmnopqrstuvwxyz01"},
	{"alerts post to https://hooks.slack.com/services/T0AAA/B0BBB/XXXXXXXXXXXXXXXX", "T0AAA/B0BBB/XXXXXXXXXXXXXXXX"},
	{"here it is:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", "BEGIN RSA PRIVATE KEY"},
	{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"use xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx for the bot", "AbCdEfGhIjKlMnOpQrStUvWx"},
}

// leaked names each pasted secret that text holds, as typed or as JSON
// escapes it (& is \u0026 in Go's JSON, / may be \/).
func leaked(text string) []string {
	var out []string
	for _, p := range pastedSecrets {
		enc, _ := json.Marshal(p.secret)
		forms := []string{p.secret, strings.Trim(string(enc), `"`), strings.ReplaceAll(p.secret, "/", `\/`)}
		for _, f := range forms {
			if strings.Contains(text, f) {
				out = append(out, p.secret)
				break
			}
		}
	}
	return out
}

// Issue 20, defects 2 and 3: at debug level, 10 of 11 pasted secret shapes
// appeared verbatim in the log (Socket Mode's debug frames), and every post
// was written raw into inbox_arrivals.args and river_job.args. Each post is
// tagged with a canary word, which the log and the job args must hold: they
// are read, and only the secret is gone.
func TestPastedSecretsNeverReachTheLogOrTheJobQueue(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	const dm = "D0ALICE"
	for i, p := range pastedSecrets {
		ts, _ := b.dm(alice, dm, fmt.Sprintf("canary%02d %s", i, p.text), "")
		b.waitDone(dm, ts)
	}
	logs := b.logs.String()
	for i := range pastedSecrets {
		require.Contains(t, logs, fmt.Sprintf("canary%02d", i), "the debug log holds the frame of post %d", i)
	}
	require.Empty(t, leaked(logs), "secrets in the debug log")
	require.Contains(t, logs, detect.RedactedMarker)

	rows, err := b.db.Pool.Query(context.Background(), `
		SELECT args::text FROM river_job WHERE kind = 'mnemo_turn'
		UNION ALL SELECT args::text FROM inbox_arrivals`)
	require.NoError(t, err)
	var args []string
	for rows.Next() {
		var a string
		require.NoError(t, rows.Scan(&a))
		args = append(args, a)
	}
	require.NoError(t, rows.Err())
	all := strings.Join(args, "\n")
	for i := range pastedSecrets {
		require.Contains(t, all, fmt.Sprintf("canary%02d", i), "the job args of post %d are read", i)
	}
	require.Empty(t, leaked(all), "secrets in the job args")
}

// The scrubber reads JSON lines string by string: a secret is found as
// typed however JSON escapes it, the line stays valid JSON, and a line
// without secrets is written byte for byte.
func TestRedactLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"zerolog field", `{"level":"debug","text":"my password is Tr0ub4dor\u00263","time":"x"}` + "\n",
			`{"level":"debug","text":"my password is ` + detect.RedactedMarker + `","time":"x"}` + "\n"},
		{"PEM in a frame", `socketmode: Received WebSocket message: {"payload":{"event":{"text":"-----BEGIN RSA PRIVATE KEY-----\nMIIEow"}}}`,
			`socketmode: Received WebSocket message: {"payload":{"event":{"text":"` + detect.RedactedMarker + `\nMIIEow"}}}`},
		{"plain text line", "level=WARN msg=\"x\" token=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx\n",
			"level=WARN msg=\"x\" token=" + detect.RedactedMarker + "\n"},
		{"a secret under its key", `{"level":"debug","input":{"password":"Tr0ub4dor\u00263","DB_PASSWORD":"hunter22"}}`,
			`{"level":"debug","input":{"password":"` + detect.RedactedMarker + `","DB_PASSWORD":"` + detect.RedactedMarker + `"}}`},
		{"a key alone is not a secret", `{"password":"forgotten","user":"admin"}`, `{"password":"forgotten","user":"admin"}`},
		{"nothing to redact", `{"level":"info","message":"mnemo serving","http":"127.0.0.1:80"}` + "\n",
			`{"level":"info","message":"mnemo serving","http":"127.0.0.1:80"}` + "\n"},
	} {
		got := string(redactLine([]byte(tc.in)))
		require.Equal(t, tc.want, got, tc.name)
		if strings.HasPrefix(tc.in, "{") {
			require.True(t, json.Valid([]byte(got)), "%s: %s", tc.name, got)
		}
	}
}
