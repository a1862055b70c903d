package slackapp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// verdict is what becomes of an event: it is taken into the inbox, ignored
// (not for the bot), or rejected (malformed).
type verdict int

const (
	admit verdict = iota
	ignore
	reject
)

// Message subtypes that are new human posts; every other subtype (edits,
// deletions, joins, bot messages) is ignored.
var humanSubtypes = map[string]bool{"": true, "thread_broadcast": true, "file_share": true}

// slackID matches team, channel and user ids.
var slackID = regexp.MustCompile(`^[A-Z0-9]{2,32}$`)

// postFrom turns an app_mention or message event into the post the inbox
// takes in, or says why there is none. It reads nothing but the event, so
// it runs before the ack.
func postFrom(e slackevents.EventsAPIEvent, envelopeID, botUserID string) (inbox.Post, verdict, error) {
	p := inbox.Post{Team: e.TeamID, EnvelopeID: envelopeID}
	if cb, ok := e.Data.(*slackevents.EventsAPICallbackEvent); ok && cb != nil {
		p.EventID = cb.EventID
	}
	switch m := e.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if m.BotID != "" || m.User == botUserID {
			return p, ignore, nil
		}
		p.Channel, p.User, p.Text, p.TS, p.ThreadTS, p.Mention = m.Channel, m.User, m.Text, m.TimeStamp, m.ThreadTimeStamp, true
	case *slackevents.MessageEvent:
		if !humanSubtypes[m.SubType] || m.BotID != "" || m.User == botUserID {
			return p, ignore, nil
		}
		if m.ChannelType != "im" {
			if strings.Contains(m.Text, "<@"+botUserID+">") {
				return p, ignore, nil // a channel post that mentions the bot also arrives as app_mention, which answers it
			}
			if m.ThreadTimeStamp == "" {
				return p, ignore, nil // a new channel post without a mention starts a thread the bot is not part of
			}
		}
		p.Channel, p.ChannelType, p.User, p.Text, p.TS, p.ThreadTS = m.Channel, m.ChannelType, m.User, m.Text, m.TimeStamp, m.ThreadTimeStamp
	default:
		return p, reject, errors.New("event without a body")
	}
	// The ids are checked first and by name: a missing channel is no bad
	// timestamp, and the log says which field was wrong.
	for _, f := range []struct{ name, id string }{{"team", p.Team}, {"channel", p.Channel}, {"user", p.User}} {
		if !slackID.MatchString(f.id) {
			return p, reject, fmt.Errorf("bad %s id %q", f.name, f.id)
		}
	}
	if _, _, err := threads.KeyFor(p.Team, p.Channel, p.TS, p.ThreadTS); err != nil {
		return p, reject, fmt.Errorf("bad timestamp: %w", err)
	}
	// A secret is redacted before the post's first write: the inbox and the
	// job queue keep what the turn reads, and the turn never sees a secret.
	p.Text = detect.Redact(agent.Sanitize(p.Text))
	// The inbox keeps at most agent.MaxPostChars of it; a turn reads at
	// most agent.MaxMessageChars, and says a cut post's length as at least
	// that.
	if utf8.RuneCountInString(p.Text) > agent.MaxPostChars {
		p.Text = string([]rune(p.Text)[:agent.MaxPostChars])
	}
	return p, admit, nil
}

// admitTimeout bounds what a delivery's ack waits for, counted from its
// arrival: the installation's lookup and, for a post, the inbox's write,
// together, well inside Slack's 3-second ack budget. What can't finish by
// then is refused, and Slack delivers it again.
const admitTimeout = 2500 * time.Millisecond

// admission is the context of a delivery's admission: it ends admitTimeout
// after the delivery arrived, so the inbox's write has what the lookup
// left of the budget, not a budget of its own. It does not end with ctx: a
// write under way when the socket closes still finishes, and the
// envelope may still be acked.
func (a *App) admission(ctx context.Context, d *delivery) (context.Context, context.CancelFunc) {
	left := admitTimeout
	if !d.arrived.IsZero() {
		left -= a.now().Sub(d.arrived)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), left)
}

// onPost takes a post into the inbox and only then acks its envelope. When
// the inbox can't take it (the database is down), the envelope is not
// acked, so Slack delivers it again.
func (a *App) onPost(ctx context.Context, d *delivery) {
	e, _ := d.data.(slackevents.EventsAPIEvent)
	kind := d.kind
	// The turn's trace starts here: the event's arrival and its ack.
	ctx, span := tracer.Start(ctx, "slack.event "+kind, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("slack.event.type", kind), attribute.String("slack.envelope_id", d.id)))
	defer span.End()
	// The bot was looked up before (dispatch): within the same budget.
	actx, cancel := a.admission(ctx, d)
	defer cancel()
	b, err := a.bot(actx, e.TeamID)
	if err != nil {
		a.obs.EventRefused(kind)
		a.log.Error().Err(err).Str("envelope_id", d.id).Msg("no bot for the post's team; envelope not acked")
		return
	}
	p, v, err := postFrom(e, d.id, b.UserID)
	span.SetAttributes(attribute.String("slack.channel", p.Channel), attribute.String("slack.ts", p.TS))
	p = inbox.WithTrace(ctx, p)
	log := a.log.With().Str("envelope_id", d.id).Str("channel", p.Channel).Str("ts", p.TS).Logger()
	switch v {
	case reject:
		log.Error().Err(err).Str("thread_ts", p.ThreadTS).Str("type", kind).Msg("event rejected")
		a.ack(d)
		return
	case ignore:
		log.Debug().Str("type", kind).Msg("event not for the bot")
		a.ack(d)
		return
	}
	if a.inbox == nil {
		a.obs.EventRefused(kind)
		log.Error().Msg("no inbox to take the post in; envelope not acked")
		return
	}
	// The write has what is left of the admission's budget, and happens
	// even when the socket is closing (admission): the envelope may still
	// be acked, and if not, the post is in the inbox anyway.
	duplicate, err := a.inbox.Enqueue(actx, p)
	if err != nil {
		a.obs.EventRefused(kind)
		log.Error().Err(err).Msg("inbox write failed; envelope not acked, so Slack delivers it again")
		return
	}
	span.SetAttributes(attribute.Bool("mnemo.duplicate", duplicate))
	if duplicate {
		a.obs.EventDeduplicated(kind)
		// Caught by the arrival's key: the post waits to be moved into the
		// job queue, or was moved within the last day. Older copies reach
		// the job queue, whose unique job catches them (the inbox logs it).
		log.Info().Str("event_id", p.EventID).Int("retry_attempt", d.retry).Str("retry_reason", d.reason).Str("caught_by", "inbox arrivals").Msg("post already in the inbox; duplicate ignored")
	}
	a.ack(d)
}

// giveUpSentence tells a thread that its post's turn failed for good.
const giveUpSentence = "Sorry, I couldn't answer this after several tries because of a problem on my side; please ask again."

// slackPost is a post of the inbox as the turn runner takes it.
type slackPost struct {
	agent.Post
	visibility provenance.Visibility
}

// resolve makes an inbox post a turn's post: its thread, the place's
// visibility (conversations.info when the event did not say), and the
// actor from the live event.
//
// The post's workspace is the installation Slack delivered it for
// (routeOf), and that installation answers it, in a Slack Connect channel
// too: Slack delivers an event once, for one installation, even when
// the app is installed on both sides of the channel. Its authorizations
// name that one (the full list needs apps.event.authorizations.list:
// https://api.slack.com/changelog/2020-09-15-events-api-truncate-authed-users),
// and an app_mention comes for the bot it mentions. No other
// installation is sent a copy to answer it.
func (a *App) resolve(ctx context.Context, ip inbox.Post) (slackPost, error) {
	key, ts, err := threads.KeyFor(ip.Team, ip.Channel, ip.TS, ip.ThreadTS)
	if err != nil {
		return slackPost{}, err
	}
	b, err := a.bot(ctx, ip.Team)
	if errors.Is(err, install.ErrNotInstalled) {
		return slackPost{}, fmt.Errorf("%w: %w", agent.ErrUndeliverable, err)
	} else if err != nil {
		return slackPost{}, err
	}
	info := a.channelInfo(ctx, b, ip.Channel, ip.ChannelType)
	vis := provenance.VisibilityOf(info.typ, ip.Channel)
	// users.info says whose member the actor is (Directory.ActorFromEvent).
	// Where a person of another organisation can be, in a Slack Connect
	// channel, a DM or a group DM, one it can't place is not taken in (the
	// inbox tries again): taken for the host's member, they would read the
	// host's memories and keep theirs under the host.
	actor, err := a.dir.ActorFromEvent(ctx, ip.Team, ip.User)
	if mustPlace := info.shared || info.typ == "im" || info.typ == "mpim" || strings.HasPrefix(ip.Channel, "D"); err != nil && mustPlace {
		return slackPost{}, fmt.Errorf("actor where another organisation's people can be: %w", err)
	} else if err != nil {
		a.log.Warn().Err(err).Str("ts", ip.TS).Msg("actor not enriched")
	}
	place := provenance.Place{Team: ip.Team, Org: a.orgOf(b), Channel: ip.Channel, SourceKey: key.SourceKey(), ThreadTS: string(key.Root), Visibility: vis, Shared: info.shared}
	// A person of another organisation reaches the bot's DM through Slack
	// Connect as well, where conversations.info is not asked: the DM is
	// then shared with another organisation as a Slack Connect channel is.
	// A group DM is asked (channelInfo).
	place.Shared = place.Shared || actor.ExternalTo(place)
	return slackPost{Post: agent.Post{Key: key, TS: ts, Actor: actor, Place: place, Text: CleanText(ip.Text, b.UserID)}, visibility: vis}, nil
}

// Accept takes a post in from the inbox: a mention or a DM needs a turn; a
// message in a thread needs one when it addresses the bot in a thread the
// bot is part of, and is otherwise logged as context or ignored. A post
// that needs a turn is recorded and logged now, with the claim's lease
// taken in the same round trip (the runner's Take), even if its thread is
// busy.
func (a *App) Accept(ctx context.Context, ip inbox.Post, c inbox.Claim) (inbox.Accepted, error) {
	p, err := a.resolve(ctx, ip)
	if err != nil {
		return inbox.Accepted{}, err
	}
	log := a.log.With().Str("envelope_id", ip.EnvelopeID).Str("channel", ip.Channel).Str("ts", ip.TS).Logger()
	if !ip.Mention && p.visibility != provenance.DM {
		// A thread message whose turn is recorded was found addressed
		// before: its addressing is not decided again.
		if t, err := a.db.Turns().Find(ctx, ip.Team, ip.Channel, ip.TS); err == nil {
			if t.Status != db.TurnRunning {
				return inbox.Accepted{}, nil
			}
		} else if !errors.Is(err, db.ErrNotFound) {
			return inbox.Accepted{}, err
		} else {
			addressed, err := a.addressed(ctx, log, p)
			if err != nil || !addressed {
				return inbox.Accepted{}, err
			}
		}
	}
	s, err := a.surfaceFor(ctx, ip.Team)
	if err != nil {
		return inbox.Accepted{}, err
	}
	tk, err := a.runner.Take(ctx, p.Post, s, c.Lease, c.TTL)
	if err != nil {
		return inbox.Accepted{}, err
	}
	return inbox.Accepted{Needed: tk.Turn.Status == db.TurnRunning, Leased: tk.Leased, State: tk}, nil
}

// addressed decides whether a message in a thread is for the bot (see
// AddressesBot); chatter in a thread the bot is part of is logged as
// context.
func (a *App) addressed(ctx context.Context, log zerolog.Logger, p slackPost) (bool, error) {
	history, err := a.db.Sessions().History(ctx, p.Key, 10)
	if err != nil {
		return false, err
	}
	// What was said before the post decides, not what came after it.
	before := history[:0:0]
	for _, m := range history {
		if m.TS.Time().Before(p.TS.Time()) {
			before = append(before, m)
		}
	}
	if len(before) == 0 {
		log.Debug().Msg("not addressed to the bot, in a thread it is not part of")
		return false, nil
	}
	if AddressesBot(p.Text, p.Actor.ID, before) {
		return true, nil
	}
	log.Debug().Msg("thread chatter kept as context")
	_, err = a.db.Sessions().Append(ctx, p.Key, threads.Message{TS: p.TS, Role: threads.RoleUser, Actor: p.Actor, Authority: provenance.Context, Text: agent.StoredText(p.Text)})
	return false, err
}

// Turn runs an accepted post's turn; the inbox holds its thread.
func (a *App) Turn(ctx context.Context, ip inbox.Post, acc inbox.Accepted) error {
	p, err := a.resolve(ctx, ip)
	if err != nil {
		return err
	}
	tk, ok := acc.State.(agent.Taken)
	if !ok {
		return fmt.Errorf("slackapp: turn of %s run without Accept's state", ip.TS)
	}
	s, err := a.surfaceFor(ctx, ip.Team)
	if err != nil {
		return err
	}
	_, err = a.runner.RunTaken(ctx, p.Post, s, tk)
	if errors.Is(err, agent.ErrTurnFinished) {
		a.log.Debug().Str("ts", ip.TS).Msg("turn already finished")
		return nil
	}
	return err
}

// GiveUp tells a post's thread that its turn failed and can be asked again.
// A thread message whose addressing was never decided is not answered.
func (a *App) GiveUp(ctx context.Context, ip inbox.Post, cause error) error {
	p, err := a.resolve(ctx, ip)
	if err != nil {
		return err
	}
	log := a.log.With().Str("channel", ip.Channel).Str("ts", ip.TS).Logger()
	if !ip.Mention && p.visibility != provenance.DM {
		if _, err := a.db.Turns().Find(ctx, ip.Team, ip.Channel, ip.TS); errors.Is(err, db.ErrNotFound) {
			log.Error().AnErr("cause", cause).Msg("a thread message could not be taken in; it may not have been for the bot, so nobody is told")
			return nil
		} else if err != nil {
			return err
		}
	}
	log.Error().AnErr("cause", cause).Msg("giving up on a post after its last attempt; the thread gets its decided answer, or else a notice")
	s, err := a.surfaceFor(ctx, ip.Team)
	if err != nil {
		return err
	}
	return a.runner.GiveUp(ctx, p.Post, s, giveUpSentence)
}

// CleanText replaces the bot's own mention with its name and undoes the
// three escapes Slack applies to message text, so people's words are
// stored and shown as they typed them. Text typed as "<!channel>" then
// reads as Slack's own special mention: whatever the bot posts is made
// safe on the way out (ToMrkdwn, StreamMarkdown), not here.
func CleanText(s, botUserID string) string {
	s = strings.ReplaceAll(s, "<@"+botUserID+">", "@mnemo")
	return strings.TrimSpace(slackUnescape.Replace(s))
}

var slackUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// channelInfoTTL is how long what conversations.info said of a channel is
// used: a channel can become a Slack Connect channel at any time.
const channelInfoTTL = 10 * time.Minute

// maxChannels bounds the channels whose conversations.info is kept: the
// least recently used is asked again.
const maxChannels = 20000

// channelInfo is what conversations.info says of a channel: its type, as an
// event's channel_type says it, and whether it is shared with another
// organisation (Slack Connect, is_ext_shared).
type channelInfo struct {
	typ    string
	shared bool
	at     time.Time
}

// channelInfo asks conversations.info about a channel, cached for
// channelInfoTTL. When Slack can't say, it fails closed: the type is the
// event's ("" when it gave none, so the place counts as private:
// provenance.VisibilityOf), and the channel counts as shared; the failure
// is not cached, so the next event asks again (conversations.info's is
// counted: Observer.ChannelTypeUnknown). A DM is not asked: whether a
// person of another organisation is in it is users.info's to say
// (resolve). A group DM is, whichever event brought it (a follow-up's
// message says channel_type "mpim", a mention says none): a person of
// another organisation can be in one through Slack Connect, and reads a
// host member's answer there (groupDMShared).
func (a *App) channelInfo(ctx context.Context, b install.Bot, channel, eventType string) channelInfo {
	if eventType == "im" {
		return channelInfo{typ: eventType}
	}
	key := b.Team + "/" + channel
	if c, ok := a.chanTypes.Get(key); ok && a.now().Sub(c.at) < channelInfoTTL {
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ch, err := b.API.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil {
		a.obs.ChannelTypeUnknown()
		a.log.Warn().Err(err).Str("channel", channel).Msg("conversations.info failed; the channel is treated as private and as shared with another organisation")
		return channelInfo{typ: eventType, shared: true}
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
	info := channelInfo{typ: t, shared: ch.IsExtShared, at: a.now()}
	if t == "mpim" && !info.shared {
		if info.shared, err = a.groupDMShared(ctx, b, channel); err != nil {
			a.log.Warn().Err(err).Str("channel", channel).Msg("a group DM's members could not be placed; it is treated as shared with another organisation")
			return channelInfo{typ: t, shared: true}
		}
	}
	a.chanTypes.Add(key, info)
	return info
}

// groupDMShared says whether a person of another organisation is in a
// group DM: conversations.members lists its members, and users.info
// places each (Directory.ActorFromEvent, cached). Slack's reference does
// not say that conversations.info's is_ext_shared covers a group DM, and
// a group DM has nine people at most, so they are asked. Slack's help
// says inviting someone to a group DM starts a new one, so its members
// stay as found; channelInfo keeps the answer channelInfoTTL anyway. It
// fails closed: a member who can't be placed is an error.
func (a *App) groupDMShared(ctx context.Context, b install.Bot, channel string) (bool, error) {
	here := provenance.Place{Team: b.Team}
	cursor := ""
	for range maxMemberPages {
		ids, next, err := b.API.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{ChannelID: channel, Cursor: cursor, Limit: 100})
		if err != nil {
			return true, fmt.Errorf("conversations.members: %w", err)
		}
		for _, id := range ids {
			if id == b.UserID {
				continue
			}
			actor, err := a.dir.ActorFromEvent(ctx, b.Team, id)
			if err != nil {
				return true, err
			}
			if actor.ExternalTo(here) {
				return true, nil
			}
		}
		if next == "" {
			return false, nil
		}
		cursor = next
	}
	return true, fmt.Errorf("conversations.members: more than %d pages", maxMemberPages)
}

// maxMemberPages bounds the pages of conversations.members read for a
// group DM: one holds them all.
const maxMemberPages = 3

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
