package slackapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/provenance"
)

// ActionPurgeKeepShared erases a person but keeps the shared memories they
// wrote, attributed to a former member.
const ActionPurgeKeepShared = "mnemo_purge_keep_shared"

// ErasedBySlack is the actor of an erasure Slack asked for (a deleted
// account), in the memories' history.
const ErasedBySlack = "system:slack"

func (a *App) cmdPurge(ctx context.Context, c invocation) reply {
	user := firstUser(c.args)
	if user == "" {
		return textReply("Usage: `%s purge @user`.", a.command)
	}
	text := fmt.Sprintf("This erases <@%s> from mnemo: their DMs with mnemo, every memory about them, in every scope and state, their words in mnemo's conversation log, inbox, job queue and memory history, and what other people's answers quoted of their memories. "+
		"It can't be undone, and nothing erased can be restored. The shared memories they wrote can be deleted too, or kept for the team, attributed to a former member.", user)
	// The buttons carry the workspace the erasure is for: under an
	// org-wide installation, Slack names none when they are pressed.
	value := madeValue(c.viewer.Place.Team, user)
	confirm := slack.NewButtonBlockElement(ActionPurgeConfirm, value, plain("Erase, delete their shared memories"))
	confirm.Style = slack.StyleDanger
	keep := slack.NewButtonBlockElement(ActionPurgeKeepShared, value, plain("Erase, keep their shared memories"))
	keep.Style = slack.StyleDanger
	cancel := slack.NewButtonBlockElement(ActionPurgeCancel, value, plain("Cancel"))
	return reply{text: text, blocks: []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil), slack.NewActionBlock("mnemo_purge", confirm, keep, cancel)}}
}

// erase erases user for an admin who confirmed it, and answers with the
// receipt.
func (a *App) erase(ctx context.Context, actor provenance.Actor, team, user string, keepShared bool) reply {
	if !actor.IsAdmin {
		return textReply("Only an admin can erase someone.")
	}
	if !userRef.MatchString("<@" + user + ">") {
		return textReply("That is not a Slack user id: %q.", user)
	}
	// An external member of this workspace's Slack Connect channels keeps
	// their personal memories under their own team (memory.HomeOf): users.info
	// says which, and what this workspace's conversations stored there goes
	// too. Without an answer, the erasure is not done by halves.
	person, err := a.dir.ActorFromEvent(ctx, team, user)
	var gone slack.SlackErrorResponse
	if errors.As(err, &gone) && gone.Err == "user_not_found" {
		err = nil // Slack knows them no more: only this workspace's rows are theirs to erase here
		person.Team = team
	}
	if err != nil {
		a.log.Warn().Err(err).Msg("erasure: users.info failed")
		return textReply("Couldn't tell which workspace <@%s> belongs to (Slack's users.info failed), so nothing was erased; try again.", user)
	}
	home := ""
	if person.Team != team {
		home = person.Team
	}
	r, err := a.db.Erase(ctx, db.Erasure{Team: team, User: user, By: actor.ID, KeepShared: keepShared, Home: home})
	if err != nil {
		a.log.Error().Err(err).Msg("erasure failed")
		return textReply("Couldn't erase them, nothing was changed: %v.", err)
	}
	a.erased(ctx, actor, team, user, r)
	return reply{text: fmt.Sprintf("Erased <@%s>. Receipt, rows by table:\n%s", user, receiptText(r)), replace: true}
}

// erased records an erasure: in the admin record, which names the person
// nowhere, and on their App Home, which is emptied.
func (a *App) erased(ctx context.Context, actor provenance.Actor, team, user string, r db.Receipt) {
	a.audit(ctx, actor, "erase", "", strings.ReplaceAll(receiptText(r), "\n", "; "))
	a.queueHome(team, user)
}

// receiptText is a receipt as a list, one table a line.
func receiptText(r db.Receipt) string {
	var order []string
	by := map[string][]string{}
	for _, l := range r {
		if _, ok := by[l.Table]; !ok {
			order = append(order, l.Table)
		}
		by[l.Table] = append(by[l.Table], fmt.Sprintf("%d %s", l.Rows, l.Action))
	}
	var b strings.Builder
	for i, t := range order {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "• %s: %s", t, strings.Join(by[t], ", "))
	}
	return b.String()
}

// onUserChange erases a member whose account Slack deleted, when the
// workspace enabled it (MNEMO_ERASE_DELETED_USERS). The erasure runs after
// the ack; it is one transaction, and doing it again is harmless, so an
// admin can repeat it with /mnemo purge if it failed (the log says so).
func (a *App) onUserChange(ctx context.Context, d *delivery) {
	defer a.ack(d) // after the decision, so what was decided is logged by the ack
	e, _ := d.data.(slackevents.EventsAPIEvent)
	u, ok := e.InnerEvent.Data.(*slackevents.UserChangeEvent)
	if !ok || !u.User.Deleted {
		return
	}
	team := u.User.TeamID
	if team == "" {
		team = e.TeamID
	}
	log := a.log.With().Str("user", u.User.ID).Logger()
	if !a.eraseDeleted {
		log.Info().Msg("member's account deleted; not erased (MNEMO_ERASE_DELETED_USERS is off)")
		return
	}
	if !slackID.MatchString(team) || !userRef.MatchString("<@"+u.User.ID+">") {
		log.Error().Str("team", team).Msg("user_change without a usable team or user id; nobody erased")
		return
	}
	// Under their own team, as always; and where the event came for, when
	// that is another workspace: an external member of its Slack Connect
	// channels (or a Grid member of another of the organisation's
	// workspaces), erased there as /mnemo purge does, with the memories its
	// conversations kept under their team (Erasure.Home).
	erasures := []db.Erasure{{Team: team, User: u.User.ID, By: ErasedBySlack}}
	if e.TeamID != "" && team != e.TeamID && slackID.MatchString(e.TeamID) {
		erasures = append(erasures, db.Erasure{Team: e.TeamID, User: u.User.ID, By: ErasedBySlack, Home: team})
	}
	a.async(ctx, func(ctx context.Context) {
		for _, x := range erasures {
			log := log.With().Str("team", x.Team).Logger()
			ctx, cancel := context.WithTimeout(ctx, eraseTimeout)
			r, err := a.db.Erase(ctx, x)
			if err != nil {
				cancel()
				log.Error().Err(err).Msg("erasing a deleted member failed; run /mnemo purge for them")
				continue
			}
			a.erased(ctx, provenance.Actor{Kind: provenance.KindSystem, Team: x.Team, ID: ErasedBySlack}, x.Team, u.User.ID, r)
			cancel()
			log.Info().Int64("rows", r.Total()).Msg("deleted member erased")
		}
	})
}

// eraseTimeout bounds one erasure.
const eraseTimeout = 2 * time.Minute

// actorRef names who made a change, for people: an erased actor is a
// former member.
func actorRef(id string) string {
	if id == "" {
		return db.FormerMember
	}
	return "<@" + id + ">"
}
