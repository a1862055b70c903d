package slackapp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/memory"
)

// ShortcutInspect is the "Inspect" message shortcut's callback id
// (manifest.yaml).
const ShortcutInspect = "mnemo_inspect"

// inspect answers the Inspect shortcut: for an admin, the turn of the post
// or of mnemo's reply it was used on, shown to them alone. A recalled
// memory's text is shown only where the admin may see it in the turn's
// place, or through oversight (MNEMO_ADMIN_OVERSIGHT), which is audited.
func (a *App) inspect(ctx context.Context, cb slack.InteractionCallback) {
	// Under an org-wide installation the payload names no workspace: used
	// on mnemo's reply, the shortcut is for the reply's (pressMadeIn).
	team := interactionTeam(cb)
	if a.madeElsewhere(cb, team, cb.CallbackID) {
		return
	}
	channel, ts := cb.Channel.ID, cb.Message.Timestamp
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	if ts == "" {
		ts = cb.MessageTs
	}
	answer := func(r reply) { a.respond(ctx, team, cb.ResponseURL, channel, cb.User.ID, r) }
	// Nor does a post without mnemo's buttons (the asker's own) say one,
	// and the presser's own workspace (interactionTeam's last resort) may
	// not be the post's, whose admins and visibility rules apply: the
	// post's turn is found by its channel, in the workspace it was
	// recorded in.
	var t db.Turn
	var err error
	unnamed := cb.Team.ID == "" && pressMadeIn(cb) == ""
	if unnamed {
		if t, err = a.turnInChannel(ctx, cb.Enterprise.ID, channel, ts); err != nil {
			answer(noTurn(err))
			return
		}
		team = t.Place.Team
	}
	actor, err := a.dir.ActorFromEvent(ctx, team, cb.User.ID)
	if err != nil {
		a.log.Warn().Err(err).Msg("actor not enriched")
	}
	if !actor.IsAdmin {
		answer(notAdmin("inspect turns"))
		return
	}
	if !unnamed {
		t, err = a.db.Turns().Find(ctx, team, channel, ts)
		if errors.Is(err, db.ErrNotFound) {
			var id int64
			if id, err = a.db.Feedback().TurnOfReply(ctx, team, channel, ts); err == nil {
				t, err = a.db.Turns().Get(ctx, id)
			}
		}
		if err != nil {
			answer(noTurn(err))
			return
		}
	}
	v := memory.Viewer{Actor: actor, Place: t.Place, Private: true, Oversight: a.oversight}
	in, err := agent.Inspect(ctx, a.db, a.memory, agent.InspectRequest{TurnID: t.ID, Viewer: v, Prices: a.prices})
	if err != nil {
		answer(textReply("Couldn't read the turn: %v.", err))
		return
	}
	if in.Overseen > 0 {
		a.audit(ctx, actor, db.AuditInspect, strconv.FormatInt(t.ID, 10), fmt.Sprintf("Inspect shortcut: %d memories shown through oversight", in.Overseen))
	}
	answer(textReply("```\n%s```", codeBlock(in.Text)))
}

// noTurn is Inspect's answer when the turn could not be read.
func noTurn(err error) reply {
	if errors.Is(err, db.ErrNotFound) {
		return textReply("That message is not one mnemo answered, nor one of its replies.")
	}
	return textReply("Couldn't read the turn: %v.", err)
}

// turnInChannel is the turn of the message at ts in channel (the post it
// answers, or its reply's first message), in whichever workspace it was
// recorded: the one the post's event came through. Only turns of
// workspaces inside the interaction's organisation (enterprise, "" for
// none) are looked at: in a channel shared with another organisation its
// installation may have recorded a turn of the same post, which is not
// this interaction's to show, nor to count. ErrNotFound when none is.
func (a *App) turnInChannel(ctx context.Context, enterprise, channel, ts string) (db.Turn, error) {
	return a.db.Turns().ByMessageIn(ctx, channel, ts, func(t db.Turn) (bool, error) {
		b, err := a.bot(ctx, t.Place.Team)
		if errors.Is(err, install.ErrNotInstalled) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return b.Enterprise == enterprise || (enterprise != "" && b.Organisation == enterprise), nil
	})
}

// codeBlock is the inspection as it can sit inside a code block, where it
// quotes what people wrote (memories' text): a special mention in it
// (<!channel>) is shown, not sent, and a zero-width space after every
// backtick keeps a ``` in it from closing the block. The references the
// inspection makes itself (<@U…>, <#C…>) stay links.
func codeBlock(text string) string {
	return strings.NewReplacer("<!", "&lt;!", "`", "`\u200b").Replace(text)
}
