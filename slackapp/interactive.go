package slackapp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/slack-go/slack"

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
		if made := madeIn(act); made != "" && made != team {
			a.log.Warn().Str("team", team).Str("made_in", made).Str("action", act.ActionID).Msg("button pressed in another workspace than it was made for; refused")
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
		actor, shared, err := a.actorAt(ctx, team, place.Channel, cb.User.ID)
		if err != nil && shared {
			a.log.Warn().Err(err).Msg("button pressed in a shared channel by a person users.info can't place; refused")
			a.respond(ctx, team, cb.ResponseURL, cb.Channel.ID, cb.User.ID, textReply("I can't tell which organisation you belong to right now; please try again in a moment."))
			return
		} else if err != nil {
			a.log.Warn().Err(err).Msg("actor not enriched")
		}
		v := memory.Viewer{Actor: actor, Place: place, Private: true}
		var r reply
		switch act.ActionID {
		case ActionForget:
			if fromHome {
				a.forgetFromHome(ctx, actor, team, act.Value)
				return
			}
			r = a.forget(ctx, v, act.Value, path)
			r.replace = false
		case ActionPage:
			var st pageState
			if json.Unmarshal([]byte(act.Value), &st) != nil {
				return
			}
			if (st.User != actor.ID || st.Channel != "") && !actor.IsAdmin {
				r = textReply("Only an admin can page through someone else's memories.")
				break
			}
			v.Oversight = st.User != actor.ID
			r = a.memoriesPage(ctx, v, memory.Filter{Team: memory.HomeOf(actor, place).Team, SubjectUser: st.User, Channel: st.Channel, Query: st.Query}, st.Offset)
		case ActionHomePage:
			var offset int
			fmt.Sscan(act.Value, &offset)
			a.publishHome(ctx, team, actor.ID, offset)
			return
		case ActionPurgeConfirm, ActionPurgeKeepShared:
			_, user := purgeValue(act.Value)
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

// madeIn is the workspace a button that acts on a workspace's data was
// made for, as its value carries it (a purge's confirmation, a list's
// next page), or "": buttons made before their values carried it, and
// the others.
func madeIn(act *slack.BlockAction) string {
	switch act.ActionID {
	case ActionPurgeConfirm, ActionPurgeKeepShared, ActionPurgeCancel:
		team, _ := purgeValue(act.Value)
		return team
	case ActionPage:
		var st pageState
		if json.Unmarshal([]byte(act.Value), &st) == nil {
			return st.Team
		}
	}
	return ""
}
