package slackapp

import (
	"context"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Directory derives actors from live Slack events, enriched from users.info
// and cached.
type Directory struct {
	bots   *install.Clients // nil: actors are not enriched
	admins map[string]bool
	ttl    time.Duration
	now    func() time.Time

	// cache: team/user → how users.info placed them, for ttl; at most
	// maxPeople, the least recently used forgotten first (asked again).
	cache *lru.Cache[string, cached]
	// hosts: a person of another organisation, by their own team/user,
	// → the team whose installation last placed them (hostOf).
	hosts *lru.Cache[string, string]
}

// maxPeople bounds the people Directory.cache keeps.
const maxPeople = 50000

// maxHosts bounds Directory.hosts: past it, the host of the person placed
// longest ago is forgotten, and their App Home is then brought up to date
// when they next open it.
const maxHosts = 10000

type cached struct {
	actor provenance.Actor // as users.info places them (ActorFromEvent)
	at    time.Time
}

// NewDirectory returns a Directory backed by the Slack Web API. api may be
// nil (the local chat), in which case actors are not enriched. admins are
// user ids with admin rights whatever users.info says (MNEMO_ADMINS).
func NewDirectory(api *slack.Client, admins []string) *Directory {
	var bots *install.Clients
	if api != nil {
		bots = &install.Clients{Single: &install.Bot{API: api}}
	}
	return NewTeamDirectory(bots, admins)
}

// NewTeamDirectory is a Directory that asks each team's users.info with
// that team's bot. An admin written U… is one in SLACK_BOT_TOKEN's
// workspace (in every workspace when there are no installations); T…:U…
// names the workspace.
func NewTeamDirectory(bots *install.Clients, admins []string) *Directory {
	d := &Directory{bots: bots, admins: map[string]bool{}, ttl: 10 * time.Minute, now: time.Now, cache: newLRU[string, cached](maxPeople), hosts: newLRU[string, string](maxHosts)}
	for _, a := range admins {
		d.admins[a] = true
	}
	return d
}

// admin says whether MNEMO_ADMINS names a member of team.
func (d *Directory) admin(team, user string) bool {
	if d.admins[team+":"+user] {
		return true
	}
	if !d.admins[user] {
		return false
	}
	if d.bots == nil || !d.bots.Multi() {
		return true
	}
	return d.bots.Single != nil && d.bots.Single.Team == team
}

// ActorFromEvent is the one way an actor enters mnemo: the team and user id
// of a live Slack event (a message, a mention, a slash command, a button
// press, the App Home). Model output and tool arguments never name an
// actor. users.info names the person's own workspace: one of another
// workspace is never an admin here, and is an external member (their Team
// is their own; provenance.Actor.ExternalTo), unless they belong to the
// organisation whose org-wide installation serves team
// (sameOrganisation). That holds wherever they are: through Slack Connect,
// people of another organisation can DM the bot and open its App Home, as
// well as post in a shared channel. A users.info failure still yields the
// actor, unenriched, with the error: in a shared channel the caller refuses
// them, since whose member they are can't be known.
func (d *Directory) ActorFromEvent(ctx context.Context, team, userID string) (provenance.Actor, error) {
	if userID == "" {
		return provenance.Actor{}, fmt.Errorf("event has no user")
	}
	a := provenance.Actor{Kind: provenance.KindUser, Team: team, ID: userID}
	if d == nil {
		return a, nil
	}
	a.IsAdmin = d.admin(team, userID)
	if d.bots == nil {
		return a, nil
	}
	key := team + "/" + userID
	if c, ok := d.cache.Get(key); ok && d.now().Sub(c.at) < d.ttl {
		d.served(team, c.actor)
		return c.actor, nil
	}
	b, err := d.bots.Bot(ctx, team)
	if err != nil {
		return a, fmt.Errorf("users.info %s: %w", userID, err)
	}
	u, err := b.API.GetUserInfoContext(ctx, userID)
	if err != nil {
		return a, fmt.Errorf("users.info %s: %w", userID, err)
	}
	a.Name = u.Profile.DisplayName
	if a.Name == "" {
		a.Name = u.RealName
	}
	if a.Name == "" {
		a.Name = u.Name
	}
	switch {
	case u.TeamID == "" || u.TeamID == team:
		a.IsAdmin = a.IsAdmin || u.IsAdmin || u.IsOwner || u.IsPrimaryOwner
	case sameOrganisation(b, u):
		// A member of another workspace of team's organisation is no
		// external member here; still not an admin here by their own
		// workspace's rights.
	default:
		// A person of another organisation, wherever they are (a shared
		// channel, a DM or group DM, the App Home): an external member, of
		// their own team, never an admin here.
		a.Team, a.IsAdmin = u.TeamID, false
	}
	if u.IsBot {
		a.Kind = provenance.KindBot
	}
	d.cache.Add(key, cached{actor: a, at: d.now()})
	d.served(team, a)
	return a, nil
}

// served remembers host as the team whose installation serves a, when a
// is a person of another organisation (hostOf).
func (d *Directory) served(host string, a provenance.Actor) {
	if a.Team == host || a.Team == "" {
		return
	}
	d.hosts.Add(a.Team+"/"+a.ID, host)
}

// hostOf is the team whose installation last placed a person of another
// organisation, user of team (their own): the one they reached mnemo
// through, in a turn, a command or the App Home. Their memories are kept
// under their own team (memory.HomeOf), where the app may not be
// installed, so their Home is published through it. False for anyone it
// has not placed as such.
func (d *Directory) hostOf(team, user string) (string, bool) {
	if d == nil {
		return "", false
	}
	return d.hosts.Get(team + "/" + user)
}

// newLRU is a cache of at most size entries, the least recently used
// dropped first (hashicorp/golang-lru: thread-safe); size > 0.
func newLRU[K comparable, V any](size int) *lru.Cache[K, V] {
	c, err := lru.New[K, V](size)
	if err != nil {
		panic(err) // only for size <= 0
	}
	return c
}

// sameOrganisation says whether u belongs to the Enterprise Grid
// organisation b's workspace is part of, by users.info's enterprise_user:
// the org-wide installation's, or the one Slack gave a workspace's own
// installation (a Grid member's users.info names one home workspace, not
// every workspace they are a member of). Where that can't be known (no
// organisation recorded, or no enterprise_user) it says false: the person
// is placed by their workspace, as outside an organisation.
func sameOrganisation(b install.Bot, u *slack.User) bool {
	org := b.Organisation
	if org == "" {
		org = b.Enterprise
	}
	return org != "" && u.Enterprise.EnterpriseID == org
}
