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

// Stream shows p's answer as it is generated (agent.StreamSurface) through
// Slack's streaming methods (chat.startStream, appendStream, stopStream),
// in DMs and assistant threads as in channels, where the stream names its
// recipient as Bolt's say_stream does. When Slack refuses to start a
// stream, the answer is posted once and that message updated with
// chat.update instead.
func (s *surface) Stream(_ context.Context, p agent.Post) agent.TextStream {
	s.live = &liveReply{a: s.a, bot: s.bot, p: p, streaming: true}
	return s.live
}

// liveReply is one answer's message while it streams. It belongs to the
// turn's goroutine, which streams the answer and then finishes or fails
// it, one call after another: it has no lock, so that none is held across
// its calls to Slack.
type liveReply struct {
	a         *App
	bot       install.Bot
	p         agent.Post
	streaming bool // Slack's stream methods, else post and chat.update

	ts      string          // the message, once the first text is shown
	shown   strings.Builder // the model's text shown so far
	stopped bool
}

// Append shows more of the answer.
func (l *liveReply) Append(ctx context.Context, text string) error {
	l.shown.WriteString(text)
	key := l.p.Key
	var err error
	switch {
	case l.streaming && l.ts == "":
		_, l.ts, err = l.bot.API.StartStreamContext(ctx, key.Channel, slack.MsgOptionTS(string(key.Root)), slack.MsgOptionMarkdownText(text),
			slack.MsgOptionRecipientUserID(l.p.Actor.ID), slack.MsgOptionRecipientTeamID(key.Team))
		var se slack.SlackErrorResponse
		if errors.As(err, &se) && !transient(err) {
			// Refused (a workspace or channel without streaming, a
			// missing scope): this answer is posted and updated instead.
			l.a.log.Warn().Str("error", se.Err).Str("channel", key.Channel).Msg("Slack refused to stream the answer; posting and updating it instead")
			l.streaming, l.ts = false, ""
			l.ts, err = l.a.post(ctx, l.bot, key.Channel, slack.MsgOptionText(firstPart(l.shown.String()), false), slack.MsgOptionTS(string(key.Root)))
		}
	case l.streaming:
		_, _, err = l.bot.API.AppendStreamContext(ctx, key.Channel, l.ts, slack.MsgOptionMarkdownText(text))
	case l.ts == "":
		l.ts, err = l.a.post(ctx, l.bot, key.Channel, slack.MsgOptionText(firstPart(l.shown.String()), false), slack.MsgOptionTS(string(key.Root)))
	default:
		// Each update carries all the text so far, so one skipped for a
		// rate limit loses nothing: the next, or the final one, shows it.
		_, _, _, err = l.bot.API.UpdateMessageContext(ctx, key.Channel, l.ts, slack.MsgOptionText(firstPart(l.shown.String()), false))
		var rl *slack.RateLimitedError
		if errors.As(err, &rl) {
			err = nil
		}
	}
	return err
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
// the message is replaced with the final text when what streamed differs
// (the model wrote before calling tools, or an append failed) or the answer
// needs more than one message, whose further parts are posted after it.
// The last part carries the feedback buttons.
func (l *liveReply) finish(ctx context.Context, text string) ([]threads.Message, error) {
	key := l.p.Key
	parts := SplitMessage(ToMrkdwn(text), MaxPostChars)
	// The answer is trimmed and the stream is not: whitespace around it
	// does not make the streamed message a different answer.
	exact := strings.TrimSpace(l.shown.String()) == strings.TrimSpace(text) && len(parts) == 1
	if l.streaming && !l.stopped {
		var opts []slack.MsgOption
		if exact {
			opts = append(opts, slack.MsgOptionBlocks(feedbackBlock()))
		}
		if _, _, err := l.bot.API.StopStreamContext(ctx, key.Channel, l.ts, opts...); err != nil {
			return nil, err
		}
		l.stopped = true
	}
	if !l.streaming || !exact {
		if _, _, _, err := l.a.update(ctx, l.bot, key.Channel, l.ts, replyText(parts[0], len(parts) == 1)); err != nil {
			return nil, err
		}
	}
	ts, err := threads.ParseTS("chat.startStream.ts", l.ts)
	if err != nil {
		return nil, err
	}
	posted := []threads.Message{{TS: ts, Role: threads.RoleAssistant, Actor: botActor(l.bot), Authority: provenance.Context, Text: parts[0]}}
	for i, part := range parts[1:] {
		raw, err := l.a.post(ctx, l.bot, key.Channel, replyText(part, i == len(parts)-2), slack.MsgOptionTS(string(key.Root)))
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

// fail ends a started answer with the failure sentence in the same message
// and reports whether it could; when it could not, the sentence is posted
// on its own.
func (l *liveReply) fail(ctx context.Context, sentence string) bool {
	if !l.started() {
		return false
	}
	key := l.p.Key
	var err error
	if l.streaming && !l.stopped {
		_, _, err = l.bot.API.StopStreamContext(ctx, key.Channel, l.ts, slack.MsgOptionMarkdownText("\n\n"+sentence))
		l.stopped = err == nil
	} else {
		_, _, _, err = l.a.update(ctx, l.bot, key.Channel, l.ts, slack.MsgOptionText(firstPart(l.shown.String())+"\n\n"+sentence, false))
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
