package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/learn"
)

// localChat runs mnemo chat against a local OpenAI-compatible server at
// url, with no API key, until stop is called; it returns the chat's input.
func localChat(t *testing.T, url string, d *testdb.DB, logFile string) (say func(line string), stop func() string) {
	t.Helper()
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": url + "/v1",
		"MNEMO_MODEL": "llama3.2", "USER": "dev", "MNEMO_LOG_FILE": logFile,
	}
	in, inW := io.Pipe()
	out := &syncbuf.Buffer{}
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"chat"}, func(k string) string { return env[k] }, in, out, &errOut)
		_ = in.CloseWithError(fmt.Errorf("chat ended with %d: %s", code, errOut.String())) // fails a later say
		done <- code
	}()
	t.Cleanup(func() { _ = inW.Close() })
	say = func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	stop = func() string {
		require.NoError(t, inW.Close())
		select {
		case code := <-done:
			require.Equal(t, 0, code, errOut.String())
		case <-time.After(60 * time.Second):
			t.Fatal("chat did not end")
		}
		return out.String()
	}
	return say, stop
}

// Passive learning works against a local server (no API key) that ignores
// response_format: structured output falls back to a forced tool call.
func TestPassiveLearningWithAServerThatIgnoresResponseFormat(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, fakellm.IgnoresResponseFormat(scripted.Memory()))
	logFile := filepath.Join(t.TempDir(), "chat.log")
	say, stop := localChat(t, model.URL, d, logFile)
	say("honestly i prefer tabs over spaces")
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, d.Pool.QueryRow(context.Background(),
			"SELECT count(*) FROM memories WHERE written_by = 'passive' AND subject_id = 'ULOCAL' AND content = 'Prefers tabs over spaces'").Scan(&n))
		return n == 1
	}, 60*time.Second, 50*time.Millisecond, "the preference was learned")
	out := stop()
	require.NotContains(t, out, "passive learning failed")
	logs, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(logs), "structured output mode chosen"), "chosen once, then cached:\n%s", logs)
	require.Contains(t, string(logs), `"mode":"tool"`)
	require.NotContains(t, string(logs), "passive learning failed for a turn")
	var modes []string
	for _, r := range model.Requests() {
		if strings.HasPrefix(r.System, learn.ExtractPromptMarker) {
			switch {
			case r.ResponseFormat != nil:
				modes = append(modes, r.ResponseFormat.Type)
			case r.ForcedTool() != "":
				modes = append(modes, "tool")
			}
		}
	}
	require.Contains(t, modes, "tool", "extraction went by a forced tool call")
}

// A learning job that fails is logged at warn, and the chat says so.
func TestFailedLearningIsSaidInChatAndLoggedAtWarn(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	memory := scripted.Memory()
	model := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, learn.ExtractPromptMarker) {
			return fakellm.Reply{Text: "I could not find anything worth remembering, sorry."} // never JSON
		}
		return memory(n, req)
	})
	logFile := filepath.Join(t.TempDir(), "chat.log")
	say, stop := localChat(t, model.URL, d, logFile)
	say("honestly i prefer tabs over spaces")
	require.Eventually(t, func() bool {
		logs, _ := os.ReadFile(logFile)
		return strings.Contains(string(logs), `"level":"warn"`) && strings.Contains(string(logs), "passive learning failed for a turn")
	}, 60*time.Second, 50*time.Millisecond, "the failure is logged at warn")
	out := stop()
	require.Regexp(t, `\(passive learning failed \d+ times this session; the log says why\)`, out)
}

// The chat's status line says how many learning jobs failed.
func TestStatusLineShowsFailedLearning(t *testing.T) {
	t.Parallel()
	var failed atomic.Int64
	out := &syncbuf.Buffer{}
	s := &statusLine{w: out, every: 5 * time.Millisecond, learningFailed: &failed}
	stop := s.show("thinking")
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "thinking…") }, 5*time.Second, 5*time.Millisecond)
	require.NotContains(t, out.String(), "passive learning failed", "control: nothing failed yet")
	failed.Store(2)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "· passive learning failed 2 times (see the log)") }, 5*time.Second, 5*time.Millisecond)
	stop()
}
