package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/peterh/liner"
	"github.com/rs/zerolog"
	"golang.org/x/term"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/terminal"
)

const chatUsage = `usage: mnemo chat [--user U] [--team T]

Talks to mnemo in the terminal through the same agent, tools and memory store
as the Slack bot, under a local identity; each session is its own thread.
Ctrl-C stops a running turn; at the prompt, Ctrl-C or Ctrl-D (or /exit) leaves.
In a terminal the log goes to MNEMO_LOG_FILE or the user cache directory,
never between the lines of the conversation.
`

func cmdChat(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, interrupts <-chan os.Signal) error {
	fs := newFlagSet("chat", chatUsage, stdout)
	user := fs.String("user", "ULOCAL", "the local identity's user id")
	team := fs.String("team", "TLOCAL", "the local identity's team id")
	if _, err := fs.parse(args, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, "chat")
	if err != nil {
		return err
	}
	logOut, logPath, closeLog, err := openChatLog(cfg.LogFile, stdout, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	level := cfg.LogLevel.Level()
	if logPath == "" {
		level = max(level, zerolog.WarnLevel) // stderr: keep it quiet
	}
	log := newLogger(logOut, level)
	c, err := buildCore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	// A failed learning job is logged at warn; the chat shows how many
	// failed on its status line, and says so as it ends.
	var learningFailed atomic.Int64
	learner, err := startLearning(ctx, c, log, logOut, func(_ learn.Result, err error) {
		if err != nil {
			learningFailed.Add(1)
		}
	})
	if err != nil {
		return err
	}
	defer func() {
		if n := learningFailed.Load(); n > 0 {
			fmt.Fprintf(stdout, "(passive learning failed %d times this session; the log says why)\n", n)
		}
	}()
	defer learner.Stop()

	actor := provenance.Actor{Kind: provenance.KindUser, Team: *team, ID: *user, Name: cfg.ChatName}
	runner := agent.NewRunner(c.db, c.agent, agent.RunnerOptions{Logger: log, AfterTurn: learner.EnqueueTx, Meter: c.meter})
	s := terminal.NewSession(runner, actor, log, nil)
	in := newChatInput(stdin, stdout, historyPath())
	defer in.Close()

	fmt.Fprintf(stdout, "mnemo chat (thread %s). Ctrl-C stops a turn; /exit, Ctrl-D or Ctrl-C at the prompt leaves.\n", s.SourceKey())
	if logPath != "" {
		fmt.Fprintf(stdout, "Log: %s\n", logPath)
	}
	ch := &chat{say: s.Say, in: in, out: stdout, interrupts: interrupts}
	if isTerminal(stdout) {
		ch.status = &statusLine{w: stdout, every: 100 * time.Millisecond, learningFailed: &learningFailed}
	}
	// Answers print as the model writes them; the turn's steps name the
	// status line ("recalling…", "saving a memory…").
	s.StreamTo(&ch.stream)
	s.OnStatus(ch.status.set)
	return ch.run(ctx)
}

// chat is one conversation in the terminal: a prompt, a turn, its reply.
type chat struct {
	say        func(ctx context.Context, text string) (string, error)
	in         lineReader
	out        io.Writer
	interrupts <-chan os.Signal // Ctrl-C; nil when nothing interrupts
	status     *statusLine      // nil unless out is a terminal
	stream     streamOut
}

// streamOut prints a turn's streamed answer: on its first text it clears
// the status line and starts the "mnemo> " line.
type streamOut struct {
	mu      sync.Mutex
	out     io.Writer
	begin   func() // clears the status line; set for each turn
	started bool
}

func (s *streamOut) reset(out io.Writer, begin func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out, s.begin, s.started = out, begin, false
}

func (s *streamOut) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == nil {
		return len(p), nil
	}
	if !s.started {
		s.started = true
		s.begin()
		fmt.Fprint(s.out, "mnemo> ")
	}
	return s.out.Write(p)
}

func (s *streamOut) streamed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// errLeave is Ctrl-C at the prompt.
var errLeave = errors.New("leave")

func (c *chat) run(ctx context.Context) error {
	for {
		line, err := c.read(ctx)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, errLeave):
			fmt.Fprintln(c.out)
			return nil
		case err != nil:
			return err
		}
		text := strings.TrimSpace(line)
		switch {
		case text == "":
			continue
		case text == "/exit" || text == "/quit":
			return nil
		}
		// The history file outlives the session log's retention and is out
		// of erasure's reach: it keeps what was typed with its secrets
		// redacted, as the session log does (docs/lifecycle.md).
		c.in.AppendHistory(detect.Redact(text))
		c.turn(ctx, text)
		if ctx.Err() != nil {
			return nil // SIGTERM: the turn was stopped and said so
		}
	}
}

type lineRead struct {
	line string
	err  error
}

// read waits for a line, for Ctrl-C, or for ctx to end.
func (c *chat) read(ctx context.Context) (string, error) {
	got := make(chan lineRead, 1)
	go func() {
		line, err := c.in.Prompt("you> ")
		got <- lineRead{line, err}
	}()
	select {
	case r := <-got:
		if errors.Is(r.err, liner.ErrPromptAborted) {
			return "", errLeave
		}
		return r.line, r.err
	case <-c.interrupts:
		return "", errLeave
	case <-ctx.Done():
		return "", io.EOF
	}
}

// turn runs one turn, which Ctrl-C stops, and prints how it ended.
func (c *chat) turn(ctx context.Context, text string) {
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan lineRead, 1)
	go func() {
		reply, err := c.say(turnCtx, text)
		done <- lineRead{reply, err}
	}()
	stopStatus := sync.OnceFunc(c.status.show("thinking"))
	c.stream.reset(c.out, stopStatus)
	var r lineRead
	select {
	case r = <-done:
	case <-c.interrupts:
		cancel()
		r = <-done
	}
	stopStatus()
	// A Ctrl-C that came as the turn ended meant "stop", not "leave".
	select {
	case <-c.interrupts:
	default:
	}
	streamed := c.stream.streamed()
	c.stream.reset(nil, nil)
	switch {
	case r.err == nil && streamed:
		// The stream printed the whole answer, ending its line.
	case streamed:
		fmt.Fprintf(c.out, "\nmnemo> (%s)\n", chatFailure(r.err))
	case r.err == nil:
		fmt.Fprintf(c.out, "mnemo> %s\n", r.line)
	case turnCtx.Err() != nil:
		fmt.Fprintln(c.out, "mnemo> (stopped; nothing was answered)")
	default:
		fmt.Fprintf(c.out, "mnemo> (%s)\n", chatFailure(r.err))
	}
}

// chatFailure says why a turn failed. A model provider's error keeps the
// provider's message and the advice that fits its status; anything else is
// already the sentence a person should read.
func chatFailure(err error) string {
	var pe *llm.Error
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return err.Error()
}

// lineReader is the prompt: liner in a terminal, plain lines otherwise.
type lineReader interface {
	// Prompt shows prompt and returns the next line: io.EOF when input
	// ends, liner.ErrPromptAborted on Ctrl-C.
	Prompt(prompt string) (string, error)
	AppendHistory(line string)
	Close() error
}

// newChatInput edits lines with liner (history, cursor keys, Ctrl-R) when
// both ends are the process's terminal, since liner drives the terminal
// itself; piped input is read line by line.
func newChatInput(stdin io.Reader, stdout io.Writer, history string) lineReader {
	if stdin != io.Reader(os.Stdin) || stdout != io.Writer(os.Stdout) || !isTerminal(stdin) || !isTerminal(stdout) {
		return &plainInput{r: bufio.NewReader(stdin), out: stdout}
	}
	l := liner.NewLiner()
	l.SetCtrlCAborts(true)
	t := &terminalInput{State: l, history: history}
	if f, err := os.Open(history); err == nil {
		_, _ = l.ReadHistory(f)
		f.Close()
	}
	return t
}

// terminalInput is liner, whose history is kept in a file.
type terminalInput struct {
	*liner.State
	history string
}

func (t *terminalInput) Close() error {
	if t.history != "" {
		if err := os.MkdirAll(filepath.Dir(t.history), 0o700); err == nil {
			// The history holds what people typed: readable by its owner only.
			if f, err := os.OpenFile(t.history, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
				_, _ = t.WriteHistory(f)
				f.Close()
			}
		}
	}
	return t.State.Close()
}

type plainInput struct {
	r   *bufio.Reader
	out io.Writer
}

func (p *plainInput) Prompt(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	line, err := p.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	return strings.TrimRight(line, "\r\n"), err
}

func (p *plainInput) AppendHistory(string) {}
func (p *plainInput) Close() error         { return nil }

// statusLine shows what a running turn is doing on the terminal's last
// line, and clears it before the reply is printed there.
type statusLine struct {
	w     io.Writer
	every time.Duration
	text  atomic.Value // string: what is happening now
	// learningFailed counts the session's failed learning jobs; nil: none.
	learningFailed *atomic.Int64
}

// note is what the status line adds after the turn's own state.
func (s *statusLine) note() string {
	if s.learningFailed == nil {
		return ""
	}
	switch n := s.learningFailed.Load(); n {
	case 0:
		return ""
	case 1:
		return " · passive learning failed once (see the log)"
	default:
		return fmt.Sprintf(" · passive learning failed %d times (see the log)", n)
	}
}

// show draws text with a spinner and the seconds elapsed until the
// returned func is called, which clears the line and returns once it is
// clear. A nil statusLine shows nothing.
// set renames what the status line shows, from the turn's steps.
func (s *statusLine) set(text string) {
	if s != nil {
		s.text.Store(strings.TrimSuffix(strings.TrimPrefix(text, "is "), "…"))
	}
}

func (s *statusLine) show(text string) (stop func()) {
	if s == nil {
		return func() {}
	}
	s.text.Store(text)
	done, cleared := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(cleared)
		frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
		t := time.NewTicker(s.every)
		defer t.Stop()
		started := time.Now()
		for i := 0; ; i++ {
			fmt.Fprintf(s.w, "\r%c %s… %ds  (Ctrl-C stops it)%s\x1b[K", frames[i%len(frames)], s.text.Load(), int(time.Since(started).Seconds()), s.note())
			select {
			case <-done:
				fmt.Fprint(s.w, "\r\x1b[K")
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-cleared }
}

// openChatLog decides where chat logs: MNEMO_LOG_FILE ("-" is stderr);
// else, when the conversation is on a terminal, a file in the user cache
// directory, so no log line lands between its lines; else stderr. path is
// "" for stderr.
func openChatLog(setting string, stdout, stderr io.Writer) (w io.Writer, path string, closeFn func(), err error) {
	switch {
	case setting == "-":
		return stderr, "", func() {}, nil
	case setting != "":
		path = setting
	case isTerminal(stdout):
		dir, err := os.UserCacheDir()
		if err != nil {
			return stderr, "", func() {}, nil
		}
		path = filepath.Join(dir, "mnemo", "chat.log")
	default:
		return stderr, "", func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, "", nil, fmt.Errorf("log file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, "", nil, fmt.Errorf("log file: %w", err)
	}
	return f, path, func() { f.Close() }, nil
}

// historyPath is where chat keeps the lines typed at its prompt, or "".
func historyPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mnemo", "chat_history")
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
