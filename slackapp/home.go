package slackapp

import (
	"context"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// homeRequest asks for someone's App Home to be published again.
type homeRequest struct{ team, user string }

// homeQueueSize bounds the republish requests waiting for the publisher;
// past it a request is dropped (the Home is republished when next opened).
const homeQueueSize = 256

// queueHome asks the publisher to republish a person's Home. It never
// blocks: the memory store calls it from inside writes.
func (a *App) queueHome(team, user string) {
	select {
	case a.homeQueue <- homeRequest{team, user}:
	default:
		a.log.Warn().Str("user", user).Msg("home republish queue full; dropped")
	}
}

// publishHomes republishes queued App Homes until ctx ends. It starts with
// the app, so a change made before Run is published once Run starts.
func (a *App) publishHomes(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-a.homeQueue:
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

// publishHome renders and publishes the Home tab for user. The Home is
// seen by its owner alone, so the viewer is private.
func (a *App) publishHome(ctx context.Context, team, user string, offset int) {
	v := memory.Viewer{Actor: provenance.Actor{Kind: provenance.KindUser, Team: team, ID: user}, Place: provenance.Place{Team: team}, Private: true}
	h := Home{Offset: offset, LearningHere: true}
	var err error
	if h.Personal, err = a.memory.Mine(ctx, v, memory.MineQuery{Limit: HomePageSize + 1, Offset: offset}); err != nil {
		a.log.Error().Err(err).Msg("home: list")
		return
	}
	if h.Shared, err = a.memory.Mine(ctx, v, memory.MineQuery{Authored: true, Limit: HomePageSize}); err != nil {
		a.log.Error().Err(err).Msg("home: list shared")
		return
	}
	if h.Total, err = a.memory.CountPersonal(ctx, team, user); err != nil {
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
	if _, err := b.API.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: HomeView(h, time.Now())}); err != nil {
		a.log.Error().Err(err).Msg("home: views.publish")
	}
}

// forgetFromHome runs the Forget button of the App Home, which lists the
// person's personal memories and the shared ones they wrote. It has the
// authorization of `/mnemo forget` (memory.Store.ForgetMine): a shared
// memory is judged from the place it belongs to. The Home is published
// again, so it shows what is now true; a refusal is logged, since the Home
// has nowhere to answer.
func (a *App) forgetFromHome(ctx context.Context, actor provenance.Actor, team, id string) {
	v := memory.Viewer{Actor: actor, Place: provenance.Place{Team: team}, Private: true, Oversight: actor.IsAdmin}
	out, err := a.memory.ForgetMine(ctx, v, id, "forgotten from the App Home", memory.PathHome)
	switch {
	case err != nil:
		a.log.Info().Err(err).Str("user", actor.ID).Msg("home: forget failed")
	case out.Refusal != "":
		a.log.Info().Str("user", actor.ID).Str("refusal", out.Refusal).Msg("home: forget refused")
	default:
		m := out.Forgotten
		if actor.ID != m.SubjectID || m.Scope != memory.ScopePersonal {
			a.audit(ctx, actor, "forget", m.ID.String(), string(m.Scope)+" memory, from the App Home")
		}
		if m.Scope == memory.ScopePersonal {
			return // the store's change hook republishes the Home
		}
	}
	a.publishHome(ctx, team, actor.ID, 0)
}
