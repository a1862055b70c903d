package slackapp

import (
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/install"
)

// teamOf is the workspace an envelope comes from, or "" for envelopes of
// no workspace (hello, disconnect).
func teamOf(evt *socketmode.Event) string {
	switch d := evt.Data.(type) {
	case slackevents.EventsAPIEvent:
		return d.TeamID
	case slack.SlashCommand:
		return d.TeamID
	case slack.InteractionCallback:
		if d.Team.ID != "" {
			return d.Team.ID
		}
		return d.User.TeamID
	}
	return ""
}

// installed gates every envelope: one from a workspace the app is not
// installed in, or no longer (uninstalled, tokens revoked), is acked and
// dropped before anything reads or writes that team's data. Only the
// events that disable an installation pass. A failure to read the
// installation leaves the envelope unacked, so Slack delivers it again.
func (a *App) installed(ctx context.Context, evt *socketmode.Event) bool {
	team := teamOf(evt)
	if team == "" || !a.clients.Multi() {
		return true
	}
	if e, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
		switch e.InnerEvent.Type {
		case string(slackevents.AppUninstalled), string(slackevents.TokensRevoked):
			return true
		}
	}
	_, err := a.bot(ctx, team)
	switch {
	case err == nil:
		return true
	case errors.Is(err, install.ErrNotInstalled):
		a.log.Info().Str("team", team).Str("type", kindOf(evt)).Msg("envelope from a workspace without an active installation dropped")
		a.ack(evt)
	default:
		a.obs.EventRefused(kindOf(evt))
		a.log.Error().Err(err).Str("team", team).Msg("installation could not be read; envelope not acked, so Slack delivers it again")
	}
	return false
}

// onUninstalled disables a workspace's installation at once
// (app_uninstalled, or tokens_revoked for the bot): no more events are
// taken in and no more calls made for it. Its data is erased after
// MNEMO_RETENTION_UNINSTALLED, or at once with `mnemo teams erase`.
func (a *App) onUninstalled(ctx context.Context, evt *socketmode.Event) {
	e, _ := evt.Data.(slackevents.EventsAPIEvent)
	why := e.InnerEvent.Type
	if r, ok := e.InnerEvent.Data.(*slackevents.TokensRevokedEvent); ok && len(r.Tokens.Bot) == 0 {
		a.ack(evt) // a user token was revoked; the bot's still works
		return
	}
	log := a.log.With().Str("team", e.TeamID).Str("event", why).Logger()
	if !a.clients.Multi() {
		log.Error().Msg("the app was uninstalled or its token revoked in SLACK_BOT_TOKEN's workspace; mnemo can't answer there until it is installed again and the token replaced")
		a.ack(evt)
		return
	}
	if !slackID.MatchString(e.TeamID) {
		log.Error().Msg("uninstall event without a usable team id")
		a.ack(evt)
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), admitTimeout)
	defer cancel()
	was, err := a.db.Installations().Disable(wctx, e.TeamID, why)
	if err != nil {
		log.Error().Err(err).Msg("installation not disabled; envelope not acked, so Slack delivers it again")
		return
	}
	a.clients.Forget(e.TeamID)
	a.ack(evt)
	if was {
		log.Warn().Msg("installation disabled; the team's data is erased after MNEMO_RETENTION_UNINSTALLED, or by mnemo teams erase")
	}
}

// surfaceFor is a turn's surface in team, with that team's bot. A team
// without an active installation has none, and its turns can't be
// delivered (agent.ErrUndeliverable).
func (a *App) surfaceFor(ctx context.Context, team string) (*surface, error) {
	b, err := a.bot(ctx, team)
	if errors.Is(err, install.ErrNotInstalled) {
		return nil, fmt.Errorf("%w: %w", agent.ErrUndeliverable, err)
	}
	if err != nil {
		return nil, err
	}
	return &surface{a: a, bot: b}, nil
}
