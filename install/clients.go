package install

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/db"
)

// Bot is the app in one workspace: the Web API client with that team's
// token, and the bot's identity there.
type Bot struct {
	// Team is the workspace the bot acts in: the tenant, whichever
	// installation's token API holds.
	Team          string
	API           *slack.Client
	UserID, BotID string
	// Enterprise is the organisation of an org-wide (Enterprise Grid)
	// installation that serves Team; empty for the workspace's own.
	Enterprise string
	// Organisation is the Enterprise Grid organisation Team belongs to,
	// whoever installed the app: Enterprise for an org-wide installation,
	// the enterprise id Slack gave a workspace's own installation in an
	// organisation; empty outside one, or where it is not known.
	Organisation string
}

// ErrNotInstalled is a team the app is not installed in, or no longer
// (uninstalled, tokens revoked): nothing is done for it.
var ErrNotInstalled = errors.New("the app is not installed in this workspace")

// Clients gives each team its own bot. With a single bot (SLACK_BOT_TOKEN)
// that bot serves its own team, and every team when there is no store;
// other teams are served by their installation, opened with the keyring
// and cached for TTL. Forget drops a team from the cache at once, and
// Watch does when a workspace is erased or uninstalled on any replica.
type Clients struct {
	// Single is the bot of SLACK_BOT_TOKEN, or nil.
	Single *Bot
	// Store and Keyring find and open installations; nil for a single
	// workspace.
	Store   *db.DB
	Keyring *Keyring
	// NewClient makes a Web API client for a token (with serve's base URL
	// and HTTP timeouts).
	NewClient func(token string) *slack.Client
	// TTL bounds how long a bot is used without reading its installation
	// again: how long a replica that did not get app_uninstalled keeps
	// calling (Slack refuses the revoked token anyway). Default 30 s.
	TTL time.Duration
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]cachedBot
	// forgotten counts Forget's calls: a bot read before one is not
	// cached after it.
	forgotten uint64
}

type cachedBot struct {
	bot Bot
	err error
	at  time.Time
}

// Multi reports whether installations are read (OAuth is configured).
func (c *Clients) Multi() bool { return c.Store != nil }

// Bot returns team's bot, or ErrNotInstalled: its own installation, else
// the org-wide installation of the organisation it was last served by (see
// BotIn).
func (c *Clients) Bot(ctx context.Context, team string) (Bot, error) {
	return c.BotIn(ctx, team, "")
}

// BotIn returns the bot of team, a workspace of enterprise (an Enterprise
// Grid organisation, or "" when the delivery named none): its own
// installation, else the organisation's org-wide one, which then serves
// the team from now on (Bot finds it by the team alone). A workspace
// recorded as served by another organisation, whose org-wide installation
// is active, is not served by enterprise's (ErrNotInstalled), nor moved to
// it: a delivery can name the wrong organisation (an external member's
// home workspace, under the host organisation's enterprise).
func (c *Clients) BotIn(ctx context.Context, team, enterprise string) (Bot, error) {
	if c.Single != nil && (c.Store == nil || team == c.Single.Team || team == "") {
		return *c.Single, nil
	}
	if c.Store == nil {
		return Bot{}, ErrNotInstalled
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	ttl := c.ttl()
	c.mu.Lock()
	// A team not found without its enterprise is looked up again with it;
	// an organisation's bot serves a delivery that names no other one (a
	// workspace's own installation serves it whatever it names).
	if b, ok := c.cache[team]; ok && now().Sub(b.at) < ttl && (b.err == nil || enterprise == "") &&
		(enterprise == "" || b.bot.Enterprise == "" || b.bot.Enterprise == enterprise) {
		c.mu.Unlock()
		return b.bot, b.err
	}
	gen := c.forgotten
	c.mu.Unlock()
	b, err := c.load(ctx, team, enterprise)
	if err != nil && !errors.Is(err, ErrNotInstalled) {
		return Bot{}, err // a database or key failure is not cached
	}
	if err != nil && enterprise != "" {
		// Not installed for the organisation a delivery named, which may
		// be the wrong one (not the workspace's): that says nothing of the
		// team's own organisation, whose bot stays cached. (A cached error
		// is read only by lookups without an enterprise anyway.)
		return b, err
	}
	c.mu.Lock()
	if c.cache == nil {
		c.cache = map[string]cachedBot{}
	}
	if c.forgotten == gen {
		c.cache[team] = cachedBot{bot: b, err: err, at: now()}
	}
	c.mu.Unlock()
	return b, err
}

// ttl is TTL, or its default.
func (c *Clients) ttl() time.Duration {
	if c.TTL <= 0 {
		return 30 * time.Second
	}
	return c.TTL
}

func (c *Clients) load(ctx context.Context, team, enterprise string) (Bot, error) {
	inst, err := c.Store.Installations().Find(ctx, team, enterprise)
	if err := serving(team, inst, err); err != nil {
		return Bot{}, err
	}
	owner, org := inst.Team, ""
	if inst.Team == "" {
		owner, org = inst.Enterprise, inst.Enterprise
		if enterprise != "" {
			// A workspace recorded as another organisation's, whose
			// installation is active, is not served by this one's.
			err := c.Store.Installations().ServeTeam(ctx, team, enterprise)
			if errors.Is(err, db.ErrServedByAnother) {
				return Bot{}, fmt.Errorf("%s in %s: %w: %w", team, enterprise, err, ErrNotInstalled)
			}
			if err != nil {
				return Bot{}, err
			}
		}
	}
	token, err := c.Keyring.Open(owner, inst.Token)
	if err != nil {
		return Bot{}, err
	}
	return Bot{Team: team, API: c.NewClient(token), UserID: inst.BotUserID, BotID: inst.BotID, Enterprise: org, Organisation: inst.Enterprise}, nil
}

// Organisation is the bot of an organisation's own (org-wide)
// installation, for what it asks Slack as the organisation rather than for
// a workspace (auth.teams.list); not cached. ErrNotInstalled when it has
// none, or it is disabled.
func (c *Clients) Organisation(ctx context.Context, enterprise string) (Bot, error) {
	inst, err := c.Store.Installations().FindOrg(ctx, enterprise)
	if err := serving("organisation "+enterprise, inst, err); err != nil {
		return Bot{}, err
	}
	token, err := c.Keyring.Open(enterprise, inst.Token)
	if err != nil {
		return Bot{}, err
	}
	return Bot{API: c.NewClient(token), UserID: inst.BotUserID, BotID: inst.BotID, Enterprise: enterprise, Organisation: enterprise}, nil
}

// serving says why an installation found (inst, err) for name serves
// nothing: none was found, or it is disabled (ErrNotInstalled), or it
// could not be read.
func serving(name string, inst db.Installation, err error) error {
	switch {
	case errors.Is(err, db.ErrNotFound):
		return fmt.Errorf("%s: %w", name, ErrNotInstalled)
	case err != nil:
		return err
	case !inst.Active():
		return fmt.Errorf("%s (%s): %w", name, inst.DisabledWhy, ErrNotInstalled)
	}
	return nil
}

// Forget drops team's bot from the cache: the next call reads its
// installation again. Forget("") drops every team's: an organisation's
// installation changed, and it may serve any of them.
func (c *Clients) Forget(team string) {
	c.mu.Lock()
	c.forgotten++
	if team == "" {
		clear(c.cache)
	} else {
		delete(c.cache, team)
	}
	c.mu.Unlock()
}

// Watch drops each workspace erased (db.EraseTeam, by `mnemo teams erase`
// or another replica's retention) from the cache as the erasure commits,
// so that nothing more is taken in or called for it, until ctx ends; and
// each whose installation another replica disabled or whose organisation's
// access it changed (db.Installations' Disable, ChangeTeamAccess,
// SettleTeamAccess), every team for an organisation's uninstall. It
// drops every team's each time it starts listening, for an erasure told
// while it was not, and listens again after a failure, waiting
// watchRetry, doubled up to the TTL, in between. It returns when ctx
// ends; at once without a store (a single workspace: nothing is cached).
func (c *Clients) Watch(ctx context.Context, log zerolog.Logger) {
	if c.Store == nil {
		return
	}
	wait := watchRetry
	for {
		listened := false
		err := c.Store.ListenErasures(ctx, func() {
			listened, wait = true, watchRetry
			c.Forget("")
			log.Debug().Msg("listening for workspaces' erasures; installations read again")
		}, func(team string) {
			c.Forget(team) // "" for an organisation's uninstall: every team's
			log.Info().Str("team", team).Msg("workspace erased or its installation changed: read again")
		})
		if ctx.Err() != nil {
			return
		}
		log.Warn().Err(err).Bool("was_listening", listened).Dur("retry_in", wait).Msg("not told of workspaces' erasures; cached installations serve up to their TTL until it listens again")
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, c.ttl())
	}
}

// watchRetry is Watch's first wait before it listens again.
const watchRetry = 100 * time.Millisecond
