package slackapp

import (
	"context"
	"errors"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// homeRequest asks for someone's App Home to be published again.
type homeRequest struct{ team, user string }

// homeQueueSize bounds the republish requests waiting for the publisher:
// one a person, since a person's requests are merged (queueHome). Past it
// a request is dropped (the Home is republished when next opened).
const homeQueueSize = 256

// queueHome asks the publisher to republish a person's Home, unless it is
// queued already (homeQueued): that publish reads their memories when it
// runs, so it shows this change too, and a burst of writes about one
// person (passive learning) publishes once and does not fill the queue.
// It never blocks: the memory store calls it after writes.
func (a *App) queueHome(team, user string) {
	r := homeRequest{team, user}
	if _, queued := a.homeQueued.LoadOrStore(r, struct{}{}); queued {
		return
	}
	select {
	case a.homeQueue <- r:
	default:
		a.homeQueued.Delete(r)
		a.log.Warn().Str("user", user).Msg("home republish queue full; dropped")
	}
}

// homeTaken says the publisher took r from the queue, before it reads
// anything: a change from now on queues the Home again.
func (a *App) homeTaken(r homeRequest) { a.homeQueued.Delete(r) }

// publishHomes republishes queued App Homes until ctx ends. It starts with
// the app, so a change made before Run is published once Run starts.
func (a *App) publishHomes(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-a.homeQueue:
			a.homeTaken(r)
			pctx, cancel := context.WithTimeout(ctx, asyncTimeout)
			a.publishHome(pctx, r.team, r.user, 0)
			cancel()
		}
	}
}

func (a *App) onAppHomeOpened(ctx context.Context, d *delivery) {
	a.ack(d)
	e, _ := d.data.(slackevents.EventsAPIEvent)
	h, ok := e.InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if !ok || h.Tab != "home" {
		return
	}
	a.homes.Store(e.TeamID+"/"+h.User, h.Channel)
	a.async(ctx, func(ctx context.Context) { a.publishHome(ctx, e.TeamID, h.User, 0) })
}

// publishHome renders and publishes the Home tab for user, at page (see
// homePage). The Home is seen by its owner alone, so the viewer is
// private.
func (a *App) publishHome(ctx context.Context, team, user string, page int) {
	a.publishHomeNotice(ctx, team, user, page, "")
}

// publishHomeNotice is publishHome, saying notice at the top.
func (a *App) publishHomeNotice(ctx context.Context, team, user string, page int, notice string) {
	// A person of another organisation can open the App Home through Slack
	// Connect: users.info places them, and their Home lists their own
	// team's memories (memory.HomeOf), as their turns keep them. When it
	// can't, the Home still lists only memories about them or by them.
	actor, err := a.dir.ActorFromEvent(ctx, team, user)
	if err != nil {
		a.log.Warn().Err(err).Msg("home: actor not enriched")
	}
	v := memory.Viewer{Actor: actor, Place: provenance.Place{Team: team}, Private: true}
	h := Home{LearningHere: true, Notice: notice}
	h.Offset, h.SharedOffset = homePage(page)
	if h.Personal, err = a.memory.Mine(ctx, v, memory.MineQuery{Limit: HomePageSize + 1, Offset: h.Offset}); err != nil {
		a.log.Error().Err(err).Msg("home: list")
		return
	}
	if h.Offset == 0 { // the shared memories are shown with the first personal page
		if h.Shared, err = a.memory.Mine(ctx, v, memory.MineQuery{Authored: true, Limit: HomePageSize + 1, Offset: h.SharedOffset}); err != nil {
			a.log.Error().Err(err).Msg("home: list shared")
			return
		}
	}
	if h.Total, err = a.memory.CountPersonal(ctx, memory.HomeOf(actor, v.Place).Team, user); err != nil {
		a.log.Error().Err(err).Msg("home: count")
		return
	}
	if h.LearningMe, err = a.db.Settings().UserLearningEnabled(ctx, team, user); err != nil {
		a.log.Error().Err(err).Msg("home: learning setting")
		return
	}
	if ch, ok := a.homes.Load(team + "/" + user); ok && ch.(string) != "" {
		if on, err := a.db.Settings().LearningEnabled(ctx, team, ch.(string)); err == nil {
			h.LearningHere = on
		}
	}
	b, err := a.bot(ctx, team)
	if err != nil {
		a.log.Warn().Err(err).Msg("home: no bot for the team")
		return
	}
	h.Team = madeFor(b)
	view := HomeView(h, time.Now())
	err = a.call(ctx, a.budget, "views.publish", func(ctx context.Context) error {
		_, err := b.API.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: view})
		return err
	})
	if err != nil {
		a.log.Error().Err(err).Msg("home: views.publish")
	}
}

// forgetFromHome runs the Forget button of the App Home, which lists the
// person's personal memories and the shared ones they wrote. It has the
// authorization of `/mnemo forget` (memory.Store.ForgetMine): a shared
// memory is judged from the place it belongs to. The Home is published
// again, so it shows what is now true; one that forgot nothing says why at
// its top (a Home button has no response URL to answer).
func (a *App) forgetFromHome(ctx context.Context, actor provenance.Actor, team, id string) {
	v := memory.Viewer{Actor: actor, Place: provenance.Place{Team: team}, Private: true, Oversight: actor.IsAdmin}
	out, err := a.memory.ForgetMine(ctx, v, id, "forgotten from the App Home", memory.PathHome)
	var notice string
	switch {
	case errors.Is(err, memory.ErrNotFound):
		a.log.Info().Err(err).Str("user", actor.ID).Msg("home: forget failed")
		notice = "mnemo didn't forget that memory: it is no longer there, or no longer yours to see."
	case err != nil:
		a.log.Warn().Err(err).Str("user", actor.ID).Msg("home: forget failed")
		notice = "mnemo couldn't forget that memory just now; please try again."
	case out.Refusal != "":
		a.log.Info().Str("user", actor.ID).Str("refusal", out.Refusal).Msg("home: forget refused")
		notice = "mnemo didn't forget that memory: " + out.Refusal + "."
	default:
		m := out.Forgotten
		if actor.ID != m.SubjectID || m.Scope != memory.ScopePersonal {
			a.audit(ctx, actor, "forget", m.ID.String(), string(m.Scope)+" memory, from the App Home")
		}
		if m.Scope == memory.ScopePersonal {
			return // the store's change hook republishes the Home
		}
	}
	a.publishHomeNotice(ctx, team, actor.ID, 0, notice)
}
