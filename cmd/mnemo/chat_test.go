package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
)

// mnemo chat holds a conversation through piped standard input, with the
// same agent, catalog and memory store, and no Slack.
func TestChatHoldsAConversation(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, scripted.Memory())
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": model.URL + "/v1",
		"MNEMO_LLM_API_KEY": "sk-test-0123456789abcdef", "MNEMO_MODEL": "gpt-test", "USER": "dev",
	}
	in := strings.NewReader("hello there\n\nremember that I prefer tabs over spaces\nwhat do you remember?\n/exit\nnever read\n")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"chat"}, func(k string) string { return env[k] }, in, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	transcript := out.String()
	require.Contains(t, transcript, "mnemo> Hello!")
	require.Contains(t, transcript, "mnemo> Got it, I'll remember: Prefers tabs over spaces")
	require.Contains(t, transcript, "From memory (1):\n- Prefers tabs over spaces", "recalled in the next turn of the session")
	require.Equal(t, 3, strings.Count(transcript, "mnemo> "), "the blank line is skipped and /exit ends the chat")

	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM memories WHERE subject_id = 'ULOCAL' AND scope = 'personal'").Scan(&n))
	require.Equal(t, 1, n)
	// Each line was a turn of one thread: the third request carried the first two exchanges.
	var turns []*fakellm.Request
	for _, r := range model.Requests() {
		if strings.HasPrefix(r.System, "You are mnemo") {
			turns = append(turns, r)
		}
	}
	last := turns[len(turns)-1].Transcript()
	require.Contains(t, last, "hello there")
	require.Contains(t, last, "remember that I prefer tabs over spaces")
}

// screen collects what a chat prints, and waits for text to appear.
type screen struct {
	t       *testing.T
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	seen    int // where the next wait starts looking
}

func newScreen(t *testing.T) *screen { return &screen{t: t, changed: make(chan struct{}, 1)} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until text appears after what earlier waits found.
func (s *screen) waitFor(text string) {
	s.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		i := strings.Index(s.buf.String()[s.seen:], text)
		if i >= 0 {
			s.seen += i + len(text)
		}
		s.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-s.changed:
		case <-deadline:
			s.t.Fatalf("waiting for %q; the screen shows:\n%s", text, s.String())
		}
	}
}

// slowModel is the scripted model, except that the first turn asked to
// "take your time" reports that it started and then waits until the test
// ends. (Later turns carry those words in their history.)
func slowModel(t *testing.T) (*fakellm.Server, <-chan struct{}) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	var slowed atomic.Bool
	base := scripted.Memory()
	model := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You are mnemo") && strings.Contains(req.Messages[len(req.Messages)-1].Text, "take your time") {
			if slowed.CompareAndSwap(false, true) {
				started <- struct{}{}
				<-release
			}
		}
		return base(n, req)
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	return model, started
}

func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// mnemo chat in a real terminal (a pseudo-terminal): line editing by
// liner, a status line while a turn runs, Ctrl-C stopping the turn without
// ending the chat, Ctrl-C at the prompt leaving with exit 0, and the log in
// its file, never on the screen.
func TestChatInATerminalCtrlCStopsTheTurnThenLeaves(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model, started := slowModel(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "chat.log")
	cmd := exec.Command(exe, "chat")
	cmd.Env = []string{
		"MNEMO_TEST_MAIN=1", "TERM=xterm", "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "USER=dev",
		"DATABASE_URL=" + d.URL, "MNEMO_LLM_PROVIDER=openai", "MNEMO_LLM_BASE_URL=" + model.URL + "/v1",
		"MNEMO_LLM_API_KEY=sk-test-0123456789abcdef", "MNEMO_MODEL=gpt-test", "MNEMO_LOG_FILE=" + logFile,
	}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	require.NoError(t, err)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		tty.Close()
	})
	scr := newScreen(t)
	go func() { _, _ = io.Copy(scr, tty) }()
	typeKeys := func(s string) {
		_, err := tty.Write([]byte(s))
		require.NoError(t, err)
	}

	scr.waitFor("Log: " + logFile)
	scr.waitFor("you> ")
	typeKeys("hello there\r")
	scr.waitFor("mnemo> Hello!")
	scr.waitFor("you> ")

	typeKeys("take your time\r")
	waitSignal(t, started, "the slow turn to reach the model")
	scr.waitFor("thinking… ")
	typeKeys("\x03") // Ctrl-C: the terminal sends SIGINT
	scr.waitFor("mnemo> (stopped; nothing was answered)")
	scr.waitFor("you> ")

	typeKeys("hello again\r")
	scr.waitFor("mnemo> Hello!") // the chat goes on after a stopped turn
	scr.waitFor("you> ")
	typeKeys("hello, the deploy token is " + chatToken + "\r")
	scr.waitFor("mnemo> Hello!")
	scr.waitFor("you> ")
	typeKeys("\x03") // Ctrl-C at an empty prompt leaves
	select {
	case err := <-exited:
		require.NoError(t, err, "exit 0\n%s", scr.String())
		exited <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatalf("chat did not leave; the screen shows:\n%s", scr.String())
	}

	out := scr.String()
	require.NotContains(t, out, "claim turn")
	require.NotContains(t, out, `"level"`, "no log line on the screen")
	require.NotContains(t, out, "turn failed")
	log, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.Contains(t, string(log), `"message":"turn failed"`, "the stopped turn is logged, in the file")
	history, err := os.ReadFile(filepath.Join(dir, "cache", "mnemo", "chat_history"))
	require.NoError(t, err)
	// The history file is kept past the session log's retention: a secret
	// typed at the prompt is in it redacted, as in the session log.
	require.Equal(t, "hello there\ntake your time\nhello again\nhello, the deploy token is [redacted secret]\n", string(history))
	require.NotContains(t, string(history), chatToken)

	var statuses []string
	rows, err := d.Pool.Query(context.Background(), "SELECT status FROM turns ORDER BY id")
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		statuses = append(statuses, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"done", "failed", "done", "done"}, statuses, "the stopped turn is finished, not left running")
}

// chatToken is a bot token's shape, typed at the prompt.
const chatToken = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"

// The same behaviour without a terminal, through the interrupt channel
// main feeds from SIGINT: an interrupt stops the running turn, and one at
// the prompt ends the chat without an error.
func TestChatInterruptStopsTheTurnThenLeaves(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model, started := slowModel(t)
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": model.URL + "/v1",
		"MNEMO_LLM_API_KEY": "sk-test-0123456789abcdef", "MNEMO_MODEL": "gpt-test", "USER": "dev",
	}
	in, typed := io.Pipe()
	t.Cleanup(func() { typed.Close() })
	scr := newScreen(t)
	var logs syncbuf.Buffer
	interrupts := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() {
		done <- cmdChat(context.Background(), nil, func(k string) string { return env[k] }, in, scr, &logs, interrupts)
	}()
	say := func(s string) {
		_, err := io.WriteString(typed, s)
		require.NoError(t, err)
	}
	scr.waitFor("you> ")
	say("take your time\n")
	waitSignal(t, started, "the slow turn to reach the model")
	interrupts <- os.Interrupt
	scr.waitFor("mnemo> (stopped; nothing was answered)")
	scr.waitFor("you> ")
	say("hello there\n")
	scr.waitFor("mnemo> Hello!")
	scr.waitFor("you> ")
	interrupts <- os.Interrupt
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("chat did not leave; it shows:\n%s", scr.String())
	}
	require.NotContains(t, scr.String(), "thinking", "no status line when the output is not a terminal")
	require.Contains(t, logs.String(), "turn failed", "the log went to stderr, apart from the conversation")
}

// A provider's refusal reaches the chat with the provider's own message
// and the advice for its status, not a generic "try again".
func TestChatShowsTheProvidersMessageAndAdvice(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		model func(url string) llm.Model
		reply fakellm.Reply
		want  []string
	}{
		{"openai 401", func(u string) llm.Model { return llm.NewOpenAI("sk-wrong-0123456789abcdef", u+"/v1", "gpt-test") },
			fakellm.Reply{Status: 401, ErrorMessage: "Incorrect API key provided: sk-wron***cdef."},
			[]string{"openai: the API key was refused (HTTP 401): Incorrect API key provided: [redacted key]", "; check the API key"}},
		{"anthropic 403", func(u string) llm.Model { return llm.NewAnthropic("sk-ant-wrong", u, "claude-test") },
			fakellm.Reply{Status: 403, ErrorMessage: "Your API key does not have permission to use the specified resource."},
			[]string{"anthropic: the API key was refused (HTTP 403): Your API key does not have permission to use the specified resource", "; check the API key and what it is allowed to use"}},
		{"openai 400", func(u string) llm.Model { return llm.NewOpenAI("sk-test-0123456789abcdef", u+"/v1", "gpt-test") },
			fakellm.Reply{Status: 400, ErrorMessage: "Invalid schema for function 'x'."},
			[]string{"Invalid schema for function 'x'", "this is a bug in mnemo, retrying will not help"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			server := fakellm.New(t, fakellm.Queue(c.reply))
			m := c.model(server.URL)
			scr := newScreen(t)
			ch := &chat{out: scr, say: func(ctx context.Context, text string) (string, error) {
				_, err := m.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}, MaxTokens: 10})
				return "", fmt.Errorf("Sorry, the model provider refused: %w", err)
			}}
			ch.turn(context.Background(), "hello")
			out := scr.String()
			require.True(t, strings.HasPrefix(out, "mnemo> ("), out)
			for _, w := range c.want {
				require.Contains(t, out, w)
			}
			require.NotContains(t, out, "try again")
			require.NotContains(t, out, "sk-wron")
		})
	}
}

// End to end through the real turn runner: a provider's 401 reaches the
// terminal with the provider's own message and advice that fits it.
func TestChatTurnShowsAProvider401(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Status: 401, ErrorMessage: "invalid x-api-key"}
	})
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_BASE_URL": model.URL,
		"MNEMO_LLM_API_KEY": "sk-ant-wrong-0123456789abcdef", "MNEMO_MODEL": "claude-test", "USER": "dev",
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"chat"}, func(k string) string { return env[k] }, strings.NewReader("hello\n/exit\n"), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Contains(t, out.String(), "invalid x-api-key", "the provider's message")
	require.Contains(t, out.String(), "check the API key")
	require.NotContains(t, out.String(), "try again", "no retry advice for a refused key")
}

// A model name the provider does not know is said to be that, naming the
// model, not blamed on mnemo.
func TestChatTurnNamesAModelTheProviderDoesNotHave(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		if req.Model != "gpt-test" {
			return fakellm.Reply{Status: 404, ErrorMessage: "The model `" + req.Model + "` does not exist or you do not have access to it."}
		}
		return fakellm.Reply{Text: "Hello!"}
	})
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": model.URL + "/v1",
		"MNEMO_LLM_API_KEY": "sk-test-0123456789abcdef", "MNEMO_MODEL": "nosuch", "USER": "dev",
	}
	chat := func() string {
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"chat"}, func(k string) string { return env[k] }, strings.NewReader("hello\n/exit\n"), &out, &errOut)
		require.Equal(t, 0, code, errOut.String())
		return out.String()
	}
	out := chat()
	t.Logf("chat printed:\n%s", out)
	require.Contains(t, out, `openai: model "nosuch" was not found at the provider (HTTP 404): The model `+"`nosuch`"+` does not exist`)
	require.Contains(t, out, "check the model name")
	require.NotContains(t, out, "bug in mnemo")
	env["MNEMO_MODEL"] = "gpt-test" // control: the same server answers a model it has
	require.Contains(t, chat(), "mnemo> Hello!")
}
