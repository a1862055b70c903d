package slackapp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
)

// post is a human post as the turn logic sees it, from either event type.
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

func (a *App) onAppMention(evt *socketmode.Event, _ *socketmode.Client) {
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
	a.async(func(ctx context.Context) { a.handlePost(ctx, evt, p) })
}

// Message subtypes that are new human posts; every other subtype (edits,
// deletions, joins, bot messages) is ignored.
var humanSubtypes = map[string]bool{"": true, "thread_broadcast": true, "file_share": true}

func (a *App) onMessage(evt *socketmode.Event, _ *socketmode.Client) {
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
	a.async(func(ctx context.Context) { a.handlePost(ctx, evt, p) })
}

// handlePost takes one human post through validation, deduplication and,
// when it is addressed to the bot, a turn.
func (a *App) handlePost(ctx context.Context, evt *socketmode.Event, p post) {
	log := a.log.With().Str("envelope_id", p.envelopeID).Str("channel", p.channel).Str("ts", p.ts).Logger()
	key, err := threads.KeyFor(p.team, p.channel, p.ts, p.threadTS)
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
		history, err := a.sessions.History(ctx, key, 10)
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
			if _, err := a.sessions.Append(ctx, key, threads.Message{TS: threads.TS(p.ts), Role: threads.RoleUser, Actor: actor, Authority: provenance.Context, Text: a.cleanText(p.text)}); err != nil {
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
	a.runTurn(ctx, key, vis, p)
}

func (a *App) runTurn(ctx context.Context, key threads.Key, vis provenance.Visibility, p post) {
	a.turnSlots <- struct{}{}
	defer func() { <-a.turnSlots }()
	log := a.log.With().Str("envelope_id", p.envelopeID).Str("source_key", key.SourceKey()).Logger()
	actor, err := a.dir.ActorFromEvent(ctx, p.team, p.user)
	if err != nil {
		log.Warn().Err(err).Msg("actor not enriched")
	}
	place := provenance.Place{Team: p.team, Channel: p.channel, SourceKey: key.SourceKey(), ThreadTS: string(key.Root), Visibility: vis}
	turnID, err := agent.ClaimTurn(ctx, a.pool, agent.TurnStart{Place: place, MessageTS: p.ts, ActorID: actor.ID})
	switch {
	case errors.Is(err, agent.ErrTurnClaimed):
		log.Debug().Msg("turn already claimed") // message + app_mention, or another replica
		return
	case err != nil:
		log.Error().Err(err).Msg("turn not started")
		return
	}
	if err := a.backfill(ctx, key, p.ts); err != nil {
		log.Warn().Err(err).Msg("thread backfill failed; continuing with what is logged")
	}
	text := a.cleanText(p.text)
	if _, err := a.sessions.Append(ctx, key, threads.Message{TS: threads.TS(p.ts), Role: threads.RoleUser, Actor: actor, Authority: provenance.Instruction, Text: text, TurnID: &turnID}); err != nil {
		log.Error().Err(err).Msg("session log append")
		a.finish(ctx, turnID, false, false)
		return
	}
	a.react(ctx, "add", p.channel, p.ts, "eyes")

	if n := len([]rune(text)); n > agent.MaxMessageChars {
		a.fail(ctx, p, key, fmt.Sprintf("Your message is %d characters long and I can read at most %d, so please shorten it or split it and try again.", n, agent.MaxMessageChars))
		a.finish(ctx, turnID, false, false)
		return
	}
	history, err := a.sessions.History(ctx, key, threads.HistoryLimit)
	if err != nil {
		log.Error().Err(err).Msg("session log history")
		a.fail(ctx, p, key, "I couldn't read this thread's history from my database, so please try again in a minute.")
		a.finish(ctx, turnID, false, false)
		return
	}
	inv := tools.Invocation{Actor: actor, Place: place, MessageTS: p.ts, TurnID: turnID, WrittenBy: string(memory.ByExplicit)}
	out, err := a.agent.Run(ctx, agent.Turn{Inv: inv, History: history})
	if err != nil {
		log.Error().Err(err).Int("steps", out.Steps).Msg("turn failed")
		a.fail(ctx, p, key, failureSentence(err))
		a.finish(ctx, turnID, false, out.UsedMemoryWrite)
		return
	}
	if err := a.reply(ctx, key, out.Reply, &turnID); err != nil {
		log.Error().Err(err).Msg("reply failed")
		a.react(ctx, "remove", p.channel, p.ts, "eyes")
		a.react(ctx, "add", p.channel, p.ts, "warning")
		a.finish(ctx, turnID, false, out.UsedMemoryWrite)
		return
	}
	a.react(ctx, "remove", p.channel, p.ts, "eyes")
	a.react(ctx, "add", p.channel, p.ts, "white_check_mark")
	log.Info().Int("steps", out.Steps).Strs("tools", out.ToolsRun).Int("recalled", len(out.Recalled)).Msg("turn answered")
	a.finish(ctx, turnID, true, out.UsedMemoryWrite)
}

// finish records the turn's outcome and, for a delivered turn, runs the
// after-turn hook in the same transaction.
func (a *App) finish(ctx context.Context, turnID int64, ok, usedWrite bool) {
	if err := agent.FinishTurn(ctx, a.pool, a.afterTurn, turnID, ok, usedWrite); err != nil {
		a.log.Error().Err(err).Int64("turn", turnID).Msg("turn finish")
	}
}

// failureSentence says in one sentence what went wrong and whether to retry.
func failureSentence(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "Sorry, I ran out of time working on this; please try again, perhaps with a narrower question."
	case errors.Is(err, agent.ErrNoReply):
		return "Sorry, the model gave me an empty answer; please try again."
	}
	return "Sorry, I couldn't reach the language model to answer this; please try again in a minute."
}

func (a *App) fail(ctx context.Context, p post, key threads.Key, sentence string) {
	a.react(ctx, "remove", p.channel, p.ts, "eyes")
	a.react(ctx, "add", p.channel, p.ts, "warning")
	if _, err := a.post(ctx, p.channel, slack.MsgOptionText(sentence, false), slack.MsgOptionTS(string(key.Root))); err != nil {
		a.log.Error().Err(err).Msg("failure message not posted")
	}
}

// reply posts the answer in the thread, split under Slack's limits, and logs
// each posted part.
func (a *App) reply(ctx context.Context, key threads.Key, text string, turnID *int64) error {
	bot := provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: a.botUserID, Name: "mnemo"}
	for _, part := range SplitMessage(ToMrkdwn(text), MaxPostChars) {
		ts, err := a.post(ctx, key.Channel, slack.MsgOptionText(part, false), slack.MsgOptionTS(string(key.Root)))
		if err != nil {
			return fmt.Errorf("chat.postMessage: %w", err)
		}
		pts, err := threads.ParseTS("chat.postMessage.ts", ts)
		if err != nil {
			return err
		}
		if _, err := a.sessions.Append(ctx, key, threads.Message{TS: pts, Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: part, TurnID: turnID}); err != nil {
			return err
		}
	}
	return nil
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

// backfill logs a thread's earlier messages the first time the bot sees a
// thread that already has some.
func (a *App) backfill(ctx context.Context, key threads.Key, currentTS string) error {
	if string(key.Root) == currentTS {
		return nil
	}
	n, err := a.sessions.Len(ctx, key)
	if err != nil || n > 0 {
		return err
	}
	msgs, _, _, err := a.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: key.Channel, Timestamp: string(key.Root), Limit: 200})
	if err != nil {
		return fmt.Errorf("conversations.replies: %w", err)
	}
	for _, m := range msgs {
		if m.Timestamp == currentTS {
			continue
		}
		ts, err := threads.ParseTS("conversations.replies.ts", m.Timestamp)
		if err != nil {
			a.log.Warn().Err(err).Msg("backfill skipped a message")
			continue
		}
		entry := threads.Message{TS: ts, Role: threads.RoleUser, Authority: provenance.Context, Text: a.cleanText(m.Text)}
		switch {
		case m.User == a.botUserID || (m.BotID != "" && m.BotID == a.botID):
			entry.Role, entry.Actor = threads.RoleAssistant, provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: a.botUserID}
		case m.BotID != "" || m.User == "":
			entry.Actor = provenance.Actor{Kind: provenance.KindBot, Team: key.Team, ID: m.BotID}
		default:
			entry.Actor = provenance.Actor{Kind: provenance.KindUser, Team: key.Team, ID: m.User}
		}
		if _, err := a.sessions.Append(ctx, key, entry); err != nil {
			return err
		}
	}
	return nil
}

func (a *App) react(ctx context.Context, op, channel, ts, name string) {
	ref := slack.NewRefToMessage(channel, ts)
	var err error
	if op == "add" {
		err = a.api.AddReactionContext(ctx, name, ref)
	} else {
		err = a.api.RemoveReactionContext(ctx, name, ref)
	}
	if err != nil {
		a.log.Debug().Err(err).Str("reaction", name).Str("op", op).Msg("reaction failed")
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
