package slackapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
)

// teamOf is the workspace a delivery comes from, by either transport, or
// "" for one of no workspace.
func teamOf(dv *delivery) string {
	switch d := dv.data.(type) {
	case slackevents.EventsAPIEvent:
		return d.TeamID
	case slack.SlashCommand:
		return d.TeamID
	case slack.InteractionCallback:
		return interactionTeam(d)
	}
	return ""
}

// interactionTeam is the workspace a button press or shortcut is for: the
// payload's team; else (an org-wide installation sends none) the one its
// button, or the reply it was used on, was made for, when that says
// (pressMadeIn); else the presser's own workspace, as Bolt reads it.
func interactionTeam(cb slack.InteractionCallback) string {
	if cb.Team.ID != "" {
		return cb.Team.ID
	}
	if made := pressMadeIn(cb); made != "" {
		return made
	}
	return cb.User.TeamID
}

// pressMadeIn is the workspace an interaction was made for, as far as it
// says: madeIn of a press's first action; for a message shortcut, the
// workspace of the app's reply it was used on (replyMadeIn); else "".
func pressMadeIn(cb slack.InteractionCallback) string {
	if len(cb.ActionCallback.BlockActions) > 0 {
		return madeIn(cb.ActionCallback.BlockActions[0])
	}
	if cb.Type == slack.InteractionTypeMessageAction {
		return replyMadeIn(cb.Message, cb.APIAppID)
	}
	return ""
}

// interactionEnterprise is the organisation an interaction is looked up
// under: the payload's, unless its workspace is only the presser's own
// (interactionTeam's last resort). That one may be another organisation's
// (an external member in a Slack Connect channel), and a lookup naming the
// host's organisation for it would record it as the host's: it is looked
// up by the workspace alone, and served only if it is known already.
func interactionEnterprise(cb slack.InteractionCallback) string {
	if cb.Team.ID == "" && pressMadeIn(cb) == "" {
		return ""
	}
	return cb.Enterprise.ID
}

// envelopeContext is what an Events API envelope says of the installation
// it reaches the app through, beside its authorizations: the workspace
// (context_team_id) and the organisation (context_enterprise_id) "through
// which the app receives this event". slack-go's envelope type does not
// carry them, so each transport reads them from the raw payload.
type envelopeContext struct {
	Team       string `json:"context_team_id"`
	Enterprise string `json:"context_enterprise_id"`
}

// routeOf is the workspace an event is for and the organisation of the
// installation that serves it, as Bolt routes an event: by its
// authorizations (the installation Slack delivered it for) over the
// envelope's team_id and enterprise_id, which in a Slack Connect channel
// can be the speaker's own workspace and organisation. An org-wide
// installation's authorization names no workspace: the workspace is then
// the one the event reached the app through (context_team_id), else the
// envelope's. dispatch routes every event by it, and installed looks the
// installation up by both: an external member's workspace is never
// recorded as one the organisation serves, nor another organisation's
// installation found for the host's workspace.
func routeOf(e slackevents.EventsAPIEvent, c envelopeContext) (team, enterprise string) {
	team, enterprise = e.TeamID, e.EnterpriseID
	// A workspace's id starts with T (an organisation's with E): anything
	// else in context_team_id is no workspace to serve.
	if strings.HasPrefix(c.Team, "T") {
		team = c.Team
	}
	if c.Enterprise != "" {
		enterprise = c.Enterprise
	}
	cb, ok := e.Data.(*slackevents.EventsAPICallbackEvent)
	if !ok || cb == nil || len(cb.Authorizations) == 0 {
		return team, enterprise
	}
	a := cb.Authorizations[0]
	if a.TeamID != "" && !a.IsEnterpriseInstall {
		team = a.TeamID
	}
	return team, a.EnterpriseID
}

// enterpriseOf is the Enterprise Grid organisation a delivery's workspace
// belongs to, or "".
func enterpriseOf(dv *delivery) string {
	switch d := dv.data.(type) {
	case slackevents.EventsAPIEvent:
		return d.EnterpriseID
	case slack.SlashCommand:
		return d.EnterpriseID
	case slack.InteractionCallback:
		return interactionEnterprise(d)
	}
	return ""
}

// installed gates every delivery, Socket Mode's and HTTP's alike (dispatch
// calls it): one from a workspace the app is not installed in, or no
// longer (uninstalled, tokens revoked), is acked and dropped before
// anything reads or writes that team's data. Only the events that disable
// an installation, or change which workspaces an organisation's serves,
// pass. A failure to read the installation leaves the delivery unacked, so
// Slack delivers it again.
func (a *App) installed(ctx context.Context, d *delivery) bool {
	team := teamOf(d)
	if team == "" || !a.clients.Multi() {
		return true
	}
	if e, ok := d.data.(slackevents.EventsAPIEvent); ok {
		switch e.InnerEvent.Type {
		case string(slackevents.AppUninstalled), string(slackevents.TokensRevoked),
			// About an organisation's installation: the workspace the
			// envelope names may be the one it no longer serves.
			string(slackevents.TeamAccessRevoked), string(slackevents.TeamAccessGranted):
			return true
		}
	}
	// A workspace of an organisation that installed mnemo org-wide is
	// served by that installation; the tenant is still the workspace.
	_, err := a.clients.BotIn(ctx, team, enterpriseOf(d))
	switch {
	case err == nil:
		return true
	case errors.Is(err, install.ErrNotInstalled):
		a.log.Info().Str("team", team).Str("type", d.kind).Msg("delivery from a workspace without an active installation dropped")
		a.ack(d)
	default:
		a.obs.EventRefused(d.kind)
		a.log.Error().Err(err).Str("team", team).Str("envelope_id", d.id).Msg("installation could not be read; delivery not acked, so Slack delivers it again")
	}
	return false
}

// onUninstalled disables a workspace's installation at once
// (app_uninstalled, or tokens_revoked for the bot): no more events are
// taken in and no more calls made for it. Its data is erased after
// MNEMO_RETENTION_UNINSTALLED, or at once with `mnemo teams erase`. An
// event is taken in once (by its event_id), and never disables an
// installation made after it was sent: Slack's late retry of an old
// uninstall leaves a reinstalled workspace answering.
func (a *App) onUninstalled(ctx context.Context, d *delivery) {
	e, _ := d.data.(slackevents.EventsAPIEvent)
	why := e.InnerEvent.Type
	if r, ok := e.InnerEvent.Data.(*slackevents.TokensRevokedEvent); ok && len(r.Tokens.Bot) == 0 {
		a.ack(d) // a user token was revoked; the bot's still works
		return
	}
	log := a.log.With().Str("team", e.TeamID).Str("event", why).Logger()
	if !a.clients.Multi() {
		log.Error().Msg("the app was uninstalled or its token revoked in SLACK_BOT_TOKEN's workspace; mnemo can't answer there until it is installed again and the token replaced")
		a.ack(d)
		return
	}
	cb, _ := e.Data.(*slackevents.EventsAPICallbackEvent)
	if cb == nil || cb.EventID == "" || cb.EventTime <= 0 {
		log.Error().Msg("uninstall event without its event id or time; ignored")
		a.ack(d)
		return
	}
	u := db.Uninstall{Team: e.TeamID, Why: why, EventID: cb.EventID, Sent: time.Unix(int64(cb.EventTime), 0)}
	if len(cb.Authorizations) > 0 && cb.Authorizations[0].IsEnterpriseInstall {
		// The organisation's org-wide installation: every workspace it
		// serves stops with it.
		u.Team, u.Enterprise = "", cb.Authorizations[0].EnterpriseID
		log = log.With().Str("enterprise", u.Enterprise).Logger()
	}
	if !slackID.MatchString(u.Team + u.Enterprise) {
		log.Error().Msg("uninstall event without a usable team or enterprise id")
		a.ack(d)
		return
	}
	wctx, cancel := a.admission(ctx, d) // one budget from arrival, as a post's
	defer cancel()
	did, err := a.db.Installations().Disable(wctx, u)
	if err != nil {
		log.Error().Err(err).Msg("installation not disabled; delivery not acked, so Slack delivers it again")
		return
	}
	a.clients.Forget(u.Team) // "" for an organisation: every team's
	a.ack(d)
	log = log.With().Str("event_id", u.EventID).Int("retry_attempt", d.retry).Logger()
	switch {
	case did.Duplicate:
		log.Info().Msg("uninstall event already taken in; the retry is ignored")
	case did.Disabled:
		log.Warn().Msg("installation disabled; the team's data is erased after MNEMO_RETENTION_UNINSTALLED, or by mnemo teams erase")
	case did.Newer:
		log.Warn().Time("event_time", u.Sent).Msg("uninstall event older than the active installation; ignored")
	}
}

// onTeamAccess takes in team_access_revoked and team_access_granted: an
// org admin removed the organisation's org-wide installation from some of
// its workspaces, or added it again. A workspace removed is served no
// more: its events are dropped, no call is made for it with the
// organisation's token, and its data is erased after
// MNEMO_RETENTION_UNINSTALLED, as an uninstalled workspace's is. One added
// again is served again. Like an uninstall, an event is taken in once (by
// its event_id), and never undoes a newer one.
//
// The rule for a tie: event_time has whole seconds, and Slack does not
// promise delivery order, so of a removal and an addition sent in the same
// second neither is taken as the last by arrival. The workspace stops
// being served at once (the safe side: nothing is read or written for it
// meanwhile), and after the ack Slack is asked (settleTie) whether the
// organisation's installation is on it now, which is what the last of the
// two did: if it is, the addition wins, and it is served again. If Slack
// can't say, it stays removed, and the log says so: the org admin's next
// change for it settles it, as does re-adding the app to it.
func (a *App) onTeamAccess(ctx context.Context, d *delivery) {
	e, _ := d.data.(slackevents.EventsAPIEvent)
	why := e.InnerEvent.Type
	log := a.log.With().Str("event", why).Str("enterprise", e.EnterpriseID).Logger()
	var teams []string
	switch ev := e.InnerEvent.Data.(type) {
	case *slackevents.TeamAccessRevokedEvent:
		teams = ev.TeamIDs
	case *slackevents.TeamAccessGrantedEvent:
		teams = ev.TeamIDs
	}
	if !a.clients.Multi() {
		// SLACK_BOT_TOKEN is one workspace's token: no organisation's
		// installation serves anything here.
		log.Warn().Strs("teams", teams).Msg("org-wide access changed, but mnemo serves SLACK_BOT_TOKEN's workspace alone; ignored")
		a.ack(d)
		return
	}
	cb, _ := e.Data.(*slackevents.EventsAPICallbackEvent)
	if cb == nil || cb.EventID == "" || cb.EventTime <= 0 {
		log.Error().Msg("team access event without its event id or time; ignored")
		a.ack(d)
		return
	}
	valid := make([]string, 0, len(teams))
	for _, t := range teams {
		if slackID.MatchString(t) {
			valid = append(valid, t)
		}
	}
	if !slackID.MatchString(e.EnterpriseID) || len(valid) == 0 {
		log.Error().Int("teams", len(teams)).Msg("team access event without a usable enterprise or team id; ignored")
		a.ack(d)
		return
	}
	if len(valid) < len(teams) {
		log.Warn().Int("unusable", len(teams)-len(valid)).Msg("team access event names team ids that are not Slack ids; those are ignored")
	}
	change := db.TeamAccess{Enterprise: e.EnterpriseID, Teams: valid, Revoked: why == string(slackevents.TeamAccessRevoked),
		EventID: cb.EventID, Sent: time.Unix(int64(cb.EventTime), 0)}
	wctx, cancel := a.admission(ctx, d) // one budget from arrival, as a post's
	defer cancel()
	did, err := a.db.Installations().ChangeTeamAccess(wctx, change)
	if err != nil {
		log.Error().Err(err).Msg("team access not changed; delivery not acked, so Slack delivers it again")
		return
	}
	for _, t := range valid {
		a.clients.Forget(t)
	}
	a.ack(d)
	log = log.With().Strs("teams", valid).Str("event_id", change.EventID).Int("retry_attempt", d.retry).Logger()
	switch {
	case did.Duplicate:
		log.Info().Msg("team access event already taken in; the retry is ignored")
	case change.Revoked:
		log.Warn().Int("changed", did.Changed).Int("newer", did.Newer).Msg("the organisation's installation no longer serves these workspaces; their data is erased after MNEMO_RETENTION_UNINSTALLED, or by mnemo teams erase")
	case len(did.Tied) > 0:
		// Those tied are held removed (below): not said to be served.
		log.Info().Int("changed", did.Changed).Int("newer", did.Newer).Strs("except_tied", did.Tied).Msg("the organisation's installation serves these workspaces again, but for those tied")
	default:
		log.Info().Int("changed", did.Changed).Int("newer", did.Newer).Msg("the organisation's installation serves these workspaces again")
	}
	if len(did.Tied) > 0 {
		log.Warn().Strs("tied", did.Tied).Msg("workspaces removed and added again in the same second: not served until Slack says which came last")
		a.async(ctx, func(ctx context.Context) { a.settleTie(ctx, change.Enterprise, did.Tied, change.Sent, log) })
	}
}

// teamsListTimeout bounds asking Slack which workspaces an organisation's
// installation is on (auth.teams.list, every page).
const teamsListTimeout = 15 * time.Second

// settleTie records which of a same-second removal and addition came last
// for the tied workspaces (see onTeamAccess): the addition, where Slack
// lists the workspace among those the organisation's installation is on
// (auth.teams.list with its token); else the removal. It runs after the
// ack, in no transaction: the database is written once Slack answered.
func (a *App) settleTie(ctx context.Context, enterprise string, tied []string, sent time.Time, log zerolog.Logger) {
	on, err := a.orgWorkspaces(ctx, enterprise)
	if errors.Is(err, install.ErrNotInstalled) {
		log.Info().Err(err).Strs("tied", tied).Msg("the organisation's installation is disabled or gone, so it serves none of these workspaces; nothing to settle")
		return
	}
	if err != nil {
		log.Error().Err(err).Strs("tied", tied).Msg("Slack could not say whether the organisation's installation is on these workspaces; they stay removed until the org admin's next change for them")
		return
	}
	var served []string
	for _, t := range tied {
		if on[t] {
			served = append(served, t)
		}
	}
	settled, err := a.db.Installations().SettleTeamAccess(ctx, enterprise, tied, served, sent)
	if err != nil {
		log.Error().Err(err).Strs("tied", tied).Msg("Slack's answer to a same-second removal and addition was not recorded; the workspaces stay removed")
		return
	}
	for _, t := range tied {
		a.clients.Forget(t)
		l := log.With().Str("team", t).Logger()
		switch is, ok := settled[t]; {
		case !ok:
			l.Info().Msg("same-second removal and addition: a later event has changed the workspace since; left as it left it")
		case is:
			l.Info().Msg("same-second removal and addition: Slack lists the workspace, so the addition came last; served again")
		default:
			l.Warn().Msg("same-second removal and addition: Slack does not list the workspace, so the removal came last; no longer served")
		}
	}
}

// orgWorkspaces asks Slack which workspaces an organisation's org-wide
// installation is on now (auth.teams.list with its token), within
// teamsListTimeout.
func (a *App) orgWorkspaces(ctx context.Context, enterprise string) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(ctx, teamsListTimeout)
	defer cancel()
	b, err := a.clients.Organisation(ctx, enterprise)
	if err != nil {
		return nil, err
	}
	on := map[string]bool{}
	cursor := ""
	for {
		teams, next, err := b.API.ListTeamsContext(ctx, slack.ListTeamsParameters{Limit: 1000, Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("auth.teams.list: %w", err)
		}
		for _, t := range teams {
			on[t.ID] = true
		}
		if next == "" {
			return on, nil
		}
		cursor = next
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
