package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/threads"
)

// clock is a fake time that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// appends records what a TextStream is given; failAt makes that append
// (1-based) and every later one fail.
type appends struct {
	mu     sync.Mutex
	got    []string
	failAt int
}

func (a *appends) Append(_ context.Context, text string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failAt > 0 && len(a.got)+1 >= a.failAt {
		return errors.New("slack said no")
	}
	a.got = append(a.got, text)
	return nil
}

func (a *appends) all() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

func TestThrottleAppendsAtABoundedRate(t *testing.T) {
	t.Parallel()
	type step struct {
		wait    time.Duration // the clock moves first
		write   string
		discard bool
		flush   bool
		settle  bool // the stream failed
	}
	long := strings.Repeat("x ", agent.StreamChars/2)
	cases := []struct {
		name   string
		steps  []step
		failAt int
		want   []string
		// never, when set, is text no append may hold; the appends then
		// add up to the redacted answer, however they are cut.
		never string
	}{
		{
			name:  "small deltas inside the interval wait for the flush",
			steps: []step{{write: "a "}, {wait: 100 * time.Millisecond, write: "b "}, {wait: 100 * time.Millisecond, write: "c"}, {flush: true}},
			want:  []string{"a b c"},
		},
		{
			name:  "the interval passing sends what waits with the next delta",
			steps: []step{{write: "a "}, {wait: agent.StreamInterval, write: "b "}, {wait: 100 * time.Millisecond, write: "c "}, {wait: agent.StreamInterval, write: "d "}, {flush: true}},
			want:  []string{"a b ", "c d "},
		},
		{
			name:  "a word is held back until it ends, or the answer does",
			steps: []step{{write: "one tw"}, {wait: agent.StreamInterval, write: "o thr"}, {wait: agent.StreamInterval, write: "ee"}, {flush: true}},
			want:  []string{"one two ", "three"},
		},
		{
			name:  "a language written without spaces still streams",
			steps: []step{{write: "東京の天気は"}, {wait: agent.StreamInterval, write: "晴れです"}, {wait: 100 * time.Millisecond, write: "。"}, {flush: true}},
			want:  []string{"東京の天気は晴れです", "。"},
		},
		{
			name:  "enough characters are sent at once",
			steps: []step{{write: "a "}, {write: long}, {write: "b"}, {flush: true}},
			want:  []string{"a " + long, "b"},
		},
		{
			name:  "a slow first token does not count against the interval",
			steps: []step{{wait: 2 * agent.StreamInterval, write: "a "}, {wait: 100 * time.Millisecond, write: "b"}, {flush: true}},
			want:  []string{"a b"},
		},
		{
			name:  "a tool step's unsent text is dropped",
			steps: []step{{write: "Let me look."}, {discard: true}, {write: "The answer."}, {flush: true}},
			want:  []string{"The answer."},
		},
		{
			name:  "a tool step's held-back word is dropped with it",
			steps: []step{{write: "Let me "}, {wait: agent.StreamInterval, write: "look"}, {discard: true}, {write: " The answer."}, {flush: true}},
			want:  []string{"Let me ", " The answer."},
		},
		{
			name: "a secret that arrives in pieces is never shown",
			steps: []step{{write: "Your token is ghp_"}, {wait: agent.StreamInterval, write: "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"},
				{wait: agent.StreamInterval, write: " and it works."}, {flush: true}},
			never: "aB3dE5fG7h",
		},
		{
			name:  "a word a failed stream cut off is not shown: it may begin a secret",
			steps: []step{{write: "Use ghp_aB3dE5fG7hI9jK1lM3"}, {settle: true}},
			want:  []string{"Use "},
		},
		{
			name:   "a failed append stops the stream",
			steps:  []step{{write: long}, {write: long}, {write: "c"}, {flush: true}},
			failAt: 2,
			want:   []string{long},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)}
			out := &appends{failAt: c.failAt}
			th := agent.NewThrottle(out, clk.now)
			ctx := context.Background()
			var flushErr error
			for _, s := range c.steps {
				clk.add(s.wait)
				switch {
				case s.discard:
					th.Discard()
				case s.flush:
					flushErr = th.Flush(ctx)
				case s.settle:
					th.Settle(ctx)
				default:
					th.Write(ctx, s.write)
				}
			}
			if c.never != "" {
				var said strings.Builder
				for _, s := range c.steps {
					said.WriteString(s.write)
				}
				require.Equal(t, detect.Redact(said.String()), strings.Join(out.all(), ""))
				for _, a := range out.all() {
					require.NotContains(t, a, c.never)
				}
				require.Greater(t, len(out.all()), 1, "it streamed")
				c.want = out.all()
			}
			require.Equal(t, c.want, out.all())
			if c.failAt > 0 {
				require.Error(t, flushErr)
			} else {
				require.NoError(t, flushErr)
				require.Equal(t, len(strings.Join(c.want, "")), th.Shown())
			}
		})
	}
}

// liveSurface records a turn's status lines and streamed text.
type liveSurface struct {
	mu     sync.Mutex
	status []string
	stream *appends
}

func (l *liveSurface) Status(_ context.Context, _ agent.Post, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.status = append(l.status, text)
}

func (l *liveSurface) Stream(context.Context, agent.Post, agent.StreamMessage) agent.TextStream {
	return l.stream
}

func (l *liveSurface) Backfill(context.Context, threads.Key, threads.TS, int) ([]threads.Message, error) {
	return nil, nil
}
func (l *liveSurface) Progress(context.Context, agent.Post, agent.Phase) {}
func (l *liveSurface) Reply(context.Context, agent.Delivery) ([]threads.Message, error) {
	return nil, nil
}
func (l *liveSurface) Notify(context.Context, agent.Delivery) error { return nil }

const longAnswer = "The clock tool says it is noon in Paris. That is twelve o'clock, the middle of the day, when the sun is highest; " +
	"in winter it sits low over the Seine even then, and the cafés along the quays fill with people taking a long lunch. " +
	"If you meant another city, tell me which one and I will ask the clock again, since time zones differ by up to a day."

// A streamed answer shows the final step's text, in order, at a bounded
// rate, and ends as the same reply an unstreamed turn gives; the status
// line follows the turn's real steps.
func TestStreamedAnswerIsTheUnstreamedOne(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
				if len(req.Messages[len(req.Messages)-1].ToolResults) == 0 {
					return fakellm.Reply{Text: "Let me check the clock.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "clock", Input: json.RawMessage(`{"zone":"Europe/Paris"}`)}}}
				}
				return fakellm.Reply{Text: longAnswer}
			})
			var model llm.Model = llm.NewAnthropic("k", srv.URL, "m")
			if provider == "openai" {
				model = llm.NewOpenAI("k", srv.URL, "m")
			}
			// Each reading of the clock moves it 60 ms, so the interval
			// passes every few deltas.
			clk := &clock{t: time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)}
			now := func() time.Time { clk.add(60 * time.Millisecond); return clk.now() }
			a := agent.New(agent.Options{Model: model, Registry: registry(t), Now: now})

			plain, err := a.Run(context.Background(), turn)
			require.NoError(t, err)

			s := &liveSurface{stream: &appends{}}
			live := turn
			live.Live = agent.LiveFor(context.Background(), s, agent.Post{}, agent.StreamMessage{})
			streamed, err := a.Run(context.Background(), live)
			require.NoError(t, err)

			require.Equal(t, longAnswer, plain.Reply)
			require.Equal(t, plain.Reply, streamed.Reply)
			got := s.stream.all()
			require.Equal(t, longAnswer, strings.Join(got, ""), "the tool step's preamble is not streamed")
			require.Greater(t, len(got), 2, "the answer arrives in several appends")
			require.Less(t, len(got), len(strings.Fields(longAnswer)), "not one append per delta")
			require.Equal(t, []string{agent.StatusThinking, agent.StatusTool, agent.StatusThinking}, s.status)

			reqs := srv.Requests()
			require.False(t, reqs[0].Stream)
			require.True(t, reqs[len(reqs)-1].Stream)
		})
	}
}

// An answer that is complete before the first append is due is not
// streamed: the surface posts it whole.
func TestShortAnswerIsNotStreamed(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Text: "It is noon."}
	})
	a := agent.New(agent.Options{Model: llm.NewAnthropic("k", srv.URL, "m"), Registry: registry(t)})
	s := &liveSurface{stream: &appends{}}
	live := turn
	live.Live = agent.LiveFor(context.Background(), s, agent.Post{}, agent.StreamMessage{})
	out, err := a.Run(context.Background(), live)
	require.NoError(t, err)
	require.Equal(t, "It is noon.", out.Reply)
	require.Empty(t, s.stream.all())
	require.True(t, srv.Requests()[0].Stream, "it was asked for as a stream")
}

// A stream that fails midway fails the turn, after showing what came.
func TestStreamFailingMidwayShowsWhatCameAndFails(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Text: longAnswer, ErrorAfter: 6, ErrorMessage: "Overloaded"}
	})
	a := agent.New(agent.Options{Model: llm.NewAnthropic("k", srv.URL, "m"), Registry: registry(t)})
	s := &liveSurface{stream: &appends{}}
	live := turn
	live.Live = agent.LiveFor(context.Background(), s, agent.Post{}, agent.StreamMessage{})
	_, err := a.Run(context.Background(), live)
	require.Error(t, err)
	shown := strings.Join(s.stream.all(), "")
	require.NotEmpty(t, shown, "what came before the failure is shown")
	require.True(t, strings.HasPrefix(longAnswer, shown), "%q", shown)
	require.Less(t, len(shown), len(longAnswer))
	last, _ := utf8.DecodeLastRuneInString(shown)
	require.True(t, unicode.IsSpace(last) || last >= utf8.RuneSelf, "the word the failure cut off is not shown, in case it began a secret: %q", shown)
}

// streamRunes writes text to th a rune a delta, the clock moving step
// after each, and returns what was appended before the flush.
func streamRunes(t *testing.T, th *agent.Throttle, out *appends, clk *clock, step time.Duration, text string) []string {
	t.Helper()
	ctx := context.Background()
	th.Begin()
	for _, r := range text {
		clk.add(step)
		th.Write(ctx, string(r))
	}
	before := out.all()
	require.NoError(t, th.Flush(ctx))
	return before
}

// A secret written in a language without spaces is not shown while it
// streams: "password: 東" is the start of "password: 東京タワー123", which
// the redaction knows only once the value is long enough, so a rune
// outside ASCII is a break only where no secret pattern can reach it.
// The stream showed "東", then stopped when the secret was redacted.
func TestThrottleShowsNoRuneOfANonASCIISecret(t *testing.T) {
	t.Parallel()
	const value = "東京タワー123"
	for _, tc := range []struct{ answer, value string }{
		{"The password: " + value + " and the rest is as before.", value},
		{"The password is " + value + " and the rest is as before.", value},
		{"新しい暗証はpassword:" + value + " です。", value},
		{"Connect to https://admin:" + value + "@db.example.com today.", value},
		// "admin" is redacted as the setting's value, and is the user
		// before "/": the redacted text does not show the user.
		{"Set MNEMO_API_KEY= admin / 東京タワーxyz123 and the rest is as before.", "東京タワーxyz123"},
		// A secret's value swallowed the next one's trigger ("abc、
		// password:", "abc123でしたが、it's"): the marker hides it, and
		// the value after it is still a secret.
		{"設定はAPI_TOKEN=abc、password: 東京タワー2024です。 and the rest is as before.", "東京タワー2024"},
		{"旧パスワードはpassword:abc123でしたが、it's now東京タワー2024です。 and the rest is as before.", "東京"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			t.Parallel()
			redacted := detect.Redact(tc.answer)
			require.NotContains(t, redacted, "東", "the value is a secret")
			clk := &clock{t: time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)}
			out := &appends{}
			th := agent.NewThrottle(out, clk.now)
			streamRunes(t, th, out, clk, agent.StreamInterval, tc.answer)
			for _, a := range out.all() {
				for _, r := range tc.value {
					require.NotContains(t, a, string(r), "appends %q", out.all())
				}
			}
			require.Equal(t, redacted, strings.Join(out.all(), ""), "the stream ran to the end")
			require.Greater(t, len(out.all()), 3, "it streamed")
		})
	}
}

// A long answer in Japanese, which has no spaces, still streams in many
// appends before it ends, and talk of passwords in Japanese words does not
// stop it; nor does an ASCII word that is no secret's trigger.
func TestThrottleStreamsJapaneseProse(t *testing.T) {
	t.Parallel()
	answer := strings.Repeat("東京の天気は晴れです。パスワードの規則は12文字以上で、APIの設定は変わりません。", 12)
	require.Equal(t, answer, detect.Redact(answer))
	clk := &clock{t: time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)}
	out := &appends{}
	th := agent.NewThrottle(out, clk.now)
	before := streamRunes(t, th, out, clk, 100*time.Millisecond, answer)
	require.Greater(t, len(before), 10, "it streamed before the end: %q", before)
	require.Greater(t, len(strings.Join(before, "")), len(answer)*9/10, "all but the end was shown before it")
	require.Equal(t, answer, strings.Join(out.all(), ""))
}
