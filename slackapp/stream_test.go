package slackapp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// streamBed is one turn's Slack side against a fake Slack: surfaces made
// for the same post, as each attempt of a turn makes its own.
type streamBed struct {
	t    *testing.T
	fs   *fakeslack.Server
	a    *App
	bot  install.Bot
	post agent.Post
	// recorded is the message the last stream recorded as started
	// (agent.StreamMessage.Started), as the turn's row keeps it.
	recorded string
}

func newStreamBed(t *testing.T, channel string) *streamBed {
	t.Helper()
	fs := fakeslack.New(t)
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL))
	a := &App{log: zerolog.Nop(), budget: 10 * time.Second, now: time.Now}
	root := fs.NextTS()
	fs.Seed(fakeslack.Message{Channel: channel, TS: root, User: "U0ALICE", Text: "a question", Team: fakeslack.TeamID})
	key := threads.Key{Team: fakeslack.TeamID, Channel: channel, Root: threads.TS(root)}
	p := agent.Post{Key: key, TS: threads.TS(root), Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: "U0ALICE"}, Text: "a question"}
	return &streamBed{t: t, fs: fs, a: a, bot: install.Bot{Team: fakeslack.TeamID, API: api, UserID: fakeslack.BotUserID, BotID: fakeslack.BotID}, post: p}
}

// attempt is a fresh surface for the post, as a turn's attempt gets.
func (b *streamBed) attempt() *surface { return &surface{a: b.a, bot: b.bot} }

// stream appends each chunk to a new stream of the post, as the agent's
// throttle does, each taken by Slack, and returns the surface.
func (b *streamBed) stream(chunks ...string) *surface {
	return b.streamAfter("", chunks...)
}

// streamAfter is stream for an attempt after one whose process died
// mid-stream in message prior.
func (b *streamBed) streamAfter(prior string, chunks ...string) *surface {
	b.t.Helper()
	s := b.attempt()
	live := s.Stream(context.Background(), b.post, agent.StreamMessage{Prior: prior, Started: func(_ context.Context, ts string) error {
		b.recorded = ts
		return nil
	}})
	for _, c := range chunks {
		require.NoError(b.t, live.Append(context.Background(), c), "append %q", c)
	}
	return s
}

// threadPost is a chat.postMessage call in the post's thread.
type threadPost struct{ Text, Metadata string }

// threadPosts is the bot's chat.postMessage calls in the post's thread.
func (b *streamBed) threadPosts() []threadPost {
	var out []threadPost
	for _, c := range b.fs.Calls("chat.postMessage") {
		if c.Form.Get("thread_ts") == string(b.post.Key.Root) {
			out = append(out, threadPost{Text: c.Form.Get("text"), Metadata: c.Form.Get("metadata")})
		}
	}
	return out
}

// The last chunk of a stream rate-limited by Slack was counted as shown:
// the stream was stopped as if it were the whole answer, which then ended
// before its last words. What Slack did not take is now not counted, and
// the message is replaced with the answer.
func TestRateLimitedLastStreamChunkIsNotLost(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "C0GENERAL")
	const answer = "Hello world, THE END"
	s := b.stream("Hello ", "world, ")
	b.fs.RateLimitFor("chat.appendStream", 1, 0)
	require.Error(t, s.live.Append(context.Background(), "THE END"), "Slack answered 429")

	posted, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
	require.NoError(t, err)
	require.Len(t, posted, 1)
	st := b.fs.WaitStream("C0GENERAL", string(b.post.Key.Root), 5*time.Second)
	require.Equal(t, "Hello world, ", st.Text(), "control: the last chunk never streamed")
	shown, blocks := b.fs.Shown("C0GENERAL", st.TS)
	require.Equal(t, ToMrkdwn(answer), shown, "the message is the whole answer")
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	require.Empty(t, b.threadPosts(), "nothing posted beside the stream")
}

// Where Slack refuses to stream, the answer is posted and updated; an update
// skipped for a rate limit loses nothing, since the final one carries the
// whole answer.
func TestRateLimitedUpdateOfAPostedAnswerIsMadeGoodAtTheEnd(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "C0GENERAL")
	b.fs.FailNext("chat.startStream", "channel_type_not_supported")
	const answer = "Hello world, THE END"
	s := b.stream("Hello ", "world, ")
	b.fs.RateLimitFor("chat.update", 1, 0)
	require.NoError(t, s.live.Append(context.Background(), "THE END"), "a rate-limited update is skipped")
	posted, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
	require.NoError(t, err)
	require.Len(t, posted, 1)
	shown, blocks := b.fs.Shown("C0GENERAL", string(posted[0].TS))
	require.Equal(t, ToMrkdwn(answer), shown)
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	require.Len(t, b.threadPosts(), 1)
}

// A streamed answer whose final chat.update failed is found by the turn's
// next attempt (which does not stream) through the metadata chat.stopStream
// attached, and finished in place: not posted a second time.
func TestRetriedTurnFinishesItsStreamedAnswerInPlace(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "C0GENERAL")
	const answer = "Here is the **answer**, after the tools."
	s := b.stream("Let me look that up first. ", "Searching the catalog… ")
	b.fs.FailNext("chat.update", "internal_error")
	_, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
	require.Error(t, err, "the final update failed: the turn runs again")
	st := b.fs.WaitStream("C0GENERAL", string(b.post.Key.Root), 5*time.Second)

	posted, err := b.attempt().Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer, Resume: true})
	require.NoError(t, err)
	require.Empty(t, b.threadPosts(), "the answer was not posted again")
	require.Len(t, posted, 1)
	require.Equal(t, st.TS, string(posted[0].TS), "the streamed message is the answer")
	shown, blocks := b.fs.Shown("C0GENERAL", st.TS)
	require.Equal(t, ToMrkdwn(answer), shown, "and it was finished with the answer")
	require.Contains(t, string(blocks), `"feedback_buttons"`)

	// A third attempt finds it finished, and changes nothing.
	updates := len(b.fs.Calls("chat.update"))
	posted, err = b.attempt().Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer, Resume: true})
	require.NoError(t, err)
	require.Equal(t, st.TS, string(posted[0].TS))
	require.Len(t, b.fs.Calls("chat.update"), updates, "a finished answer is not updated again")
	require.Empty(t, b.threadPosts())
}

// A stop whose answer was lost (Slack stopped the stream, the reply never
// came) is tried again and refused as not streaming: the message is then
// set whole with chat.update, metadata and buttons included.
func TestStreamStoppedAlreadyIsFinishedWithAnUpdate(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "D0ALICE")
	const answer = "Hello world."
	s := b.stream("Hello ", "world.")
	_, _, err := b.bot.API.StopStream("D0ALICE", s.live.ts) // the lost stop
	require.NoError(t, err)
	posted, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
	require.NoError(t, err)
	require.Len(t, posted, 1)
	shown, blocks := b.fs.Shown("D0ALICE", s.live.ts)
	require.Equal(t, ToMrkdwn(answer), shown)
	require.Contains(t, string(blocks), `"feedback_buttons"`)
	// A retried turn finds it as the finished answer.
	updates := len(b.fs.Calls("chat.update"))
	again, err := b.attempt().Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer, Resume: true})
	require.NoError(t, err)
	require.Equal(t, posted[0].TS, again[0].TS)
	require.Len(t, b.fs.Calls("chat.update"), updates)
	require.Empty(t, b.threadPosts())
}

// The same where Slack refused to stream: the first post carries the reply
// metadata, so the next attempt updates it instead of posting again.
func TestRetriedTurnFinishesItsPostedAndUpdatedAnswerInPlace(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "C0GENERAL")
	b.fs.FailNext("chat.startStream", "channel_type_not_supported")
	const answer = "Hello world, and the rest of the answer."
	s := b.stream("Hello ", "world, ")
	b.fs.FailNext("chat.update", "internal_error")
	_, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
	require.Error(t, err)
	require.Len(t, b.threadPosts(), 1)

	posted, err := b.attempt().Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer, Resume: true})
	require.NoError(t, err)
	require.Len(t, b.threadPosts(), 1, "the answer was not posted again")
	require.Len(t, posted, 1)
	shown, blocks := b.fs.Shown("C0GENERAL", string(posted[0].TS))
	require.Equal(t, ToMrkdwn(answer), shown)
	require.Contains(t, string(blocks), `"feedback_buttons"`)
}

// An answer too long for one message streams its first part and posts the
// others after it; each carries the reply metadata, so an attempt run again
// after they were all posted posts none of them again.
func TestRetriedTurnDoesNotRepostTheStreamedAnswersParts(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "D0ALICE")
	answer := strings.Repeat("A sentence of a very long answer that needs more than one message. ", 2*MaxPostChars/60)
	parts := SplitMessage(ToMrkdwn(answer), MaxPostChars)
	require.Len(t, parts, 3)
	s := b.stream(answer[:300])
	first, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
	require.NoError(t, err)
	require.Len(t, first, 3)
	require.Len(t, b.threadPosts(), 2)

	again, err := b.attempt().Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer, Resume: true})
	require.NoError(t, err)
	require.Len(t, b.threadPosts(), 2, "no part posted again")
	require.Len(t, again, 3)
	for i := range first {
		require.Equal(t, first[i].TS, again[i].TS)
	}
}

// The failure sentence can quote what a person wrote (a stored memory): it
// is posted escaped as mrkdwn, as an answer is.
func TestNotifyEscapesTheSentence(t *testing.T) {
	t.Parallel()
	b := newStreamBed(t, "C0GENERAL")
	const sentence = "I couldn't save \"ping <!channel> & <@U0BOB> if a < b\": it is too long."
	require.NoError(t, b.attempt().Notify(context.Background(), agent.Delivery{Post: b.post, Text: sentence}))
	posts := b.threadPosts()
	require.Len(t, posts, 1)
	require.Equal(t, ToMrkdwn(sentence), posts[0].Text)
	require.Contains(t, posts[0].Text, "a &lt; b", "escaped as mrkdwn")
	require.NotContains(t, posts[0].Text, " & ")
}

// chat.stopStream is retried through a 429 (after its Retry-After) and a
// 5xx, as a post is: the answer is not failed for them.
func TestStopStreamIsRetriedThroughRateLimitsAndServerErrors(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]func(fs *fakeslack.Server){
		"429": func(fs *fakeslack.Server) { fs.RateLimitFor("chat.stopStream", 1, 0) },
		"503": func(fs *fakeslack.Server) { fs.FailStatus("chat.stopStream", http.StatusServiceUnavailable, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newStreamBed(t, "D0ALICE")
			const answer = "Hello world."
			s := b.stream("Hello ", "world.")
			fault(b.fs)
			posted, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: answer})
			require.NoError(t, err)
			require.Len(t, posted, 1)
			require.Len(t, b.fs.Calls("chat.stopStream"), 2, "refused once, then taken")
			st := b.fs.WaitStream("D0ALICE", string(b.post.Key.Root), 5*time.Second)
			require.Equal(t, answer, st.Text())
			require.Contains(t, string(st.Blocks), `"feedback_buttons"`)
		})
	}
	// The failure sentence's stop is retried too.
	b := newStreamBed(t, "D0ALICE")
	s := b.stream("Half an ans")
	b.fs.RateLimitFor("chat.stopStream", 1, 0)
	require.NoError(t, s.Notify(context.Background(), agent.Delivery{Post: b.post, Text: "Something went wrong."}))
	st := b.fs.WaitStream("D0ALICE", string(b.post.Key.Root), 5*time.Second)
	require.Equal(t, "Half an ans\n\nSomething went wrong.", st.Text())
	require.Empty(t, b.threadPosts(), "the sentence ends the streamed message")
}

// A process that dies mid-stream leaves the answer's message without the
// metadata a later attempt finds it by: chat.startStream takes none, and
// the stop that carries it never came. The turn's next attempt continues
// in the message its row recorded (agent.StreamMessage.Prior; Streamed
// when it was decided already) instead of starting a second answer
// beside the first. An attempt that posts where Slack would not stream is
// recorded the same way.
func TestAnAttemptAfterADeathMidStreamContinuesInItsMessage(t *testing.T) {
	t.Parallel()
	const answer = "Here is the **answer**, after the tools."
	for _, c := range []struct {
		name     string
		noStream bool
		decided  bool // the dead attempt had decided: the next one resumes
		notice   bool
		deleted  bool // someone deleted the message meanwhile
	}{
		{name: "streaming again"},
		{name: "resumed", decided: true},
		{name: "a notice", decided: true, notice: true},
		{name: "posted and updated", noStream: true},
		{name: "deleted meanwhile", decided: true, deleted: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := newStreamBed(t, "C0GENERAL")
			if c.noStream {
				b.fs.FailNext("chat.startStream", "channel_type_not_supported")
			}
			b.stream("Let me look that up first. ", "Searching the catalog… ")
			require.NotEmpty(t, b.recorded, "the message was recorded as it started")
			first := b.recorded
			posts := len(b.threadPosts())
			// The process dies here: nothing stops or finishes the stream.

			if c.deleted {
				b.fs.FailNext("chat.update", "message_not_found")
			}
			s := b.attempt()
			d := agent.Delivery{Post: b.post, Text: answer, Resume: c.decided, Streamed: first}
			var posted []threads.Message
			switch {
			case c.notice:
				require.NoError(t, s.Notify(context.Background(), d))
				shown, _ := b.fs.Shown("C0GENERAL", first)
				require.Equal(t, ToMrkdwn(answer), shown, "the unfinished message ends with the sentence")
				require.Len(t, b.threadPosts(), posts, "no sentence posted beside it")
				return
			case c.decided:
				var err error
				posted, err = s.Reply(context.Background(), d)
				require.NoError(t, err)
			default:
				s = b.streamAfter(first, "Here is ")
				var err error
				posted, err = s.Reply(context.Background(), d)
				require.NoError(t, err)
			}
			require.Len(t, posted, 1)
			if c.deleted {
				require.Len(t, b.threadPosts(), posts+1, "the control: a message Slack can't update is posted anew")
				require.NotEqual(t, first, string(posted[0].TS))
				return
			}
			require.Equal(t, first, string(posted[0].TS), "the answer is the first attempt's message")
			require.Len(t, b.threadPosts(), posts, "no second message posted")
			require.Len(t, b.fs.Calls("chat.startStream"), 1, "no second stream started")
			shown, blocks := b.fs.Shown("C0GENERAL", first)
			require.Equal(t, ToMrkdwn(answer), shown, "finished with the answer")
			require.Contains(t, string(blocks), `"feedback_buttons"`)
		})
	}
}

// Under an org-wide installation a streamed answer's feedback buttons say
// the workspace it was streamed in, as a posted answer's do: Slack names
// none when they are pressed. A workspace's own installation keeps the
// bare values.
func TestAStreamedAnswersFeedbackSaysItsWorkspaceUnderAnOrgWideInstall(t *testing.T) {
	t.Parallel()
	for _, enterprise := range []string{"E0ORG", ""} {
		b := newStreamBed(t, "C0GENERAL")
		b.bot.Enterprise = enterprise
		s := b.stream("Hello ", "world, ")
		_, err := s.Reply(context.Background(), agent.Delivery{Post: b.post, Text: "Hello world, THE END"})
		require.NoError(t, err)
		st := b.fs.WaitStream("C0GENERAL", string(b.post.Key.Root), 5*time.Second)
		_, blocks := b.fs.Shown("C0GENERAL", st.TS)
		want := `"value":"positive"`
		if enterprise != "" {
			want = `"value":"` + fakeslack.TeamID + `/positive"`
		}
		require.Contains(t, string(blocks), want, "enterprise %q: %s", enterprise, blocks)
	}
}
