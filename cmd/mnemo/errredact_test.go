package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// mnemoProcess runs the test binary as mnemo (TestMain) with env and args,
// and returns its exit code and stderr.
func mnemoProcess(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append([]string{"MNEMO_TEST_MAIN=1", "MNEMO_LLM_PROVIDER="}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// The error a command ends with is written to stderr scrubbed, as a log
// line is: a Slack token pasted into the wrong flag (an argument error)
// and a connection string with its password given as a memory's id (a
// command's error, which quotes it) are redacted, and the rest of each
// message is kept.
func TestACommandsFinalErrorIsRedacted(t *testing.T) {
	t.Parallel()
	const token = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	t.Run("argument error", func(t *testing.T) {
		t.Parallel()
		code, errs := mnemoProcess(t, []string{"DATABASE_URL=" + closedPortURL(t)}, "mcp", "--user", token, "--team", "T0TEAM")
		require.Equal(t, 2, code, errs)
		require.NotContains(t, errs, "AbCdEfGhIjKlMnOpQrStUvWx")
		require.Contains(t, errs, `mnemo mcp: mcp over stdio needs --user U… and --team T…, the identity every call acts for: user "`+detect.RedactedMarker+`" is not a Slack user id (U… or W…)`)
		require.True(t, strings.HasSuffix(errs, "Run 'mnemo mcp -h' for usage.\n"), errs)
	})
	t.Run("unknown command", func(t *testing.T) {
		t.Parallel()
		code, errs := mnemoProcess(t, []string{"DATABASE_URL=" + closedPortURL(t)}, token)
		require.Equal(t, 2, code, errs)
		require.NotContains(t, errs, "AbCdEfGhIjKlMnOpQrStUvWx")
		require.Contains(t, errs, `mnemo: unknown command "`+detect.RedactedMarker+`"`)
	})
	t.Run("command error", func(t *testing.T) {
		t.Parallel()
		d := testdb.New(t)
		const password = "Sup3rS3cretZqx"
		ref := "postgres://app:" + password + "@db.internal:5432/prod"
		code, errs := mnemoProcess(t, []string{"DATABASE_URL=" + d.URL}, "memories", "forget", "--as", "U0ALICE", "--team", "T1", ref)
		require.Equal(t, 1, code, errs)
		require.NotContains(t, errs, password)
		require.Equal(t, `mnemo memories: no memory you can see has the id "postgres://app:`+detect.RedactedMarker+`@db.internal:5432/prod"`+"\n", errs)
	})
}

// failingReader is a stdin whose read fails with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// mcp-go's stdio server logs its own errors (here a failed read of stdin,
// whose error quotes a connection string) through mnemo's redacting log,
// to the command's stderr, not raw to the process's. Not parallel: mcp-go
// keeps one stdio session for the process.
func TestMCPStdioServerErrorsGoThroughTheRedactingLog(t *testing.T) {
	d := testdb.New(t)
	const password = "Sup3rS3cretZqx"
	in := failingReader{errors.New("read stdin: relay postgres://app:" + password + "@relay.internal:5432/prod went away")}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"mcp", "--user", "U0BOB", "--team", "T0TEAM"},
		func(k string) string { return map[string]string{"DATABASE_URL": d.URL}[k] }, in, &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	logs := errOut.String()
	require.NotContains(t, logs, password)
	require.Regexp(t, `"component":"mcp".*"message":"Error reading input: read stdin: relay postgres://app:`+regexp.QuoteMeta(detect.RedactedMarker)+`@relay.internal`, logs)
}

// mnemo's own errors read as they are, through the final error's
// scrubbing: the connection string form's placeholder password, and a
// token's error naming its variable; the secrets beside them do not.
func TestAFinalErrorKeepsMnemosOwnWords(t *testing.T) {
	t.Parallel()
	const token = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	scrub := func(in string) string {
		var b strings.Builder
		_, err := errorWriter{&b}.Write([]byte(in))
		require.NoError(t, err)
		return b.String()
	}
	in := "auth.test for SLACK_BOT_TOKEN failed, Slack answering with an error: invalid_auth; the Socket Mode websocket of SLACK_APP_TOKEN was refused by Slack 3 times in a row; DATABASE_URL postgres://app:Sup3rS3cretZqx@db/prod: expected the form " + db.URLForm + "; SLACK_APP_TOKEN: " + token
	want := "auth.test for SLACK_BOT_TOKEN failed, Slack answering with an error: invalid_auth; the Socket Mode websocket of SLACK_APP_TOKEN was refused by Slack 3 times in a row; DATABASE_URL postgres://app:" + detect.RedactedMarker + "@db/prod: expected the form " + db.URLForm + "; SLACK_APP_TOKEN: " + detect.RedactedMarker
	require.Equal(t, want, scrub(in))
	require.Equal(t, "mnemo: "+detect.RedactedMarker+"\n", scrub("mnemo: "+token+"\n"))
}
