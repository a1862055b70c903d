package provenance

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/slack-go/slack"
)

// ActorKind says what kind of party an actor is.
type ActorKind string

const (
	KindUser   ActorKind = "user"
	KindBot    ActorKind = "bot"
	KindSystem ActorKind = "system"
)

// Actor is who said or did something.
type Actor struct {
	Kind    ActorKind
	Team    string
	ID      string // Slack user id, or the system actor's name
	Name    string
	IsAdmin bool // a workspace admin or owner per users.info
}

// IsHuman says whether the actor is a person.
func (a Actor) IsHuman() bool { return a.Kind == KindUser && a.ID != "" }

// Authority says whether a message instructs the bot or is only context.
type Authority string

const (
	// Instruction is a person addressing the bot in this turn.
	Instruction Authority = "instruction"
	// Context is everything else: earlier messages, other people's posts,
	// summaries, tool output. Anything that can't be attributed is context.
	Context Authority = "context"
)

// Visibility is who can see the place a message was said in.
type Visibility string

const (
	Public  Visibility = "public"
	Private Visibility = "private"
	DM      Visibility = "dm"
)

// VisibilityOf maps a Slack channel_type ("channel", "group", "im", "mpim")
// or, when that is missing, a channel id's prefix, to a Visibility. Unknown
// places count as private, so nothing leaks by default.
func VisibilityOf(channelType, channelID string) Visibility {
	switch channelType {
	case "channel":
		return Public
	case "im":
		return DM
	case "group", "mpim":
		return Private
	}
	if channelID != "" {
		switch channelID[0] {
		case 'C':
			return Public
		case 'D':
			return DM
		}
	}
	return Private
}

// Place is where a turn happens: a thread in a channel.
type Place struct {
	Team       string
	Channel    string
	SourceKey  string
	ThreadTS   string // the thread's root ts
	Visibility Visibility
}

// Directory derives actors from live Slack events, enriched from users.info
// and cached.
type Directory struct {
	api    *slack.Client
	admins map[string]bool
	ttl    time.Duration
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	actor Actor
	at    time.Time
}

// NewDirectory returns a Directory backed by the Slack Web API. api may be
// nil (the local chat), in which case actors are not enriched. admins are
// user ids with admin rights whatever users.info says (MNEMO_ADMINS).
func NewDirectory(api *slack.Client, admins []string) *Directory {
	d := &Directory{api: api, admins: map[string]bool{}, ttl: 10 * time.Minute, now: time.Now, cache: map[string]cached{}}
	for _, a := range admins {
		d.admins[a] = true
	}
	return d
}

// ActorFromEvent is the one way an actor enters mnemo: the team and user id
// of a live Slack event (a message, a mention, a slash command, a button
// press). Model output and tool arguments never name an actor. A users.info
// failure still yields the actor, unenriched.
func (d *Directory) ActorFromEvent(ctx context.Context, team, userID string) (Actor, error) {
	if userID == "" {
		return Actor{}, fmt.Errorf("provenance: event has no user")
	}
	a := Actor{Kind: KindUser, Team: team, ID: userID}
	if d == nil {
		return a, nil
	}
	a.IsAdmin = d.admins[userID]
	if d.api == nil {
		return a, nil
	}
	key := team + "/" + userID
	d.mu.Lock()
	c, ok := d.cache[key]
	d.mu.Unlock()
	if ok && d.now().Sub(c.at) < d.ttl {
		return c.actor, nil
	}
	u, err := d.api.GetUserInfoContext(ctx, userID)
	if err != nil {
		return a, fmt.Errorf("provenance: users.info %s: %w", userID, err)
	}
	a.Name = u.Profile.DisplayName
	if a.Name == "" {
		a.Name = u.RealName
	}
	if a.Name == "" {
		a.Name = u.Name
	}
	a.IsAdmin = a.IsAdmin || u.IsAdmin || u.IsOwner || u.IsPrimaryOwner
	if u.IsBot {
		a.Kind = KindBot
	}
	d.mu.Lock()
	d.cache[key] = cached{actor: a, at: d.now()}
	d.mu.Unlock()
	return a, nil
}
