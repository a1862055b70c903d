package slackapp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

func (a *App) onInteractive(ctx context.Context, d *delivery) {
	a.ack(d)
	cb, ok := d.data.(slack.InteractionCallback)
	if ok && cb.Type == slack.InteractionTypeMessageAction && cb.CallbackID == ShortcutInspect {
		a.async(ctx, func(ctx context.Context) { a.inspect(ctx, cb) })
		return
	}
	if !ok || cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) == 0 {
		return
	}
	act := cb.ActionCallback.BlockActions[0]
	a.async(ctx, func(ctx context.Context) {
		// An org-wide installation's press names no workspace, and the
		// presser's own may not be the one the button acts in: a button
		// that acts on a workspace's data says where it was made.
		team := interactionTeam(cb)
		if a.madeElsewhere(cb, team, act.ActionID) {
			return
		}
		fromHome := cb.View.Type == slack.VTHomeTab
		// Buttons live on the App Home or on ephemeral answers: only the
		// actor sees what they show.
		place := provenance.Place{Team: team, Channel: cb.Channel.ID, Visibility: provenance.VisibilityOf("", cb.Channel.ID)}
		path := memory.PathSlash
		if fromHome {
			place.Channel, path = "", memory.PathHome // the Home tab is no channel
		}
		// In a Slack Connect channel the payload's team is the host's, and
		// an external member's buttons are theirs as their command was.
		actor, mustPlace, err := a.actorAt(ctx, team, place.Channel, cb.User.ID)
		if err != nil && mustPlace {
			a.log.Warn().Err(err).Msg("button pressed where another organisation's people can be, by a person users.info can't place; refused")
			a.respond(ctx, team, cb.ResponseURL, cb.Channel.ID, cb.User.ID, textReply("I can't tell which organisation you belong to right now; please try again in a moment."))
			return
		} else if err != nil {
			a.log.Warn().Err(err).Msg("actor not enriched")
		}
		v := memory.Viewer{Actor: actor, Place: place, Private: true}
		var r reply
		switch act.ActionID {
		case ActionForget:
			_, id := valueMadeIn(act.Value)
			if fromHome {
				a.forgetFromHome(ctx, actor, team, id)
				return
			}
			r = a.forget(ctx, v, id, path)
			r.replace = false
		case ActionPage:
			var st pageState
			if json.Unmarshal([]byte(act.Value), &st) != nil {
				return
			}
			st.Offset = pageOffset(st.Offset)
			if (st.User != actor.ID || st.Channel != "") && !actor.IsAdmin {
				r = textReply("Only an admin can page through someone else's memories.")
				break
			}
			v.Oversight = st.User != actor.ID
			r = a.memoriesPage(ctx, v, memory.Filter{Team: memory.HomeOf(actor, place).Team, SubjectUser: st.User, Channel: st.Channel, Query: st.Query}, st.Offset)
		case ActionHomePage:
			_, value := valueMadeIn(act.Value)
			page, _ := strconv.Atoi(value) // not a number: the first page
			a.publishHome(ctx, team, actor.ID, page)
			return
		case ActionPurgeConfirm, ActionPurgeKeepShared:
			_, user := valueMadeIn(act.Value)
			r = a.erase(ctx, actor, team, user, act.ActionID == ActionPurgeKeepShared)
		case ActionFeedback:
			a.onFeedback(ctx, team, actor, cb, act)
			return
		case ActionPurgeCancel:
			r = reply{text: "Erasure cancelled; nothing was changed.", replace: true}
		default:
			return
		}
		if fromHome {
			return // the store's change hook republishes the Home tab
		}
		a.respond(ctx, team, cb.ResponseURL, cb.Channel.ID, cb.User.ID, r)
	})
}

// madeElsewhere says, and logs, that an interaction is refused: its
// payload names another workspace (team) than its button, or the reply it
// was used on, was made for. It would act where it was not asked.
func (a *App) madeElsewhere(cb slack.InteractionCallback, team, action string) bool {
	made := pressMadeIn(cb)
	if made == "" || made == team {
		return false
	}
	a.log.Warn().Str("team", team).Str("made_in", made).Str("action", action).Msg("button pressed in another workspace than it was made for; refused")
	return true
}

// madeIn is the workspace a button that acts on a workspace's data was
// made for, as its value carries it (a purge's confirmation, a Forget, a
// feedback verdict, a list's or the Home's pages), or "": buttons made
// before their values carried it.
func madeIn(act *slack.BlockAction) string {
	switch act.ActionID {
	case ActionPurgeConfirm, ActionPurgeKeepShared, ActionPurgeCancel, ActionForget, ActionFeedback, ActionHomePage:
		team, _ := valueMadeIn(act.Value)
		return team
	case ActionPage:
		var st pageState
		if json.Unmarshal([]byte(act.Value), &st) == nil {
			return st.Team
		}
	}
	return ""
}

// madeValue is a button's value v made in team, "T…/v", as valueMadeIn
// reads it back: under an org-wide installation Slack names no workspace
// when the button is pressed. Without a team it is v, as before.
// (A purge's buttons and a list's Next say their workspace always.)
func madeValue(team, v string) string {
	if team == "" {
		return v
	}
	return team + "/" + v
}

// valueMadeIn reads a button's value back (madeValue): the workspace it
// was made in and the value, or the value alone (buttons made before
// their values carried the workspace, and a workspace installation's).
func valueMadeIn(v string) (team, value string) {
	if t, rest, ok := strings.Cut(v, "/"); ok {
		return t, rest
	}
	return "", v
}

// madeFor is the workspace the buttons b posts say they were made for
// (madeValue): b's, under an org-wide installation, where Slack names no
// workspace when they are pressed; elsewhere "", and their values stay as
// they were.
func madeFor(b install.Bot) string {
	if b.Enterprise == "" {
		return ""
	}
	return b.Team
}
