package install

import (
	"context"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// orgs is a database with two organisations' org-wide installations,
// E0ORG's and E0OTHER's, their tokens sealed as OAuth seals them, and
// Clients over it that remember which token each bot's client was made
// with.
type orgs struct {
	t       *testing.T
	d       *testdb.DB
	clients *Clients
	mu      sync.Mutex
	tokens  map[*slack.Client]string
	now     time.Time
}

func (o *orgs) advance(d time.Duration) {
	o.mu.Lock()
	o.now = o.now.Add(d)
	o.mu.Unlock()
}

func newOrgs(t *testing.T) *orgs {
	t.Helper()
	keys, err := ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(t, err)
	o := &orgs{t: t, d: testdb.New(t), tokens: map[*slack.Client]string{}}
	for _, org := range []struct{ enterprise, token, bot string }{
		{"E0ORG", "xoxb-org", "U0ORGBOT"}, {"E0OTHER", "xoxb-other", "U0OTHERBOT"},
	} {
		sealed, err := keys.Seal(org.enterprise, org.token)
		require.NoError(t, err)
		require.NoError(t, o.d.DB.Installations().Save(context.Background(), db.Installation{
			Enterprise: org.enterprise, Token: sealed, BotUserID: org.bot, InstallerID: "U0ADMIN"}))
	}
	o.now = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	o.clients = &Clients{Store: o.d.DB, Keyring: keys, Now: func() time.Time {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.now
	}, NewClient: func(token string) *slack.Client {
		c := slack.New(token)
		o.mu.Lock()
		o.tokens[c] = token
		o.mu.Unlock()
		return c
	}}
	return o
}

// botIn is the token of team's bot for a delivery naming enterprise.
func (o *orgs) botIn(team, enterprise string) (string, error) {
	b, err := o.clients.BotIn(context.Background(), team, enterprise)
	if err != nil {
		return "", err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tokens[b.API], nil
}

// servedBy is the organisation installation_teams records for team.
func (o *orgs) servedBy(team string) string {
	o.t.Helper()
	var e string
	require.NoError(o.t, o.d.Pool.QueryRow(context.Background(), `SELECT enterprise_id FROM installation_teams WHERE team_id = $1`, team).Scan(&e))
	return e
}

func (o *orgs) disable(enterprise string) {
	o.t.Helper()
	_, err := o.d.Pool.Exec(context.Background(), `UPDATE installations SET installed_at = now() - interval '1 hour'`)
	require.NoError(o.t, err)
	u, err := o.d.DB.Installations().Disable(context.Background(), db.Uninstall{Enterprise: enterprise, Why: "app_uninstalled", EventID: "Ev0" + enterprise, Sent: time.Now()})
	require.NoError(o.t, err)
	require.True(o.t, u.Disabled)
}

// A Slack Connect external member of E0OTHER's workspace T0OTHER acts in
// E0ORG's channel: the delivery names T0OTHER with E0ORG's enterprise.
// T0OTHER stays E0OTHER's, its record is not moved to E0ORG (whose
// uninstall would erase it), E0ORG's token does not serve it, and its own
// deliveries, with the cache warm, still get E0OTHER's bot.
func TestBotInKeepsAWorkspaceWithItsOwnOrganisation(t *testing.T) {
	t.Parallel()
	o := newOrgs(t)

	tok, err := o.botIn("T0OTHER", "E0OTHER")
	require.NoError(t, err)
	require.Equal(t, "xoxb-other", tok)
	require.Equal(t, "E0OTHER", o.servedBy("T0OTHER"), "the control: a first mapping is recorded")

	// With E0OTHER's bot cached for T0OTHER.
	tok, err = o.botIn("T0OTHER", "E0ORG")
	assert.ErrorIs(t, err, ErrNotInstalled, "warm cache: a delivery naming E0ORG got the bot with token %q", tok)

	// Past the cache's TTL, as a replica whose cache has expired.
	o.advance(time.Minute)
	tok, err = o.botIn("T0OTHER", "E0ORG")
	assert.ErrorIs(t, err, ErrNotInstalled, "cold cache: a delivery naming E0ORG got the bot with token %q", tok)
	assert.Equal(t, "E0OTHER", o.servedBy("T0OTHER"), "the record of T0OTHER moved to E0ORG")

	// T0OTHER's own deliveries, the cache warm.
	tok, err = o.botIn("T0OTHER", "E0OTHER")
	require.NoError(t, err)
	assert.Equal(t, "xoxb-other", tok, "T0OTHER's own delivery is served with another organisation's token")
	b, err := o.clients.Bot(context.Background(), "T0OTHER")
	require.NoError(t, err, "a delivery naming the wrong organisation left T0OTHER not installed")
	assert.Equal(t, "E0OTHER", b.Enterprise)
	assert.Equal(t, "E0OTHER", o.servedBy("T0OTHER"))
}

// A workspace moves away from an organisation whose installation is
// disabled: then the organisation a delivery names serves it, even while
// this replica still caches the old organisation's bot (it missed the
// uninstall event).
func TestBotInMovesAWorkspaceFromADisabledOrganisation(t *testing.T) {
	t.Parallel()
	o := newOrgs(t)
	tok, err := o.botIn("T0OTHER", "E0OTHER")
	require.NoError(t, err)
	require.Equal(t, "xoxb-other", tok)

	o.disable("E0OTHER") // no Forget: another replica took the event
	tok, err = o.botIn("T0OTHER", "E0ORG")
	require.NoError(t, err)
	require.Equal(t, "xoxb-org", tok, "a cached bot of another organisation answered")
	require.Equal(t, "E0ORG", o.servedBy("T0OTHER"))
	b, err := o.clients.Bot(context.Background(), "T0OTHER")
	require.NoError(t, err)
	require.Equal(t, "E0ORG", b.Enterprise)
}

// A workspace's own installation serves it whatever organisation a
// delivery names, from the cache too.
func TestBotInServesAWorkspaceInstallationWhateverTheEnterprise(t *testing.T) {
	t.Parallel()
	o := newOrgs(t)
	keys := o.clients.Keyring
	sealed, err := keys.Seal("T0WS", "xoxb-ws")
	require.NoError(t, err)
	require.NoError(t, o.d.DB.Installations().Save(context.Background(), db.Installation{Team: "T0WS", Enterprise: "E0OTHER", Token: sealed, BotUserID: "U0WSBOT", InstallerID: "U0ADMIN"}))
	for _, enterprise := range []string{"", "E0OTHER", "E0ORG", "E0ORG"} {
		tok, err := o.botIn("T0WS", enterprise)
		require.NoError(t, err, enterprise)
		require.Equal(t, "xoxb-ws", tok, enterprise)
	}
}
