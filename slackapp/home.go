package slackapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// homeRequest asks for someone's App Home to be published again.
type homeRequest struct{ team, user string }

// maxHomes bounds the App Homes whose DM channel is kept (for the learning
// setting of the channel the Home shows): the least recently opened is
// forgotten, and found again with conversations.open (homeDM).
const maxHomes = 50000

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
			a.republishHome(pctx, r)
			cancel()
		}
	}
}

// republishHome publishes r's Home where its person sees it. r names the
// team their memories are kept under: a person of another organisation's
// own (memory.HomeOf), where the app may not be installed. They see the
// Home of the installation that served them (Directory.hostOf), so it is
// published there, and through their own organisation's installation as
// well when it has one.
func (a *App) republishHome(ctx context.Context, r homeRequest) {
	host, ok := a.dir.hostOf(r.team, r.user)
	if !ok {
		a.publishHome(ctx, r.team, r.user, 0)
		return
	}
	a.publishHome(ctx, host, r.user, 0)
	if b, err := a.bot(ctx, r.team); err == nil && b.Team == r.team {
		a.publishHome(ctx, r.team, r.user, 0)
	}
}

func (a *App) onAppHomeOpened(ctx context.Context, d *delivery) {
	a.ack(d)
	e, _ := d.data.(slackevents.EventsAPIEvent)
	h, ok := e.InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if !ok || h.Tab != "home" {
		return
	}
	a.homes.Add(e.TeamID+"/"+h.User, h.Channel)
	a.async(ctx, func(ctx context.Context) { a.publishHome(ctx, e.TeamID, h.User, 0) })
}

// publishHome renders and publishes the Home tab for user, at page (see
// homePage). The Home is seen by its owner alone, so the viewer is
// private.
func (a *App) publishHome(ctx context.Context, team, user string, page int) {
	a.publishHomeNotice(ctx, team, user, page, "")
}

// homeUnplaced is what the Home says when users.info could not place its
// viewer.
const homeUnplaced = "mnemo couldn't load your memories just now; please open this tab again in a moment."

// homeNoSettings is what the Home says when a learning setting could not
// be read: it shows that one as unknown, rather than a wrong one.
const homeNoSettings = "mnemo couldn't read your learning settings just now; please open this tab again in a moment."

// publishHomeNotice is publishHome, saying notice at the top.
func (a *App) publishHomeNotice(ctx context.Context, team, user string, page int, notice string) {
	// A person of another organisation can open the App Home through Slack
	// Connect: users.info places them, and their Home lists their own
	// team's memories (memory.HomeOf), as their turns keep them. When it
	// can't, whose member they are is not known, and, as resolve refuses
	// their turn (mustPlace), the Home lists nothing and says so: taken
	// for the host's member, they would see the host's memories of them.
	actor, err := a.dir.ActorFromEvent(ctx, team, user)
	if err != nil {
		a.log.Warn().Err(err).Str("user", user).Msg("home: the person could not be placed; no memories shown")
		a.publishView(ctx, team, user, func(install.Bot) slack.HomeTabViewRequest { return noticeHomeView(homeUnplaced) })
		return
	}
	v := memory.Viewer{Actor: actor, Place: provenance.Place{Team: team}, Private: true}
	h := Home{Notice: notice}
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
	// A setting that can't be read (conversations.open refuses a
	// deactivated person for good) hides only itself: the memories are
	// listed all the same, the Home says it could not read it.
	if h.LearningMe, h.LearningHere, err = a.homeLearning(ctx, team, user); err != nil {
		a.log.Error().Err(err).Str("user", user).Msg("home: learning settings; the Home says it could not read them")
		h.Notice = strings.TrimSpace(h.Notice + " " + homeNoSettings)
	}
	a.publishView(ctx, team, user, func(b install.Bot) slack.HomeTabViewRequest {
		h.Team = madeFor(b)
		return HomeView(h, time.Now())
	})
}

// publishView publishes user's Home through team's bot, as view makes it
// for that bot.
func (a *App) publishView(ctx context.Context, team, user string, view func(install.Bot) slack.HomeTabViewRequest) {
	b, err := a.bot(ctx, team)
	if err != nil {
		a.log.Warn().Err(err).Msg("home: no bot for the team")
		return
	}
	v := view(b)
	err = a.call(ctx, a.budget, "views.publish", func(ctx context.Context) error {
		_, err := b.API.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: v})
		return err
	})
	if err != nil {
		a.log.Error().Err(err).Msg("home: views.publish")
	}
}

// homeLearning reads the learning settings the Home shows: about the
// person anywhere (me), and in their DM with mnemo (here). One that could
// not be read is SettingUnknown, and err says why; the other is still
// read.
func (a *App) homeLearning(ctx context.Context, team, user string) (me, here Setting, err error) {
	if on, merr := a.db.Settings().UserLearningEnabled(ctx, team, user); merr != nil {
		err = fmt.Errorf("learning about them: %w", merr)
	} else {
		me = settingOf(on)
	}
	dm, herr := a.homeDM(ctx, team, user)
	if herr == nil {
		var on bool
		if on, herr = a.db.Settings().LearningEnabled(ctx, team, dm); herr == nil {
			here = settingOf(on)
		}
	}
	if herr != nil {
		err = errors.Join(err, fmt.Errorf("learning in their DM: %w", herr))
	}
	return me, here, err
}

// homeDM is the DM channel of user's App Home in team: the one their last
// app_home_opened named (a.homes), else the one conversations.open returns
// for them: the bot's DM with them, the one there is.
func (a *App) homeDM(ctx context.Context, team, user string) (string, error) {
	key := team + "/" + user
	if ch, ok := a.homes.Get(key); ok && ch != "" {
		return ch, nil
	}
	b, err := a.bot(ctx, team)
	if err != nil {
		return "", err
	}
	var ch *slack.Channel
	err = a.call(ctx, a.budget, "conversations.open", func(ctx context.Context) error {
		var err error
		ch, _, _, err = b.API.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{user}})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("conversations.open: %w", err)
	}
	if ch == nil || ch.ID == "" {
		return "", errors.New("conversations.open: no channel")
	}
	a.homes.Add(key, ch.ID)
	return ch.ID, nil
}

// noticeHomeView is a Home that shows no memories and no settings, only
// notice: why not.
func noticeHomeView(notice string) slack.HomeTabViewRequest {
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, CallbackID: "mnemo_home", Blocks: slack.Blocks{BlockSet: []slack.Block{
		slack.NewHeaderBlock(plain("What mnemo remembers about you")),
		slack.NewSectionBlock(mrkdwn(":warning: "+escape(notice)), nil, nil),
	}}}
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
