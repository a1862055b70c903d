package slackapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/provenance"
)

// ActionFeedback is the action id of the 👍/👎 buttons under each reply.
const ActionFeedback = "mnemo_feedback"

// sectionChars is Slack's limit on a section block's text.
const sectionChars = 3000

// feedbackBlockID is the block id of the feedback buttons.
const feedbackBlockID = "mnemo_feedback"

// feedbackBlockIn is the 👍/👎 buttons under a reply, saying they were
// made for team (madeValue; madeFor of the bot that posts it): under an
// org-wide installation Slack names no workspace when they are pressed,
// nor when the Inspect shortcut is used on the reply (replyMadeIn).
func feedbackBlockIn(team string) slack.Block {
	up := slack.NewFeedbackButton(slack.NewTextBlockObject(slack.PlainTextType, "👍", true, false), madeValue(team, string(db.Positive))).WithAccessibilityLabel("Good answer")
	down := slack.NewFeedbackButton(slack.NewTextBlockObject(slack.PlainTextType, "👎", true, false), madeValue(team, string(db.Negative))).WithAccessibilityLabel("Bad answer")
	return slack.NewContextActionsBlock(feedbackBlockID, slack.NewFeedbackButtonsBlockElement(ActionFeedback, up, down))
}

// replyTextIn is a reply part as a message: its text, and for the last
// part of an answer, the same text in sections followed by the feedback
// buttons made for team (feedbackBlockIn; with blocks, the text is only
// the notification's).
func replyTextIn(team, part string, last bool) slack.MsgOption {
	text := slack.MsgOptionText(part, false)
	if !last {
		return text
	}
	var blocks []slack.Block
	for _, chunk := range SplitMessage(part, sectionChars) {
		blocks = append(blocks, slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, chunk, false, false), nil, nil))
	}
	return slack.MsgOptionCompose(text, slack.MsgOptionBlocks(append(blocks, feedbackBlockIn(team))...))
}

// replyMadeIn is the workspace a reply of this app (appID) was posted in,
// as its feedback buttons say, or "": another message, or a reply whose
// buttons say none. Only the app's own messages are read: anyone can post
// blocks that look like these.
func replyMadeIn(m slack.Message, appID string) string {
	if m.BotProfile == nil || appID == "" || m.BotProfile.AppID != appID {
		return ""
	}
	for _, b := range m.Blocks.BlockSet {
		ca, ok := b.(*slack.ContextActionsBlock)
		if !ok || ca.BlockID != feedbackBlockID || ca.Elements == nil {
			continue
		}
		for _, e := range ca.Elements.ElementSet {
			if fb, ok := e.(*slack.FeedbackButtonsBlockElement); ok && fb.ActionID == ActionFeedback && fb.PositiveButton != nil {
				team, _ := valueMadeIn(fb.PositiveButton.Value)
				return team
			}
		}
	}
	return ""
}

// OnFeedback registers f to be told of every verdict stored, for metrics.
// Call it before Run.
func (a *App) OnFeedback(f func(db.Verdict)) { a.feedbackHook = f }

// onFeedback stores a press of a reply's feedback buttons with the reply's
// turn, replacing the person's earlier verdict on it.
func (a *App) onFeedback(ctx context.Context, team string, actor provenance.Actor, cb slack.InteractionCallback, act *slack.BlockAction) {
	_, verdict := valueMadeIn(act.Value) // the workspace was read by interactionTeam
	v := db.Verdict(verdict)
	channel, ts := cb.Channel.ID, cb.Container.MessageTs
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	if ts == "" {
		ts = cb.Message.Timestamp
	}
	log := a.log.With().Str("channel", channel).Str("ts", ts).Logger()
	turnID, err := a.db.Feedback().TurnOfReply(ctx, team, channel, ts)
	if errors.Is(err, db.ErrNotFound) {
		log.Warn().Msg("feedback on a message no turn posted ignored")
		return
	}
	if err != nil {
		log.Error().Err(err).Msg("feedback not stored")
		return
	}
	if err := a.db.Feedback().Record(ctx, db.TurnFeedback{TurnID: turnID, UserID: actor.ID, Value: v, At: time.Now()}); err != nil {
		log.Error().Err(err).Msg("feedback not stored")
		return
	}
	log.Info().Int64("turn", turnID).Str("verdict", string(v)).Msg("feedback stored")
	if a.feedbackHook != nil {
		a.feedbackHook(v)
	}
}

// feedbackStats is the feedback line of `/mnemo stats`.
func (a *App) feedbackStats(ctx context.Context, team string) string {
	c, err := a.db.Feedback().Counts(ctx, team)
	if err != nil {
		a.log.Error().Err(err).Msg("feedback counts")
		return "\n• feedback: unavailable"
	}
	return fmt.Sprintf("\n• feedback: %d 👍, %d 👎", c.Positive, c.Negative)
}
