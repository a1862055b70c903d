package slackapp

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// The agent finds streaming and the status line by asserting its Surface
// to these interfaces: a signature that drifted from one would turn it
// off silently.
var (
	_ agent.StreamSurface  = (*surface)(nil)
	_ agent.StatusReporter = (*surface)(nil)
)

// Stream shows p's answer as it is generated (agent.StreamSurface) through
// Slack's streaming methods (chat.startStream, appendStream, stopStream),
// in DMs and assistant threads as in channels, where the stream names its
// recipient as Bolt's say_stream does. When Slack refuses to start a
// stream, the answer is posted once and that message updated with
// chat.update instead.
//
// An earlier attempt's message (m.Prior: its process died mid-stream, so
// the message has no metadata to be found by) is continued in, by
// chat.update, instead of a second message started beside it.
func (s *surface) Stream(_ context.Context, p agent.Post, m agent.StreamMessage) agent.TextStream {
	if m.Prior != "" {
		s.live = s.adopt(p, m.Prior)
	} else {
		s.live = &liveReply{a: s.a, bot: s.bot, p: p, streaming: true, recordTS: m.Started}
	}
	return s.live
}

// adopt is the answer's message an earlier attempt started and did not
// finish, continued in by chat.update. Its stream, which nothing will
// stop now, is stopped first (adopted).
func (s *surface) adopt(p agent.Post, ts string) *liveReply {
	s.a.log.Info().Str("ts", string(p.TS)).Str("message_ts", ts).Msg("the answer continues in the message an earlier attempt started and did not finish")
	return &liveReply{a: s.a, bot: s.bot, p: p, ts: ts, prior: true}
}

// liveReply is one answer's message while it streams. It belongs to the
// turn's goroutine, which streams the answer and then finishes or fails
// it, one call after another: it has no lock, so that none is held across
// its calls to Slack.
//
// A retried turn does not stream: it finds the message by its metadata
// (replyEvent, marked live until it holds the final answer) and finishes
// it in place. chat.startStream takes no metadata, so a stream gets it
// when it is stopped; a post made instead of a stream carries it from the
// start.
type liveReply struct {
	a         *App
	bot       install.Bot
	p         agent.Post
	streaming bool // Slack's stream methods, else post and chat.update

	ts      string          // the message, once the first text is shown
	text    strings.Builder // the model's text so far
	shown   strings.Builder // what of it Slack took: the message shows this
	stopped bool
	// recordTS records the message once Slack made it
	// (agent.StreamMessage.Started); nil records nothing.
	recordTS func(ctx context.Context, ts string) error
	// prior: ts is an earlier attempt's message (surface.adopt), whose
	// stream is stopped before it is first updated (adopted).
	prior, adopted bool
}

// Append shows more of the answer, its special mentions broken
// (StreamMarkdown: the stream's Markdown does not go through ToMrkdwn).
// Only what Slack takes counts as shown:
// a chunk it refused (a rate limit, an error) is not, so finish replaces
// the message with the whole answer.
func (l *liveReply) Append(ctx context.Context, text string) error {
	l.text.WriteString(text)
	all := l.text.String()
	key := l.p.Key
	var err error
	switch {
	case l.streaming && l.ts == "":
		// Nothing is shown yet: the stream starts with all the text so far.
		_, l.ts, err = l.bot.API.StartStreamContext(ctx, key.Channel, slack.MsgOptionTS(string(key.Root)), slack.MsgOptionMarkdownText(StreamMarkdown("", all)),
			slack.MsgOptionRecipientUserID(l.p.Actor.ID), slack.MsgOptionRecipientTeamID(key.Team))
		var se slack.SlackErrorResponse
		if errors.As(err, &se) && !transient(err) {
			// Refused (a workspace or channel without streaming, a
			// missing scope): this answer is posted and updated instead.
			l.a.log.Warn().Str("error", se.Err).Str("channel", key.Channel).Msg("Slack refused to stream the answer; posting and updating it instead")
			l.streaming, l.ts = false, ""
			err = l.postFirst(ctx, all)
		} else if err == nil {
			l.show(all)
			err = l.record(ctx)
		}
	case l.streaming:
		if _, _, err = l.bot.API.AppendStreamContext(ctx, key.Channel, l.ts, slack.MsgOptionMarkdownText(StreamMarkdown(l.shown.String(), text))); err == nil {
			l.shown.WriteString(text)
		}
	case l.ts == "":
		err = l.postFirst(ctx, all)
	default:
		l.adoptPrior(ctx)
		// Each update carries all the text so far, so one skipped for a
		// rate limit loses nothing: the next, or the final one, shows it.
		_, _, _, err = l.bot.API.UpdateMessageContext(ctx, key.Channel, l.ts, slack.MsgOptionText(firstPart(all), false))
		var rl *slack.RateLimitedError
		switch {
		case err == nil:
			l.show(all)
		case errors.As(err, &rl):
			err = nil
		}
	}
	return err
}

// postFirst posts the answer's message where Slack would not stream it,
// with the metadata by which a retried turn finds it.
func (l *liveReply) postFirst(ctx context.Context, all string) error {
	key := l.p.Key
	ts, err := l.a.post(ctx, l.bot, key.Channel, slack.MsgOptionText(firstPart(all), false), slack.MsgOptionTS(string(key.Root)), liveMetadata(l.p))
	if err == nil {
		l.ts = ts
		l.show(all)
		err = l.record(ctx)
	}
	return err
}

// record has the message the answer started in recorded, so that an
// attempt after a crash continues in it (agent.StreamMessage). An error
// stops the streaming; the message is still finished with the answer.
func (l *liveReply) record(ctx context.Context) error {
	if l.recordTS == nil {
		return nil
	}
	return l.recordTS(ctx, l.ts)
}

// adoptPrior stops the stream of an earlier attempt's message before it is
// first updated: its process died before it could. A stream that ended
// already (Slack ends an idle one) is refused, and nothing more is needed;
// a stop that fails otherwise is logged, and the update tried anyway.
func (l *liveReply) adoptPrior(ctx context.Context) {
	if !l.prior || l.adopted {
		return
	}
	l.adopted = true
	if err := l.stop(ctx); err != nil && !notStreaming(err) {
		l.a.log.Warn().Err(err).Str("ts", l.ts).Msg("an earlier attempt's streamed answer could not be stopped; updating it anyway")
	}
}

// show records that the message now shows all of text.
func (l *liveReply) show(text string) {
	l.shown.Reset()
	l.shown.WriteString(text)
}

// unshown is the text Slack did not take, after what it shows: the chunk
// of a failed append.
func (l *liveReply) unshown() string {
	all, shown := l.text.String(), l.shown.String()
	if rest, ok := strings.CutPrefix(all, shown); ok {
		return rest
	}
	return ""
}

// firstPart is what one message shows of text so far; the rest is posted
// in further messages when the answer is complete.
func firstPart(text string) string {
	if parts := SplitMessage(ToMrkdwn(text), MaxPostChars); len(parts) > 0 {
		return parts[0]
	}
	return "…"
}

// started reports whether the answer's message exists; nil is not started.
func (l *liveReply) started() bool {
	if l == nil {
		return false
	}
	return l.ts != ""
}

// finish makes the streamed message the answer: the stream is stopped, and
// the message is replaced with the final text when what Slack shows differs
// (the model wrote before calling tools, or Slack refused an append) or the
// answer needs more than one message, whose further parts are posted after
// it. The last part carries the feedback buttons; every part carries the
// reply metadata, so that a retried turn posts none of them again.
func (l *liveReply) finish(ctx context.Context, text string) ([]threads.Message, error) {
	key := l.p.Key
	parts := SplitMessage(ToMrkdwn(text), MaxPostChars)
	// The answer is trimmed and the stream is not: whitespace around it
	// does not make the streamed message a different answer.
	exact := strings.TrimSpace(l.shown.String()) == strings.TrimSpace(text) && len(parts) == 1
	if l.streaming && !l.stopped {
		// The stop carries the metadata chat.startStream could not: final
		// when the stream is the answer, live while it is to be replaced.
		opts := []slack.MsgOption{liveMetadata(l.p)}
		if exact {
			opts = []slack.MsgOption{slack.MsgOptionBlocks(feedbackBlockIn(madeFor(l.bot))), metadata(replyEvent, l.p, 0, 1)}
		}
		if err := l.stop(ctx, opts...); err != nil {
			if !notStreaming(err) {
				return nil, err
			}
			// Stopped already, by a stop whose answer was lost: what it
			// carried is not known, so the update below sets it all.
			exact = false
		}
		l.stopped = true
	}
	if !l.streaming || !exact {
		l.adoptPrior(ctx)
		if _, _, _, err := l.a.update(ctx, l.bot, key.Channel, l.ts, replyTextIn(madeFor(l.bot), parts[0], len(parts) == 1), metadata(replyEvent, l.p, 0, len(parts))); err != nil {
			return nil, err
		}
	}
	ts, err := threads.ParseTS("chat.startStream.ts", l.ts)
	if err != nil {
		return nil, err
	}
	posted := []threads.Message{{TS: ts, Role: threads.RoleAssistant, Actor: botActor(l.bot), Authority: provenance.Context, Text: parts[0]}}
	for i, part := range parts[1:] {
		raw, err := l.a.post(ctx, l.bot, key.Channel, replyTextIn(madeFor(l.bot), part, i == len(parts)-2), slack.MsgOptionTS(string(key.Root)), metadata(replyEvent, l.p, i+1, len(parts)))
		if err != nil {
			return posted, err
		}
		ts, err := threads.ParseTS("chat.postMessage.ts", raw)
		if err != nil {
			return posted, err
		}
		posted = append(posted, threads.Message{TS: ts, Role: threads.RoleAssistant, Actor: botActor(l.bot), Authority: provenance.Context, Text: part})
	}
	return posted, nil
}

// stop calls chat.stopStream through rate limits and transient errors, as
// post does.
func (l *liveReply) stop(ctx context.Context, opts ...slack.MsgOption) error {
	return l.a.call(ctx, l.a.budget, "chat.stopStream", func(ctx context.Context) error {
		_, _, err := l.bot.API.StopStreamContext(ctx, l.p.Key.Channel, l.ts, opts...)
		return err
	})
}

// notStreaming reports whether chat.stopStream failed because the stream
// was stopped already: by an earlier try whose answer did not arrive.
func notStreaming(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && se.Err == "message_not_in_streaming_state"
}

// fail ends a started answer with the failure sentence in the same message
// and reports whether it could; when it could not, the sentence is posted
// on its own. The message then carries the notice metadata, so that a
// retried turn does not post the sentence again.
func (l *liveReply) fail(ctx context.Context, sentence string) bool {
	if !l.started() {
		return false
	}
	key := l.p.Key
	var err error
	if l.streaming && !l.stopped {
		// What Slack did not take of the stream comes before the sentence.
		err = l.stop(ctx, slack.MsgOptionMarkdownText(StreamMarkdown(l.shown.String(), l.unshown()+"\n\n"+sentence)), metadata(noticeEvent, l.p, 0, 1))
		l.stopped = err == nil
	} else {
		l.adoptPrior(ctx)
		text := ToMrkdwn(sentence)
		if l.text.Len() > 0 {
			text = firstPart(l.text.String()) + "\n\n" + text
		}
		_, _, _, err = l.a.update(ctx, l.bot, key.Channel, l.ts, slack.MsgOptionText(text, false), metadata(noticeEvent, l.p, 0, 1))
	}
	if err != nil {
		l.a.log.Warn().Err(err).Msg("failure sentence not added to the streamed answer; posting it")
		return false
	}
	return true
}

// update edits a message, waiting out Slack's rate limits a few times as
// post does: the final update is the answer, and chat.update is the
// method a streamed channel answer calls most.
func (a *App) update(ctx context.Context, b install.Bot, channel, ts string, opts ...slack.MsgOption) (string, string, string, error) {
	for attempt := 0; ; attempt++ {
		c, t, text, err := b.API.UpdateMessageContext(ctx, channel, ts, opts...)
		var rl *slack.RateLimitedError
		if !errors.As(err, &rl) || attempt == 3 {
			return c, t, text, err
		}
		a.log.Warn().Dur("retry_after", rl.RetryAfter).Msg("rate limited by Slack; waiting")
		select {
		case <-ctx.Done():
			return "", "", "", ctx.Err()
		case <-time.After(rl.RetryAfter):
		}
	}
}

// botActor is mnemo as the author of its messages in the session log.
func botActor(b install.Bot) provenance.Actor {
	return provenance.Actor{Kind: provenance.KindBot, Team: b.Team, ID: b.UserID, Name: "mnemo"}
}
