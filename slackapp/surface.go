package slackapp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// reaction is an emoji mnemo puts on a post to show a turn's phase.
type reaction string

const (
	reactionWorking reaction = "eyes"
	reactionDone    reaction = "white_check_mark"
	reactionFailed  reaction = "warning"
)

// Metadata event types on mnemo's own messages. Each names the post it
// answers, so that a turn run again after a crash finds, with
// conversations.replies, what it had posted before it could record it.
const (
	replyEvent  = "mnemo_reply"
	noticeEvent = "mnemo_notice"
)

// surface is a turn's Slack side: reactions, thread replies and backfill
// from conversations.replies.
type surface struct {
	a    *App
	bot  install.Bot // the team's
	live *liveReply  // set when the answer is streamed (stream.go)
}

func (s *surface) Progress(ctx context.Context, p agent.Post, phase agent.Phase) {
	key := p.Key.Team + "/" + p.Key.Channel + "/" + string(p.TS)
	switch phase {
	case agent.Working:
		// Shown beside the turn, not before it: the model is not kept
		// waiting for two Web API calls.
		shown := make(chan struct{})
		s.a.working.Store(key, shown)
		s.a.async(ctx, func(ctx context.Context) {
			s.a.react(ctx, s.bot, true, p, reactionWorking)
			s.a.titleThread(ctx, s.bot, p)
			close(shown)
			s.a.working.CompareAndDelete(key, shown) // shown: nothing to wait for
		})
	case agent.Done, agent.Failed:
		// Removing :eyes: before it is added would leave it for good.
		if shown, ok := s.a.working.LoadAndDelete(key); ok {
			select {
			case <-shown.(chan struct{}):
			case <-ctx.Done():
			}
		}
		end := reactionDone
		if phase == agent.Failed {
			end = reactionFailed
		}
		s.a.react(ctx, s.bot, false, p, reactionWorking)
		s.a.react(ctx, s.bot, true, p, end)
	}
}

// Notify posts the failure sentence in the thread, once.
func (s *surface) Notify(ctx context.Context, d agent.Delivery) error {
	if s.live.fail(ctx, d.Text) {
		return nil // the streamed message ends with the sentence
	}
	if d.Resume {
		found, err := s.a.postedFor(ctx, s.bot, d.Post, noticeEvent)
		if err != nil {
			return err
		}
		if len(found) > 0 {
			return nil
		}
	}
	if d.Streamed != "" && s.live == nil && s.adopt(d.Post, d.Streamed).fail(ctx, d.Text) {
		return nil // an earlier attempt's unfinished message ends with it
	}
	// The sentence can quote what people wrote (a memory's text): it is
	// escaped as an answer is.
	_, err := s.a.post(ctx, s.bot, d.Post.Key.Channel, slack.MsgOptionText(ToMrkdwn(d.Text), false), slack.MsgOptionTS(string(d.Post.Key.Root)), metadata(noticeEvent, d.Post, 0, 1))
	return err
}

// Reply posts the answer in the thread, split under Slack's limits; parts an
// earlier attempt posted are found and not posted again, and a message it
// streamed but did not finish (marked live, or recorded as the turn's
// stream: d.Streamed) is finished with its part.
func (s *surface) Reply(ctx context.Context, d agent.Delivery) ([]threads.Message, error) {
	if s.live.started() {
		if posted, err, done := s.finishLive(ctx, d); done {
			return posted, err
		}
	}
	key := d.Post.Key
	bot := botActor(s.bot)
	parts := SplitMessage(ToMrkdwn(d.Text), MaxPostChars)
	var found map[int]postedPart
	if d.Resume {
		var err error
		if found, err = s.a.postedFor(ctx, s.bot, d.Post, replyEvent); err != nil {
			return nil, err
		}
	}
	if len(found) == 0 && d.Streamed != "" && s.live == nil {
		// An earlier attempt's process died mid-stream: its message has
		// no metadata, and is the one to finish.
		s.live = s.adopt(d.Post, d.Streamed)
		if posted, err, done := s.finishLive(ctx, d); done {
			return posted, err
		}
	}
	var posted []threads.Message
	for i, part := range parts {
		f, ok := found[i]
		ts := f.ts
		if ok && f.live {
			if _, _, _, err := s.a.update(ctx, s.bot, key.Channel, string(ts), replyTextIn(madeFor(s.bot), part, i == len(parts)-1), metadata(replyEvent, d.Post, i, len(parts))); err != nil {
				return posted, err
			}
		}
		if !ok {
			raw, err := s.a.post(ctx, s.bot, key.Channel, replyTextIn(madeFor(s.bot), part, i == len(parts)-1), slack.MsgOptionTS(string(key.Root)), metadata(replyEvent, d.Post, i, len(parts)))
			if err != nil {
				return posted, err
			}
			if ts, err = threads.ParseTS("chat.postMessage.ts", raw); err != nil {
				return posted, err
			}
		}
		posted = append(posted, threads.Message{TS: ts, Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: part})
	}
	if len(found) > 0 {
		s.a.log.Info().Str("ts", string(d.Post.TS)).Int("found", len(found)).Int("parts", len(parts)).Msg("reply parts posted by an earlier attempt were found, not posted again")
	}
	return posted, nil
}

// finishLive finishes the answer's started message; done is false when it
// was an earlier attempt's message and Slack refused it for good (deleted
// meanwhile): the answer is then posted as a new message.
func (s *surface) finishLive(ctx context.Context, d agent.Delivery) (posted []threads.Message, err error, done bool) {
	posted, err = s.live.finish(ctx, d.Text)
	var se slack.SlackErrorResponse
	if err == nil || !s.live.prior || len(posted) > 0 || !errors.As(err, &se) || transient(err) {
		return posted, err, true
	}
	s.a.log.Warn().Err(err).Str("ts", s.live.ts).Msg("an earlier attempt's streamed answer could not be finished; posting the answer instead")
	s.live = &liveReply{}
	return nil, nil, false
}

func metadata(event string, p agent.Post, part, parts int) slack.MsgOption {
	return slack.MsgOptionMetadata(slack.SlackMetadata{EventType: event, EventPayload: map[string]any{"post_ts": string(p.TS), "part": part, "parts": parts}})
}

// liveMetadata marks a streamed answer's message (stream.go) until it holds
// the final answer's first part: a retried turn that finds it so updates it.
func liveMetadata(p agent.Post) slack.MsgOption {
	return slack.MsgOptionMetadata(slack.SlackMetadata{EventType: replyEvent, EventPayload: map[string]any{"post_ts": string(p.TS), "part": 0, "parts": 1, "live": true}})
}

// postedPart is a message an earlier attempt posted; live when it is a
// streamed answer not yet finished.
type postedPart struct {
	ts   threads.TS
	live bool
}

// postedFor finds the bot's messages of one metadata event type that answer
// post p, by part.
func (a *App) postedFor(ctx context.Context, b install.Bot, p agent.Post, event string) (map[int]postedPart, error) {
	found := map[int]postedPart{}
	params := &slack.GetConversationRepliesParameters{ChannelID: p.Key.Channel, Timestamp: string(p.Key.Root), Oldest: string(p.TS), Inclusive: true, IncludeAllMetadata: true, Limit: 200}
	for {
		var msgs []slack.Message
		var more bool
		var cursor string
		err := a.call(ctx, a.budget, "conversations.replies", func(ctx context.Context) error {
			var err error
			msgs, more, cursor, err = b.API.GetConversationRepliesContext(ctx, params)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("looking for an earlier reply: %w", err)
		}
		for _, m := range msgs {
			if (m.User != b.UserID && (m.BotID == "" || m.BotID != b.BotID)) || m.Metadata.EventType != event {
				continue
			}
			if ts, _ := m.Metadata.EventPayload["post_ts"].(string); ts != string(p.TS) {
				continue
			}
			part, _ := m.Metadata.EventPayload["part"].(float64)
			live, _ := m.Metadata.EventPayload["live"].(bool)
			if ts, err := threads.ParseTS("conversations.replies.ts", m.Timestamp); err == nil {
				found[int(part)] = postedPart{ts: ts, live: live}
			}
		}
		if !more || cursor == "" {
			return found, nil
		}
		params.Cursor = cursor
	}
}

// repliesPage is how many messages one conversations.replies call asks
// for: Slack's recommended most.
const repliesPage = 200

// Backfill reads a thread's messages before current from
// conversations.replies, page after page: the root and the newest replies,
// limit in all. Slack returns a thread oldest first, so the newest are the
// last pages; at most 2×limit replies are held at a time.
func (s *surface) Backfill(ctx context.Context, key threads.Key, current threads.TS, limit int) ([]threads.Message, error) {
	if limit <= 0 {
		return nil, nil
	}
	params := &slack.GetConversationRepliesParameters{ChannelID: key.Channel, Timestamp: string(key.Root), Latest: string(current), Limit: repliesPage}
	var root *threads.Message
	var recent []threads.Message // the newest replies, trimmed to limit as they come
	for {
		var msgs []slack.Message
		var more bool
		var cursor string
		err := s.a.call(ctx, s.a.budget, "conversations.replies", func(ctx context.Context) error {
			var err error
			msgs, more, cursor, err = s.bot.API.GetConversationRepliesContext(ctx, params)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			ts, err := threads.ParseTS("conversations.replies.ts", m.Timestamp)
			if err != nil {
				s.a.log.Warn().Err(err).Msg("backfill skipped a message")
				continue
			}
			// Nothing at or after current belongs; a page may repeat the root.
			if !ts.Time().Before(current.Time()) || (ts == key.Root && root != nil) {
				continue
			}
			entry := s.backfilled(key, ts, m)
			if ts == key.Root {
				root = &entry
				continue
			}
			recent = append(recent, entry)
			if len(recent) >= 2*limit {
				recent = append(recent[:0:0], recent[len(recent)-limit:]...)
			}
		}
		if !more || cursor == "" {
			break
		}
		params.Cursor = cursor
	}
	if root != nil {
		limit--
	}
	if len(recent) > limit {
		recent = recent[len(recent)-limit:]
	}
	if root != nil {
		recent = append([]threads.Message{*root}, recent...)
	}
	return recent, nil
}

// backfilled is a message read from conversations.replies as the thread's
// log keeps it: context, said by a person, a bot or the bot itself.
func (s *surface) backfilled(key threads.Key, ts threads.TS, m slack.Message) threads.Message {
	entry := threads.Message{TS: ts, Role: threads.RoleUser, Authority: provenance.Context, Text: agent.StoredText(CleanText(m.Text, s.bot.UserID))}
	switch {
	case m.User == s.bot.UserID || (m.BotID != "" && m.BotID == s.bot.BotID):
		entry.Role, entry.Actor = threads.RoleAssistant, provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: s.bot.UserID}
	case m.BotID != "" || m.User == "":
		entry.Actor = provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: m.BotID}
	default:
		entry.Actor = provenance.Actor{Kind: provenance.KindUser, Team: key.Team, ID: m.User}
	}
	return entry
}

// post sends a message, through rate limits and transient errors, for up
// to the retry budget.
func (a *App) post(ctx context.Context, b install.Bot, channel string, opts ...slack.MsgOption) (string, error) {
	var ts string
	err := a.call(ctx, a.budget, "chat.postMessage", func(ctx context.Context) error {
		var err error
		_, ts, err = b.API.PostMessageContext(ctx, channel, opts...)
		return err
	})
	var se slack.SlackErrorResponse
	if errors.As(err, &se) && undeliverable[se.Err] {
		return "", fmt.Errorf("%w: %w", agent.ErrUndeliverable, err)
	}
	return ts, err
}

// undeliverable are chat.postMessage errors that posting again will not
// cure.
var undeliverable = map[string]bool{
	"channel_not_found": true, "not_in_channel": true, "is_archived": true, "restricted_action": true,
	"no_permission": true, "cannot_reply_to_message": true, "msg_too_long": true, "invalid_blocks": true,
}

// reactionBudget is shorter than a reply's: a reaction is only decoration.
const reactionBudget = 10 * time.Second

func (a *App) react(ctx context.Context, b install.Bot, add bool, p agent.Post, r reaction) {
	ref := slack.NewRefToMessage(p.Key.Channel, string(p.TS))
	err := a.call(ctx, reactionBudget, "reactions", func(ctx context.Context) error {
		if add {
			return b.API.AddReactionContext(ctx, string(r), ref)
		}
		return b.API.RemoveReactionContext(ctx, string(r), ref)
	})
	var se slack.SlackErrorResponse
	if err != nil && !(errors.As(err, &se) && (se.Err == "already_reacted" || se.Err == "no_reaction")) {
		a.log.Debug().Err(err).Str("reaction", string(r)).Bool("add", add).Msg("reaction failed")
	}
}

// call runs one Web API call, and runs it again after a rate limit (waiting
// what Slack asks) or a transient error (with backoff and jitter), until it
// succeeds, fails for good, or budget has passed. The budget is also the
// calls' deadline: a request Slack never answers ends with it (and each
// request with the HTTP client's timeout, serve's SlackHTTPTimeout).
func (a *App) call(ctx context.Context, budget time.Duration, method string, f func(ctx context.Context) error) error {
	deadline := a.now().Add(budget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	for attempt := 0; ; attempt++ {
		err := f(ctx)
		if err == nil {
			return nil
		}
		var rl *slack.RateLimitedError
		var wait time.Duration
		switch {
		case errors.As(err, &rl):
			wait = rl.RetryAfter
			a.log.Warn().Str("method", method).Dur("retry_after", wait).Msg("rate limited by Slack; waiting")
		case transient(err):
			wait = backoff(attempt)
			a.log.Warn().Err(err).Str("method", method).Dur("retry_in", wait).Msg("Slack call failed; retrying")
		default:
			return err
		}
		if ctx.Err() != nil || a.now().Add(wait).After(deadline) {
			return fmt.Errorf("%s: gave up after %s: %w", method, budget, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// backoff is the wait before retry n+1: doubling from 500 ms up to 8 s,
// half of it jitter, so replicas failing together do not retry together.
func backoff(n int) time.Duration {
	d := min(500*time.Millisecond<<min(n, 5), 8*time.Second)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)))
}

// transient reports whether a failed Web API call may work if made again.
func transient(err error) bool {
	var se slack.SlackErrorResponse
	var sc slack.StatusCodeError
	var ne net.Error
	switch {
	case errors.As(err, &se):
		switch se.Err {
		case "internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited":
			return true
		}
		return false
	case errors.As(err, &sc):
		return sc.Code >= 500
	case errors.As(err, &ne):
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return false
	}
	// A connection refused or reset arrives as a plain wrapped error.
	return errors.Is(err, net.ErrClosed) || isConnError(err)
}

func isConnError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}
