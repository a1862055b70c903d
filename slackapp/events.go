package slackapp

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// post is a human post as it arrives, from either event type.
type post struct {
	envelopeID  string
	team        string
	channel     string
	channelType string
	user        string
	text        string
	ts          string
	threadTS    string
	mention     bool
}

func (a *App) onAppMention(ctx context.Context, evt *socketmode.Event) {
	a.ack(evt)
	e, _ := evt.Data.(slackevents.EventsAPIEvent)
	m, ok := e.InnerEvent.Data.(*slackevents.AppMentionEvent)
	if !ok {
		a.log.Error().Str("envelope_id", evt.Request.EnvelopeID).Msg("app_mention without a body rejected")
		return
	}
	if m.BotID != "" || m.User == "" || m.User == a.botUserID {
		return
	}
	p := post{envelopeID: evt.Request.EnvelopeID, team: e.TeamID, channel: m.Channel, user: m.User, text: m.Text, ts: m.TimeStamp, threadTS: m.ThreadTimeStamp, mention: true}
	a.async(ctx, func(ctx context.Context) { a.handlePost(ctx, evt, p) })
}

// Message subtypes that are new human posts; every other subtype (edits,
// deletions, joins, bot messages) is ignored.
var humanSubtypes = map[string]bool{"": true, "thread_broadcast": true, "file_share": true}

func (a *App) onMessage(ctx context.Context, evt *socketmode.Event) {
	a.ack(evt)
	e, _ := evt.Data.(slackevents.EventsAPIEvent)
	m, ok := e.InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok {
		a.log.Error().Str("envelope_id", evt.Request.EnvelopeID).Msg("message event without a body rejected")
		return
	}
	a.log.Debug().Str("subtype", m.SubType).Str("user", m.User).Str("bot_id", m.BotID).Str("channel_type", m.ChannelType).Msg("message event")
	if !humanSubtypes[m.SubType] || m.BotID != "" || m.User == "" || m.User == a.botUserID {
		return
	}
	p := post{envelopeID: evt.Request.EnvelopeID, team: e.TeamID, channel: m.Channel, channelType: m.ChannelType, user: m.User, text: m.Text, ts: m.TimeStamp, threadTS: m.ThreadTimeStamp}
	if m.ChannelType != "im" && strings.Contains(m.Text, "<@"+a.botUserID+">") {
		return // a channel post that mentions the bot also arrives as app_mention, which answers it
	}
	a.async(ctx, func(ctx context.Context) { a.handlePost(ctx, evt, p) })
}

// handlePost takes one human post through validation, deduplication and,
// when it is addressed to the bot, a turn.
func (a *App) handlePost(ctx context.Context, evt *socketmode.Event, p post) {
	log := a.log.With().Str("envelope_id", p.envelopeID).Str("channel", p.channel).Str("ts", p.ts).Logger()
	key, ts, err := threads.KeyFor(p.team, p.channel, p.ts, p.threadTS)
	if err != nil {
		log.Error().Err(err).Str("thread_ts", p.threadTS).Msg("event rejected: bad timestamp")
		return
	}
	if p.channelType == "" {
		p.channelType = a.channelType(ctx, p.channel)
	}
	vis := provenance.VisibilityOf(p.channelType, p.channel)
	if !p.mention && vis != provenance.DM {
		// Not addressed by a mention: in a thread the bot is part of, a
		// follow-up that addresses it is answered; other chatter is kept as
		// context.
		history, err := a.db.Sessions().History(ctx, key, 10)
		if err != nil {
			log.Error().Err(err).Msg("session log")
			return
		}
		if len(history) == 0 {
			log.Debug().Msg("not addressed to the bot, in a thread it is not part of")
			return
		}
		if !AddressesBot(p.text, p.user, history) {
			log.Debug().Msg("thread chatter kept as context")
			actor, _ := a.dir.ActorFromEvent(ctx, p.team, p.user)
			if _, err := a.db.Sessions().Append(ctx, key, threads.Message{TS: ts, Role: threads.RoleUser, Actor: actor, Authority: provenance.Context, Text: a.cleanText(p.text)}); err != nil {
				log.Error().Err(err).Msg("session log append")
			}
			return
		}
	}
	// Only posts that get a turn are claimed: most channel messages are
	// chatter the bot never acts on, and logging context is idempotent.
	if !a.claimEvent(ctx, evt) {
		return
	}
	actor, err := a.dir.ActorFromEvent(ctx, p.team, p.user)
	if err != nil {
		log.Warn().Err(err).Msg("actor not enriched")
	}
	place := provenance.Place{Team: p.team, Channel: p.channel, SourceKey: key.SourceKey(), ThreadTS: string(key.Root), Visibility: vis}
	turn := agent.Post{Key: key, TS: ts, Actor: actor, Place: place, Text: a.cleanText(p.text)}
	_, err = a.runner.Run(ctx, turn, &surface{a: a})
	if errors.Is(err, agent.ErrTurnClaimed) {
		log.Debug().Msg("turn already claimed") // message + app_mention, or another replica
	}
}

// reaction is an emoji mnemo puts on a post to show a turn's phase.
type reaction string

const (
	reactionWorking reaction = "eyes"
	reactionDone    reaction = "white_check_mark"
	reactionFailed  reaction = "warning"
)

// surface is a turn's Slack side: reactions, thread replies and backfill
// from conversations.replies.
type surface struct {
	a    *App
	live *liveReply // the streamed answer (stream.go)
}

func (s *surface) Progress(ctx context.Context, p agent.Post, phase agent.Phase) {
	switch phase {
	case agent.Working:
		s.a.react(ctx, true, p, reactionWorking)
		s.a.titleThread(ctx, p)
	case agent.Done:
		s.a.react(ctx, false, p, reactionWorking)
		s.a.react(ctx, true, p, reactionDone)
	case agent.Failed:
		s.a.react(ctx, false, p, reactionWorking)
		s.a.react(ctx, true, p, reactionFailed)
	}
}

func (s *surface) Notify(ctx context.Context, key threads.Key, sentence string) {
	if s.live.fail(ctx, sentence) {
		return
	}
	if _, err := s.a.post(ctx, key.Channel, slack.MsgOptionText(sentence, false), slack.MsgOptionTS(string(key.Root))); err != nil {
		s.a.log.Error().Err(err).Msg("failure message not posted")
	}
}

// Reply posts the answer in the thread, split under Slack's limits.
func (s *surface) Reply(ctx context.Context, key threads.Key, text string) ([]threads.Message, error) {
	if s.live.started() {
		return s.live.finish(ctx, text)
	}
	bot := provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: s.a.botUserID, Name: "mnemo"}
	var posted []threads.Message
	parts := SplitMessage(ToMrkdwn(text), MaxPostChars)
	for i, part := range parts {
		raw, err := s.a.post(ctx, key.Channel, replyText(part, i == len(parts)-1), slack.MsgOptionTS(string(key.Root)))
		if err != nil {
			return posted, err
		}
		ts, err := threads.ParseTS("chat.postMessage.ts", raw)
		if err != nil {
			return posted, err
		}
		posted = append(posted, threads.Message{TS: ts, Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: part})
	}
	return posted, nil
}

// Backfill reads a thread's earlier messages from conversations.replies.
func (s *surface) Backfill(ctx context.Context, key threads.Key, current threads.TS) ([]threads.Message, error) {
	msgs, _, _, err := s.a.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: key.Channel, Timestamp: string(key.Root), Limit: 200})
	if err != nil {
		return nil, err
	}
	var out []threads.Message
	for _, m := range msgs {
		if m.Timestamp == string(current) {
			continue
		}
		ts, err := threads.ParseTS("conversations.replies.ts", m.Timestamp)
		if err != nil {
			s.a.log.Warn().Err(err).Msg("backfill skipped a message")
			continue
		}
		entry := threads.Message{TS: ts, Role: threads.RoleUser, Authority: provenance.Context, Text: s.a.cleanText(m.Text)}
		switch {
		case m.User == s.a.botUserID || (m.BotID != "" && m.BotID == s.a.botID):
			entry.Role, entry.Actor = threads.RoleAssistant, provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: s.a.botUserID}
		case m.BotID != "" || m.User == "":
			entry.Actor = provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: m.BotID}
		default:
			entry.Actor = provenance.Actor{Kind: provenance.KindUser, Team: key.Team, ID: m.User}
		}
		out = append(out, entry)
	}
	return out, nil
}

// post sends a message, waiting out Slack's rate limits a few times.
func (a *App) post(ctx context.Context, channel string, opts ...slack.MsgOption) (string, error) {
	for attempt := 0; ; attempt++ {
		_, ts, err := a.api.PostMessageContext(ctx, channel, opts...)
		var rl *slack.RateLimitedError
		if !errors.As(err, &rl) || attempt == 3 {
			return ts, err
		}
		a.log.Warn().Dur("retry_after", rl.RetryAfter).Msg("rate limited by Slack; waiting")
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(rl.RetryAfter):
		}
	}
}

func (a *App) react(ctx context.Context, add bool, p agent.Post, r reaction) {
	ref := slack.NewRefToMessage(p.Key.Channel, string(p.TS))
	var err error
	if add {
		err = a.api.AddReactionContext(ctx, string(r), ref)
	} else {
		err = a.api.RemoveReactionContext(ctx, string(r), ref)
	}
	if err != nil {
		a.log.Debug().Err(err).Str("reaction", string(r)).Bool("add", add).Msg("reaction failed")
	}
}

// cleanText replaces the bot's own mention with its name and undoes the
// three escapes Slack applies to message text, so people's words are
// stored and shown as they typed them.
func (a *App) cleanText(s string) string {
	return CleanText(s, a.botUserID)
}

// CleanText is cleanText for a given bot user id.
func CleanText(s, botUserID string) string {
	s = strings.ReplaceAll(s, "<@"+botUserID+">", "@mnemo")
	return strings.TrimSpace(slackUnescape.Replace(s))
}

var slackUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// channelType asks conversations.info what kind of conversation a channel is,
// for events (app_mention) that don't say.
func (a *App) channelType(ctx context.Context, channel string) string {
	if t, ok := a.chanTypes.Load(channel); ok {
		return t.(string)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ch, err := a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil {
		a.log.Debug().Err(err).Msg("conversations.info failed; visibility from the channel id")
		return ""
	}
	t := "channel"
	switch {
	case ch.IsIM:
		t = "im"
	case ch.IsMpIM:
		t = "mpim"
	case ch.IsPrivate:
		t = "group"
	}
	a.chanTypes.Store(channel, t)
	return t
}

var namesBot = regexp.MustCompile(`(?i)(^|[\s,.:;!?(])@?mnemo([\s,.:;!?)]|$)`)

// AddressesBot is the documented follow-up rule: in a thread the bot is part
// of, a message without a mention is for the bot when it names the bot, or
// when it directly follows the bot's reply to the same person, who is the
// only person the bot has been talking with in the thread.
func AddressesBot(text, user string, history []threads.Message) bool {
	if namesBot.MatchString(text) {
		return true
	}
	if len(history) == 0 || history[len(history)-1].Role != threads.RoleAssistant {
		return false
	}
	for _, m := range history {
		if m.Role == threads.RoleUser && m.Actor.ID != user {
			return false
		}
	}
	return true
}
