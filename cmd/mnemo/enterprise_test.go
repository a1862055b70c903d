package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/slackapp"
)

var httpMode = []string{"MNEMO_SLACK_MODE", "http"}

// Issue 33: a state that was already spent, sent again with the cookie it
// was issued with and a fresh code, is refused before any exchange: the
// server keeps the spent state until it expires.
func TestOAuthStateReplayedWithItsCookieIsRefused(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t, httpMode...)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	page := get(t, browser, "http://"+addr+"/slack/install", http.StatusOK)
	link := strings.ReplaceAll(addLink.FindStringSubmatch(page)[1], "&amp;", "&")
	state, err := url.QueryUnescape(regexp.MustCompile(`state=([^&]+)`).FindStringSubmatch(link)[1])
	require.NoError(t, err)
	base, err := url.Parse("http://" + addr + "/slack/")
	require.NoError(t, err)
	cookies := jar.Cookies(base)
	require.Len(t, cookies, 1, "the state's cookie")
	cookie := cookies[0]

	approve := func() {
		b.slack.ApproveNext(fakeslack.Workspace{Team: teamA, Name: "Workspace A", Installer: alice,
			ClientID: testClientID, Secret: testClientSecret, RedirectURL: "http://" + addr + "/slack/oauth_redirect"})
	}
	approve()
	link = b.slack.AuthorizeURL() + strings.TrimPrefix(link, "https://slack.com/oauth/v2/authorize")
	require.Contains(t, get(t, browser, link, http.StatusOK), "mnemo is installed", "the control: the first use installs")
	require.Len(t, b.slack.Calls("oauth.v2.access"), 1)

	// A new code from Slack's authorize page, for the same state.
	approve()
	noFollow := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(link)
	require.NoError(t, err)
	resp.Body.Close()
	back, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	code := back.Query().Get("code")
	require.NotEmpty(t, code)
	require.Equal(t, state, back.Query().Get("state"))

	replay, err := http.NewRequest(http.MethodGet, "http://"+addr+"/slack/oauth_redirect?"+url.Values{"code": {code}, "state": {state}}.Encode(), nil)
	require.NoError(t, err)
	replay.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
	resp, err = noFollow.Do(replay)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a spent state is refused whatever the cookie says")
	require.Len(t, b.slack.Calls("oauth.v2.access"), 1, "the new code was never exchanged")
	require.Contains(t, b.logs.String(), "already used")
}

// Issue 33: workspace A is uninstalled, then installed again; Slack then
// retries the original app_uninstalled (same event_id, its old event_time,
// X-Slack-Retry-Num 1), and sends an old tokens_revoked it had not
// delivered. Neither disables the new installation: A is still answered.
func TestALateUninstallRetryLeavesAReinstalledWorkspaceAnswering(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t, httpMode...)
	installThroughOAuth(t, b, addr, teamA)
	A := in{b, teamA}
	const dm = "D0ALICE"
	require.Contains(t, A.ask(alice, dm, factA), "Prefers terse PR summaries")
	ctx := context.Background()
	active := func() bool {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM installations WHERE team_id = $1 AND disabled_at IS NULL`, teamA).Scan(&n))
		return n == 1
	}

	// A was installed an hour ago, and uninstalled two minutes ago.
	_, err := b.db.Pool.Exec(ctx, `UPDATE installations SET installed_at = now() - interval '1 hour' WHERE team_id = $1`, teamA)
	require.NoError(t, err)
	sent := time.Now().Add(-2 * time.Minute)
	uninstall := fakeslack.EventOptions{Team: teamA, EventID: "Ev0UNINSTALL1", EventTime: sent}
	b.slack.Revoke(teamA)
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_uninstalled", "event_ts": "1800000000.000100"}, uninstall), 5*time.Second)
	require.False(t, active(), "the control: the uninstall disabled A")

	installThroughOAuth(t, b, addr, teamA)
	require.True(t, active())
	retry := uninstall
	retry.RetryAttempt = 1
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_uninstalled", "event_ts": "1800000000.000100"}, retry), 5*time.Second)
	revoked := fakeslack.EventOptions{Team: teamA, EventID: "Ev0REVOKED1", EventTime: sent}
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "tokens_revoked", "tokens": map[string]any{"bot": []string{"U0BOT" + teamA}}, "event_ts": "1800000000.000200"}, revoked), 5*time.Second)
	require.True(t, active(), "the reinstalled workspace stays installed")
	require.Contains(t, A.ask(alice, dm, `call memory__list {}`), wordA, "and answering")
	require.Contains(t, b.logs.String(), "uninstall event already taken in")
	require.Contains(t, b.logs.String(), "uninstall event older than the active installation")
}

// An Enterprise Grid organisation with two workspaces.
const (
	org      = "E0ORG"
	orgTeamA = "T0ORGA"
	orgTeamB = "T0ORGB"
)

// gridIn is a workspace of an Enterprise Grid organisation, as Slack
// delivers its events: enterprise_id on the envelope, and the installation
// that serves it in the authorizations (the organisation's, when orgWide).
type gridIn struct {
	b                *bot
	team, enterprise string
	orgWide          bool
}

func (w gridIn) opts() fakeslack.EventOptions {
	return fakeslack.EventOptions{Team: w.team, Enterprise: w.enterprise, OrgWide: w.orgWide}
}

func (w gridIn) botUser() string {
	owner := w.team
	if w.orgWide {
		owner = w.enterprise
	}
	ws, ok := w.b.slack.Installed(owner)
	require.True(w.b.t, ok)
	return ws.BotUserID
}

// ask sends text from user in channel (a DM, or a mention in a channel)
// and returns mnemo's reply, posted in this workspace.
func (w gridIn) ask(user, channel, text string) string {
	w.b.t.Helper()
	ts := w.b.nextTS()
	ev := map[string]any{"type": "message", "channel_type": "im", "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts, "team": w.team}
	if !strings.HasPrefix(channel, "D") {
		ev = map[string]any{"type": "app_mention", "user": user, "text": "<@" + w.botUser() + "> " + text, "ts": ts, "channel": channel, "event_ts": ts, "team": w.team}
	}
	w.b.slack.SendEvent(ev, w.opts())
	got := w.b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
		return m.Team == w.team && m.Channel == channel && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
	})
	return got[0].Text
}

// Issue 33: an org admin installs mnemo once for the organisation. Mentions
// in two of its workspaces are answered with the organisation's token, and
// each workspace stays its own tenant: its memories are its own.
func TestAnOrgWideInstallServesEveryWorkspaceOfTheOrganisation(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	ctx := context.Background()
	var team, enterprise string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT team_id, enterprise_id FROM installations`).Scan(&team, &enterprise))
	require.Equal(t, []string{"", org}, []string{team, enterprise}, "one installation, the organisation's")
	A, B := gridIn{b, orgTeamA, org, true}, gridIn{b, orgTeamB, org, true}

	require.Contains(t, A.ask(alice, "C0ORGAGEN", factA), "Prefers terse PR summaries")
	require.Contains(t, B.ask(alice, "C0ORGBGEN", factB), "Prefers tabs over spaces")
	ws, _ := b.slack.Installed(org)
	for _, c := range b.slack.Calls("chat.postMessage") {
		if c.Team == orgTeamA || c.Team == orgTeamB {
			require.Equal(t, ws.Token, c.Token, "answered with the organisation's token")
		}
	}
	// Each workspace is its own tenant.
	for _, c := range []struct {
		w         gridIn
		mine, not string
	}{{A, wordA, wordB}, {B, wordB, wordA}} {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE team_id = $1 AND content ILIKE '%' || $2 || '%'`, c.w.team, c.mine).Scan(&n))
		require.Equal(t, 1, n, "%s's memory is stored under %s", c.mine, c.w.team)
		got := c.w.ask(alice, "C0"+c.w.team[1:]+"GEN", `call memory__list {}`)
		require.Contains(t, got, c.mine)
		require.NotContains(t, got, c.not)
	}

	// A slash command from a workspace of the organisation is answered too,
	// in that workspace alone.
	env := b.slack.SendGridSlashCommand(orgTeamB, org, true, "/mnemo", "memories", alice, "C0ORGBGEN")
	b.slack.WaitAck(env, 5*time.Second)
	got := b.slack.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == env })
	require.Contains(t, got[0].Text+string(got[0].Blocks), wordB)
	require.NotContains(t, got[0].Text+string(got[0].Blocks), wordA)

	// mnemo installs lists the organisation's installation, with the
	// workspaces it served, beside a workspace's own.
	installThroughOAuth(t, b, addr, teamA)
	var out, errOut strings.Builder
	require.Equal(t, 0, run(ctx, []string{"installs"}, b.getenv, strings.NewReader(""), &out, &errOut), errOut.String())
	require.Regexp(t, `organisation\s+E0ORG\s+E0ORG\s+\S+ \S+\s+active\s+every workspace of the organisation; so far T0ORGA, T0ORGB`, out.String())
	require.Regexp(t, `workspace\s+T0AAAA\s+-\s+\S+ \S+\s+active\s+T0AAAA`, out.String())

	// The organisation uninstalls: every workspace it served stops, and
	// comes due for erasure with it; the workspace with its own stays.
	b.slack.Revoke(org)
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_uninstalled", "event_ts": "1800000000.000100"}, A.opts()), 5*time.Second)
	var why string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT disabled_why FROM installations WHERE enterprise_id = $1 AND team_id = '' AND disabled_at IS NOT NULL`, org).Scan(&why))
	require.Equal(t, "app_uninstalled", why)
	due, err := b.db.DB.Installations().DisabledBefore(ctx, time.Now().Add(time.Minute), 10)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{orgTeamA, orgTeamB}, due)
	ts := b.nextTS()
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "im", "user": alice, "text": "hello?", "ts": ts, "channel": "D0ORGA", "event_ts": ts}, A.opts()), 5*time.Second)
	require.NotEmpty(t, in{b, teamA}.ask(alice, "D0ALICE", "hello"), "the control: A's own installation answers, after the post was acked")
	require.Equal(t, 0, b.arrivals(ts), "the organisation's workspace is no longer taken in")
}

// turnRequests are the model requests of the turns whose post said marker
// (not learning's or a review's).
func turnRequests(b *bot, marker string) []string {
	var out []string
	for _, r := range b.llm.Requests() {
		if strings.HasPrefix(r.System, "You are mnemo") && strings.Contains(lastUserText(r), marker) {
			out = append(out, r.System+"\n"+r.Transcript())
		}
	}
	return out
}

// Issue 33: in a Slack Connect channel of workspace A, a person of another
// organisation is an external member: the host's workspace memory never
// enters their turn, and what they ask to remember about themselves is
// stored under their own team. A's own member, asking the same in A, is
// the control.
func TestAnExternalMemberInASlackConnectChannel(t *testing.T) {
	t.Parallel()
	const (
		extUser, extTeam = "U0XENA", "T0OTHERORG"
		general, shared  = "C0GENERAL", "C0SHARED"
		codename         = "zqxfalcon"
	)
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		// An admin of her own organisation, which makes her none here.
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena", Team: extTeam, IsAdmin: true}}})
	A := in{b, teamA}
	ctx := context.Background()
	out, err := b.store().Remember(ctx, memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: admin, IsAdmin: true},
		Place: provenance.Place{Team: teamA, Channel: general, SourceKey: "slack:" + teamA + ":" + general + ":1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopeWorkspace, Content: "The launch codename is " + codename, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, memory.ScopeWorkspace, out.Memory.Scope)

	// The control: A's member's turn carries the workspace memory.
	A.ask(alice, general, "what is the launch codename, zqxhost?")
	reqs := turnRequests(b, "zqxhost")
	require.NotEmpty(t, reqs)
	require.Contains(t, strings.Join(reqs, "\n"), codename, "the control: a host member's turn recalls it")

	// Slack delivers an external member's post with their own workspace as
	// the envelope's team_id, for the host's installation (authorizations).
	b.slack.ShareChannel(shared, teamA)
	hostAuth := []slack.EventAuthorization{{TeamID: teamA, UserID: A.botUser(), IsBot: true}}
	guest := func(text string) string {
		t.Helper()
		ts := b.nextTS()
		ev := map[string]any{"type": "app_mention", "user": extUser, "text": "<@" + A.botUser() + "> " + text, "ts": ts, "channel": shared, "event_ts": ts, "user_team": extTeam, "source_team": extTeam}
		b.slack.SendEvent(ev, fakeslack.EventOptions{Team: extTeam, Authorizations: hostAuth, ExtShared: true})
		got := b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
			return m.Channel == shared && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
		})
		require.Equal(t, teamA, got[0].Team, "answered by the host's installation")
		b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
		return got[0].Text
	}
	reply := guest("what is the launch codename, zqxguest?")
	require.NotContains(t, reply, codename)
	reqs = turnRequests(b, "zqxguest")
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		require.NotContains(t, r, codename, "the host's workspace memory in an external member's model request")
	}

	guest("remember that I prefer bullet lists")
	count := func(team string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE team_id = $1 AND subject_id = $2 AND content ILIKE '%bullet lists%'`, team, extUser).Scan(&n))
		return n
	}
	require.Equal(t, 1, count(extTeam), "stored under their own team")
	require.Equal(t, 0, count(teamA), "not under the host's")
	// Theirs is theirs in the shared channel: their list shows it.
	require.Contains(t, guest(`call memory__list {}`), "bullet lists")
	// Their list and export, in the shared channel, are their own team's.
	require.Contains(t, A.command(extUser, shared, "memories"), "bullet lists")
	require.Contains(t, A.command(extUser, shared, "export"), "Sent your")
	f := b.slack.WaitFile(5 * time.Second)
	require.Contains(t, string(f.Content), "bullet lists")
	require.NotContains(t, string(f.Content), codename)
	// No admin command is theirs here; the host's admin is the control.
	require.Contains(t, A.command(extUser, shared, "restore 0123abcd"), "Only an admin can restore memories")
	require.NotContains(t, A.command(admin, shared, "restore 0123abcd"), "Only an admin")

	// Their organisation installs mnemo too. Slack still delivers the
	// post once, for one installation (its one authorization): a mention
	// of the host's bot is the host's to answer, and it answers once.
	// (TestASlackConnectPostIsAnsweredByTheInstallationItWasDeliveredFor
	// has the guest's.)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: extTeam, Name: "Guest org",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena"}}})
	before := len(b.slack.Posted())
	guest("what do you remember about me?")
	var replies int
	for _, m := range b.slack.Posted()[before:] {
		if m.Channel == shared && !m.Ephemeral && !m.Updated && m.ThreadTS != "" {
			replies++
			require.Equal(t, teamA, m.Team)
		}
	}
	require.Equal(t, 1, replies, "answered once")
}

// A Slack Connect channel where both organisations installed mnemo: Slack
// delivers a post once, for one installation, named by the envelope's one
// authorization (the full list needs apps.event.authorizations.list:
// https://api.slack.com/changelog/2020-09-15-events-api-truncate-authed-users),
// and an app_mention comes for the bot it mentions. The installation it
// came for answers it, even though the channel's host has an installation
// of its own: nobody else is sent a copy to answer. Its workspace is that
// turn's tenant: its own member's memories are kept there, and a member
// of the channel's host is an external member to it, whose memories are
// kept under their own team.
func TestASlackConnectPostIsAnsweredByTheInstallationItWasDeliveredFor(t *testing.T) {
	t.Parallel()
	const (
		extUser, extTeam = "U0XENA", "T0OTHERORG"
		shared           = "C0SHARED"
	)
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena", Team: extTeam}}})
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: extTeam, Name: "Guest org",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena"}, alice: {ID: alice, Name: "Alice", Team: teamA}}})
	b.slack.ShareChannel(shared, teamA)
	A, G := in{b, teamA}, in{b, extTeam}
	ctx := context.Background()
	// mention sends user's mention of w's bot in the shared channel, as
	// Slack delivers it: once, for w's installation; the envelope's
	// team_id is the channel's host's (bolt-js#687).
	mention := func(user, userTeam string, w in, text string) fakeslack.Message {
		t.Helper()
		ts := b.nextTS()
		ev := map[string]any{"type": "app_mention", "user": user, "text": "<@" + w.botUser() + "> " + text, "ts": ts, "channel": shared, "event_ts": ts, "user_team": userTeam, "source_team": userTeam}
		b.slack.SendEvent(ev, fakeslack.EventOptions{Team: teamA, ExtShared: true,
			Authorizations: []slack.EventAuthorization{{TeamID: w.team, UserID: w.botUser(), IsBot: true}}})
		got := b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
			return m.Channel == shared && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
		})
		b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
		return got[0]
	}
	count := func(team, user, word string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE team_id = $1 AND subject_id = $2 AND content ILIKE '%' || $3 || '%'`, team, user, word).Scan(&n))
		return n
	}

	// The guest organisation's member mentions their own organisation's
	// bot: the guest's installation answers, and keeps what they ask to
	// remember under their team.
	got := mention(extUser, extTeam, G, "remember that I prefer bullet lists")
	require.Equal(t, extTeam, got.Team, "answered by the installation Slack delivered it for")
	require.Equal(t, 1, count(extTeam, extUser, "bullet lists"))
	require.Equal(t, 0, count(teamA, extUser, "bullet lists"))
	// A channel memory they keep there is its installation's, with the
	// turn (README, Slack Connect).
	mention(extUser, extTeam, G, `call memory__remember {"content": "The shared channel's runbook is zqxguestbook", "kind": "procedure", "scope": "channel"}`)
	var team string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT team_id FROM memories WHERE content ILIKE '%zqxguestbook%'`).Scan(&team))
	require.Equal(t, extTeam, team)

	// The host's member mentions the guest's bot: answered by the guest's
	// installation too, to which she is an external member: what she asks
	// to remember is kept under her own team.
	got = mention(alice, teamA, G, "remember that I prefer numbered lists")
	require.Equal(t, extTeam, got.Team)
	require.Equal(t, 1, count(teamA, alice, "numbered lists"), "an external member's memory is kept under their own team")
	require.Equal(t, 0, count(extTeam, alice, "numbered lists"))

	// The control: a mention of the host's bot is the host's to answer.
	got = mention(alice, teamA, A, `call memory__list {}`)
	require.Equal(t, teamA, got.Team)
	require.Contains(t, got.Text, "numbered lists", "hers wherever she asks")
}

// A Slack Connect channel hosted by one workspace of an organisation that
// installed mnemo org-wide can reach the app through another of its
// workspaces (context_team_id). The organisation's installation is the one
// Slack named, and it serves the host's workspace too: it answers, in the
// workspace the event reached it through, and does not wait for itself.
func TestAnOrgWideInstallAnswersASharedChannelPostThatReachedItThroughAnotherOfItsWorkspaces(t *testing.T) {
	t.Parallel()
	const shared = "C0ORGSHARED"
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	ws, ok := b.slack.Installed(org)
	require.True(t, ok)
	ctx := context.Background()
	// The organisation's installation already serves the channel's host.
	A := gridIn{b, orgTeamA, org, true}
	require.Contains(t, A.ask(alice, "C0ORGAGEN", factA), "Prefers terse PR summaries")
	b.slack.ShareChannel(shared, orgTeamA)

	ts := b.nextTS()
	ev := map[string]any{"type": "app_mention", "user": alice, "text": "<@" + ws.BotUserID + "> " + factB, "ts": ts, "channel": shared, "event_ts": ts}
	b.slack.SendEvent(ev, fakeslack.EventOptions{Team: orgTeamB, Enterprise: org, ExtShared: true, ContextTeam: orgTeamB, ContextEnterprise: org,
		Authorizations: []slack.EventAuthorization{{EnterpriseID: org, UserID: ws.BotUserID, IsBot: true, IsEnterpriseInstall: true}}})
	got := b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
		return m.Channel == shared && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
	})
	require.Contains(t, got[0].Text, "Prefers tabs over spaces")
	b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	var team string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT team_id FROM memories WHERE content ILIKE '%' || $1 || '%'`, wordB).Scan(&team))
	require.Equal(t, orgTeamB, team, "kept in the workspace the event reached the app through")
}

// externalDM is workspace A with a person of another organisation, Xena
// (an admin of her own), who reaches A's bot outside any shared channel:
// in a DM, with /mnemo there, on the App Home (Slack Connect lets her).
// A holds a workspace memory said in public; her own team holds one of
// hers.
type externalDM struct {
	b        *bot
	A        in
	hostAuth []slack.EventAuthorization
}

const (
	xena, xenaTeam, xenaDM = "U0XENA", "T0OTHERORG", "D0XENA"
	launchCodename         = "zqxfalcon"
	xenasOwn               = "zqxteal"
)

func startExternalDM(t *testing.T) externalDM {
	t.Helper()
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		Users: map[string]fakeslack.User{xena: {ID: xena, Name: "Xena", Team: xenaTeam, IsAdmin: true}}})
	A := in{b, teamA}
	ctx := context.Background()
	for _, w := range []memory.WriteRequest{{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: admin, IsAdmin: true},
		Place: provenance.Place{Team: teamA, Channel: "C0GENERAL", SourceKey: "slack:" + teamA + ":C0GENERAL:1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopeWorkspace, Content: "The launch codename is " + launchCodename, WrittenBy: provenance.ByExplicit,
	}, {
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: xenaTeam, ID: xena},
		Place: provenance.Place{Team: xenaTeam, Channel: "C0XENAGEN", SourceKey: "slack:" + xenaTeam + ":C0XENAGEN:1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopePersonal, Content: "Xena's badge colour is " + xenasOwn, WrittenBy: provenance.ByExplicit,
	}} {
		out, err := b.store().Remember(ctx, w)
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
	}
	return externalDM{b: b, A: A, hostAuth: []slack.EventAuthorization{{TeamID: teamA, UserID: A.botUser(), IsBot: true}}}
}

// ask sends Xena's DM to A's bot, delivered for A's installation, and
// returns the reply.
func (x externalDM) ask(text string) string {
	x.b.t.Helper()
	ts := x.b.nextTS()
	ev := map[string]any{"type": "message", "channel_type": "im", "user": xena, "text": text, "ts": ts, "channel": xenaDM, "event_ts": ts, "user_team": xenaTeam, "source_team": xenaTeam}
	x.b.slack.SendEvent(ev, fakeslack.EventOptions{Team: xenaTeam, Authorizations: x.hostAuth})
	got := x.b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
		return m.Team == teamA && m.Channel == xenaDM && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
	})
	x.b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	return got[0].Text
}

// A person of another organisation in a DM with the bot is an external
// member, as in a Slack Connect channel (users.info places them): the
// host's workspace memory never enters their turn, and what they ask to
// remember is kept under their own team. A's member's DM is the control.
func TestAnExternalMembersDMIsNotTheHostsMembers(t *testing.T) {
	t.Parallel()
	x := startExternalDM(t)
	b := x.b
	x.A.ask(alice, "D0ALICE", "what is the launch codename, zqxhostdm?")
	require.Contains(t, strings.Join(turnRequests(b, "zqxhostdm"), "\n"), launchCodename, "the control: a member's DM turn recalls it")

	reply := x.ask("what is the launch codename, zqxguestdm?")
	require.NotContains(t, reply, launchCodename)
	reqs := turnRequests(b, "zqxguestdm")
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		require.NotContains(t, r, launchCodename, "the host's workspace memory in an external member's model request")
	}

	x.ask("remember that I prefer bullet lists")
	count := func(team string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE team_id = $1 AND subject_id = $2 AND content ILIKE '%bullet lists%'`, team, xena).Scan(&n))
		return n
	}
	require.Equal(t, 1, count(xenaTeam), "stored under their own team")
	require.Equal(t, 0, count(teamA), "not under the host's")
	require.Contains(t, x.ask(`call memory__list {}`), xenasOwn, "their own team's memories are theirs in the DM")
}

// users.info is what says a person in a DM is of another organisation:
// when it fails, the DM is not taken for a host member's (the host's
// memories would reach their model request, and theirs be kept under the
// host), but retried, as in a Slack Connect channel.
func TestAnExternalMembersDMIsRetriedWhenUsersInfoFails(t *testing.T) {
	t.Parallel()
	x := startExternalDM(t)
	x.b.slack.FailNext("users.info", "ratelimited")
	reply := x.ask("what is the launch codename, zqxunplaced?")
	require.NotContains(t, reply, launchCodename)
	reqs := turnRequests(x.b, "zqxunplaced")
	require.NotEmpty(t, reqs, "answered once users.info answers")
	for _, r := range reqs {
		require.NotContains(t, r, launchCodename, "the host's workspace memory in the request of a person users.info could not place")
	}
	require.Contains(t, x.b.logs.String(), "actor where another organisation's people can be", "the first attempt was refused")
}

// /mnemo in a DM with the bot, from a person of another organisation: the
// list and the export are their own team's, and no admin command is
// theirs here.
func TestAnExternalMembersCommandsInADMAreTheirs(t *testing.T) {
	t.Parallel()
	x := startExternalDM(t)
	got := x.A.command(xena, xenaDM, "memories")
	require.Contains(t, got, xenasOwn)
	require.NotContains(t, got, launchCodename)
	require.Contains(t, x.A.command(xena, xenaDM, "export"), "Sent your")
	f := x.b.slack.WaitFile(5 * time.Second)
	require.Contains(t, string(f.Content), xenasOwn)
	require.NotContains(t, string(f.Content), launchCodename)
	require.Contains(t, x.A.command(xena, xenaDM, "restore 0123abcd"), "Only an admin can restore memories")
}

// The App Home of a person of another organisation lists their own team's
// memories, as their turns keep them.
func TestAnExternalMembersAppHomeIsTheirs(t *testing.T) {
	t.Parallel()
	x := startExternalDM(t)
	x.b.slack.WaitAck(x.b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": xena, "channel": xenaDM, "tab": "home", "event_ts": "1800000000.000100"},
		fakeslack.EventOptions{Team: xenaTeam, Authorizations: x.hostAuth}), 5*time.Second)
	view := x.b.slack.WaitTeamView(teamA, xena, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), xenasOwn) })
	require.NotContains(t, string(view), launchCodename)
}

// Issue 33: a channel memory of a Slack Connect channel is everyone's in
// it, external members included: the host's channel memory enters an
// external member's turn there and their recall, while the host's
// workspace memory does not. It stays in its channel: in another shared
// channel of the host it is not theirs. A channel memory the external
// member writes there is the channel's too, and the host's member sees it.
func TestAChannelMemoryOfASharedChannelIsItsExternalMembersToo(t *testing.T) {
	t.Parallel()
	const (
		extUser, extTeam = "U0XENA", "T0OTHERORG"
		shared, other    = "C0SHARED", "C0SHARED2"
		window, codename = "zqxwindow", "zqxcodename"
	)
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena", Team: extTeam}}})
	A := in{b, teamA}
	ctx := context.Background()
	remember := func(channel string, scope memory.Scope, content string) {
		t.Helper()
		out, err := b.store().Remember(ctx, memory.WriteRequest{
			Actor: provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: admin, IsAdmin: true},
			Place: provenance.Place{Team: teamA, Channel: channel, SourceKey: "slack:" + teamA + ":" + channel + ":1800000000.000100", Visibility: provenance.Public},
			Scope: scope, Content: content, WrittenBy: provenance.ByExplicit,
		})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, scope, out.Memory.Scope)
	}
	remember(shared, memory.ScopeChannel, "Deploys from this channel go out in the "+window+" slot")
	remember(shared, memory.ScopeWorkspace, "The launch codename is "+codename)

	b.slack.ShareChannel(shared, teamA)
	b.slack.ShareChannel(other, teamA)
	hostAuth := []slack.EventAuthorization{{TeamID: teamA, UserID: A.botUser(), IsBot: true}}
	guest := func(channel, text string) string {
		t.Helper()
		ts := b.nextTS()
		ev := map[string]any{"type": "app_mention", "user": extUser, "text": "<@" + A.botUser() + "> " + text, "ts": ts, "channel": channel, "event_ts": ts, "user_team": extTeam, "source_team": extTeam}
		b.slack.SendEvent(ev, fakeslack.EventOptions{Team: extTeam, Authorizations: hostAuth, ExtShared: true})
		got := b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
			return m.Channel == channel && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
		})
		b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
		return got[0].Text
	}
	requests := func(marker string) string {
		t.Helper()
		reqs := turnRequests(b, marker)
		require.NotEmpty(t, reqs)
		return strings.Join(reqs, "\n")
	}

	// In the shared channel: the channel's memory, not the workspace's.
	guest(shared, "when do deploys go out, zqxhere?")
	got := requests("zqxhere")
	require.Contains(t, got, window, "the shared channel's memory in its external member's turn")
	require.NotContains(t, got, codename, "the host's workspace memory in an external member's turn")
	recall := guest(shared, `call memory__recall {"query": "deploys slot"}`)
	require.Contains(t, recall, window)
	require.NotContains(t, guest(shared, `call memory__recall {"query": "launch codename"}`), codename)

	// In another shared channel of the host, it is not theirs.
	guest(other, "when do deploys go out, zqxthere?")
	require.NotContains(t, requests("zqxthere"), window, "a channel memory outside its channel")
	require.NotContains(t, guest(other, `call memory__recall {"query": "deploys slot"}`), window)

	// What they ask to keep for the channel is the channel's, with its
	// host: A's member sees it there.
	guest(shared, `call memory__remember {"content": "The shared channel's runbook is zqxrunbook", "kind": "procedure", "scope": "channel"}`)
	var team string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT team_id FROM memories WHERE content ILIKE '%zqxrunbook%'`).Scan(&team))
	require.Equal(t, teamA, team, "the shared channel's memory is kept with its host")
	require.Contains(t, A.ask(alice, shared, `call memory__recall {"query": "runbook"}`), "zqxrunbook")
}

// An org-wide installation in a Slack Connect channel: an external member
// of another organisation mentions mnemo in a channel hosted by one of the
// organisation's workspaces. The envelope's team_id and enterprise_id are
// the speaker's (as in TestAnExternalMemberInASlackConnectChannel); the
// authorization is the organisation's org-wide installation, which names
// no workspace, and context_team_id is the workspace the app receives the
// event through. Bolt routes such an event by its authorizations, and so
// does mnemo: the organisation's installation answers, in the host's
// workspace, which is the one recorded as served; the speaker's workspace
// is not made a tenant of the organisation. A member of the host's
// workspace, in the same channel, is the control.
func TestAnOrgWideInstallAnswersAnExternalMemberInASlackConnectChannel(t *testing.T) {
	t.Parallel()
	for name, mode := range map[string][]string{"http": httpMode, "socket mode": nil} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orgWideInSlackConnect(t, mode)
		})
	}
}

func orgWideInSlackConnect(t *testing.T, mode []string) {
	const (
		extUser, extTeam, extOrg = "U0XENA", "T0OTHERORG", "E0OTHER"
		shared                   = "C0ORGSHARED"
	)
	b, addr := startMultiBot(t, mode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena", Team: extTeam}}})
	A := gridIn{b, orgTeamA, org, true}
	b.slack.ShareChannel(shared, orgTeamA)
	ctx := context.Background()
	ws, ok := b.slack.Installed(org)
	require.True(t, ok)
	served := func() []string {
		teams, err := b.db.DB.Installations().TeamsOf(ctx, org)
		require.NoError(t, err)
		return teams
	}

	// The control: the host's member in the shared channel.
	require.Contains(t, A.ask(alice, shared, factA), "Prefers terse PR summaries")
	require.Equal(t, []string{orgTeamA}, served())

	orgAuth := []slack.EventAuthorization{{EnterpriseID: org, UserID: ws.BotUserID, IsBot: true, IsEnterpriseInstall: true}}
	ts := b.nextTS()
	ev := map[string]any{"type": "app_mention", "user": extUser, "text": "<@" + ws.BotUserID + "> " + `call memory__remember {"content": "The shared channel's runbook is zqxgridbook", "kind": "procedure", "scope": "channel"}`,
		"ts": ts, "channel": shared, "event_ts": ts, "user_team": extTeam, "source_team": extTeam}
	b.slack.SendEvent(ev, fakeslack.EventOptions{Team: extTeam, Enterprise: extOrg, Authorizations: orgAuth,
		ContextTeam: orgTeamA, ContextEnterprise: org, ExtShared: true})
	got := b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
		return m.Channel == shared && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
	})
	require.Contains(t, got[0].Text, "zqxgridbook")
	require.Equal(t, orgTeamA, got[0].Team, "answered in the host's workspace")
	for _, c := range b.slack.Calls("chat.postMessage") {
		if c.Form.Get("channel") == shared {
			require.Equal(t, ws.Token, c.Token, "with the organisation's token")
		}
	}
	require.Equal(t, []string{orgTeamA}, served(), "the speaker's workspace is not one the organisation serves")
	var team string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT team_id FROM memories WHERE content ILIKE '%zqxgridbook%'`).Scan(&team))
	require.Equal(t, orgTeamA, team, "the shared channel's memory is kept with its host")
}

// click presses a button in the workspace, as user in channel, and returns
// the answer.
func (w in) click(user, channel, actionID, value string) string {
	w.b.t.Helper()
	n := len(w.b.responses())
	env := w.b.slack.SendInteractive(map[string]any{
		"type": "block_actions", "team": map[string]any{"id": w.team}, "user": map[string]any{"id": user, "team_id": w.team},
		"api_app_id": fakeslack.AppID, "trigger_id": "trig", "response_url": strings.TrimSuffix(w.b.slack.URL, "/api/") + "/response",
		"actions":   []any{map[string]any{"type": "button", "action_id": actionID, "block_id": "b1", "value": value, "action_ts": "1800000000.000100"}},
		"channel":   map[string]any{"id": channel},
		"container": map[string]any{"type": "message", "message_ts": "1800000000.000100", "is_ephemeral": true},
	})
	w.b.slack.WaitAck(env, 5*time.Second)
	return w.b.nextResponse(n).Text
}

// Issue 33: an external member is covered by erasure. What the host's
// conversations kept of them under their own team (their personal
// memories, memory.HomeOf) goes with the host's purge, as do their words
// in the host's log; what their own organisation's installation keeps of
// them under their team is not the host's to erase, and stays.
func TestPurgingAnExternalMemberErasesWhatTheHostKeptUnderTheirTeam(t *testing.T) {
	t.Parallel()
	const (
		extUser, extTeam = "U0XENA", "T0OTHERORG"
		shared           = "C0SHARED"
	)
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena", Team: extTeam}}})
	A := in{b, teamA}
	ctx := context.Background()
	b.slack.ShareChannel(shared, teamA)
	ts := b.nextTS()
	ev := map[string]any{"type": "app_mention", "user": extUser, "text": "<@" + A.botUser() + "> remember that I prefer zqxbullet lists", "ts": ts, "channel": shared, "event_ts": ts, "user_team": extTeam, "source_team": extTeam}
	b.slack.SendEvent(ev, fakeslack.EventOptions{Team: extTeam, Authorizations: []slack.EventAuthorization{{TeamID: teamA, UserID: A.botUser(), IsBot: true}}, ExtShared: true})
	b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	// Their own organisation's memory of them: not the host's.
	out, err := b.store().Remember(ctx, memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: extTeam, ID: extUser},
		Place: provenance.Place{Team: extTeam, Channel: "C0THEIRS", SourceKey: "slack:" + extTeam + ":C0THEIRS:1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopePersonal, Content: "I prefer zqxown dark mode", WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)

	count := func(word string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE team_id = $1 AND content ILIKE '%' || $2 || '%'`, extTeam, word).Scan(&n))
		return n
	}
	words := func() int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM session_messages WHERE team_id = $1 AND (actor_id = $2 OR text ILIKE '%zqxbullet%')`, teamA, extUser).Scan(&n))
		return n
	}
	require.Equal(t, 1, count("zqxbullet"), "the shared channel kept their preference under their own team")
	require.Equal(t, 1, count("zqxown"))
	require.Positive(t, words(), "the host's log holds their words")

	require.Contains(t, A.command(admin, shared, "purge <@"+extUser+">"), "mnemo_purge_confirm")
	receipt := A.click(admin, shared, "mnemo_purge_confirm", extUser)
	require.Contains(t, receipt, "Erased <@"+extUser+">")
	require.Contains(t, receipt, "1 deleted in their own workspace "+extTeam, receipt)
	require.Equal(t, 0, count("zqxbullet"), "what the host kept of them under their team is erased")
	require.Equal(t, 1, count("zqxown"), "their own organisation's memory of them stays")
	require.Zero(t, words(), "their words in the host's log are gone")
}

// Issue 33: the lifecycle at the organisation's level. The organisation's
// tokens_revoked (its authorization says is_enterprise_install) stops
// every workspace it serves, as its uninstall does, and `mnemo teams
// erase E…` then erases the organisation: its workspaces' data, its record
// of them (installation_teams) and its installation, which `mnemo
// installs` no longer lists. A workspace with its own installation is the
// control: it keeps answering, and its data.
func TestAnOrganisationsRevokedTokenStopsItsWorkspacesAndItsErasureLeavesNothing(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	installThroughOAuth(t, b, addr, teamA)
	ctx := context.Background()
	A, B := gridIn{b, orgTeamA, org, true}, gridIn{b, orgTeamB, org, true}
	require.Contains(t, A.ask(alice, "C0ORGAGEN", factA), "Prefers terse PR summaries")
	require.Contains(t, B.ask(alice, "C0ORGBGEN", factB), "Prefers tabs over spaces")
	require.NotEmpty(t, in{b, teamA}.ask(alice, "D0ALICE", factA))
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}
	require.Equal(t, 2, count(`SELECT count(*) FROM installation_teams WHERE enterprise_id = $1`, org))

	ws, _ := b.slack.Installed(org)
	b.slack.Revoke(org)
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "tokens_revoked", "tokens": map[string]any{"bot": []string{ws.BotUserID}}, "event_ts": "1800000000.000100"}, B.opts()), 5*time.Second)
	var why string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT disabled_why FROM installations WHERE enterprise_id = $1 AND team_id = ''`, org).Scan(&why))
	require.Equal(t, "tokens_revoked", why, "the organisation's installation is disabled")
	ts := b.nextTS()
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "im", "user": alice, "text": "hello?", "ts": ts, "channel": "D0ORGA", "event_ts": ts}, A.opts()), 5*time.Second)
	require.Equal(t, 0, b.arrivals(ts), "no workspace of the organisation is taken in")

	var out, errOut strings.Builder
	require.Equal(t, 0, run(ctx, []string{"teams", "erase", "--by", "ops-ticket-33", org}, b.getenv, strings.NewReader(""), &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "Erased organisation "+org+": 2 workspaces (T0ORGA, T0ORGB)")
	require.Zero(t, count(`SELECT count(*) FROM installation_teams WHERE enterprise_id = $1`, org))
	require.Zero(t, count(`SELECT count(*) FROM installations WHERE enterprise_id = $1`, org))
	require.Zero(t, count(`SELECT count(*) FROM memories WHERE team_id = ANY($1)`, []string{orgTeamA, orgTeamB}))
	require.Positive(t, count(`SELECT count(*) FROM memories WHERE team_id = $1`, teamA), "the workspace with its own installation keeps its data")
	out.Reset()
	require.Equal(t, 0, run(ctx, []string{"installs"}, b.getenv, strings.NewReader(""), &out, &errOut), errOut.String())
	require.NotContains(t, out.String(), org)
	require.Contains(t, out.String(), teamA)
	require.NotEmpty(t, in{b, teamA}.ask(alice, "D0ALICE", "hello"), "the control answers")
}

// Issue 33: org-scope memories, opted into (MNEMO_ORG_MEMORIES). With it,
// a workspace memory an admin writes in one workspace of the organisation
// is in the turns of another workspace of it, while personal memories stay
// each workspace's. Without it (the control, the default), the workspace
// memory stays in its workspace.
func TestOrgScopeMemoriesAreSharedAcrossTheOrganisationOnlyWhenOptedInto(t *testing.T) {
	t.Parallel()
	const policy = "zqxpolicy"
	for _, optIn := range []bool{true, false} {
		t.Run(fmt.Sprint("opted in ", optIn), func(t *testing.T) {
			t.Parallel()
			env := httpMode
			if optIn {
				env = append([]string{"MNEMO_ORG_MEMORIES", org}, httpMode...)
			}
			b, addr := startMultiBot(t, env...)
			installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
			A, B := gridIn{b, orgTeamA, org, true}, gridIn{b, orgTeamB, org, true}
			ctx := context.Background()
			got := A.ask(admin, "C0ORGAGEN", `call memory__remember {"content": "Expense reports are filed with the `+policy+` form", "kind": "procedure", "scope": "workspace"}`)
			require.Contains(t, got, policy)
			require.Contains(t, A.ask(alice, "C0ORGAGEN", factA), "Prefers terse PR summaries")
			var team string
			require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT team_id FROM memories WHERE content ILIKE '%' || $1 || '%'`, policy).Scan(&team))

			B.ask(bob, "C0ORGBGEN", "how are expense reports filed, zqxasking?")
			reqs := turnRequests(b, "zqxasking")
			require.NotEmpty(t, reqs)
			recalled := B.ask(bob, "C0ORGBGEN", `call memory__recall {"query": "expense reports"}`)
			// The workspace's own memories are its own either way.
			require.NotContains(t, B.ask(alice, "C0ORGBGEN", `call memory__list {}`), wordA)
			if !optIn {
				require.Equal(t, orgTeamA, team, "by default a workspace memory is its workspace's")
				require.NotContains(t, strings.Join(reqs, "\n"), policy, "another workspace's memory in a turn")
				require.NotContains(t, recalled, policy)
				return
			}
			require.Equal(t, org, team, "an org-scope memory is kept under the organisation")
			require.Contains(t, strings.Join(reqs, "\n"), policy, "the organisation's memory in another workspace's turn")
			require.Contains(t, recalled, policy)
		})
	}
}

// In a Slack Connect channel the host's own member asks, and the answer is
// read by another organisation: what the host said in public elsewhere is
// said to one organisation, not to that one. The host's workspace memory
// said in #general stays out of the turn there (it is in the control's,
// in #general); one said in the shared channel itself is in; the asker's
// own preference said in #general is applied, marked never to be quoted.
func TestAHostMembersTurnInASlackConnectChannelKeepsWhatWasSaidElsewhereOut(t *testing.T) {
	t.Parallel()
	const (
		general, shared = "C0GENERAL", "C0SHARED"
		codename        = "zqxfalcon"
		standup         = "zqxstandup"
	)
	b, addr := startMultiBot(t, httpMode...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host"})
	A := in{b, teamA}
	ctx := context.Background()
	remember := func(actor provenance.Actor, channel string, scope memory.Scope, content string) {
		t.Helper()
		out, err := b.store().Remember(ctx, memory.WriteRequest{
			Actor: actor, Scope: scope, Content: content, WrittenBy: provenance.ByExplicit,
			Place: provenance.Place{Team: teamA, Channel: channel, SourceKey: "slack:" + teamA + ":" + channel + ":1800000000.000100", Visibility: provenance.Public},
		})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
	}
	adm := provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: admin, IsAdmin: true}
	remember(adm, general, memory.ScopeWorkspace, "The launch codename is "+codename)
	remember(adm, shared, memory.ScopeWorkspace, "The partner standup is at 10am, "+standup)
	remember(provenance.Actor{Kind: provenance.KindUser, Team: teamA, ID: alice}, general, memory.ScopePersonal, "Prefers launch answers as bullet lists")

	// The control: in #general, the workspace memory is in the turn.
	A.ask(alice, general, "what is the launch codename and the partner standup, zqxingeneral?")
	reqs := strings.Join(turnRequests(b, "zqxingeneral"), "\n")
	require.Contains(t, reqs, codename, "the control: a host member's turn in #general recalls it")

	b.slack.ShareChannel(shared, teamA)
	A.ask(alice, shared, "what is the launch codename and the partner standup, zqxinshared?")
	all := turnRequests(b, "zqxinshared")
	require.NotEmpty(t, all)
	reqs = strings.Join(all, "\n")
	require.NotContains(t, reqs, codename, "the host's workspace memory said in #general, in a turn another organisation reads")
	require.Contains(t, reqs, standup, "what was said in the shared channel is its own")
	require.Contains(t, reqs, "private: apply it; never quote, list or mention it here] Prefers launch answers as bullet lists",
		"the asker's preference said elsewhere is applied, never quoted")

	// Their list there goes through the model too: the tool's result keeps
	// it out the same way.
	A.ask(alice, shared, `call memory__recall {"query":"launch codename"} zqxtool`)
	for _, r := range turnRequests(b, "zqxtool") {
		require.NotContains(t, r, codename, "the recall tool's result in the shared channel")
	}
}

// A Slack Connect channel hosted by workspace A, with an external member
// of another organisation: the tests below share them.
const (
	extUser, extTeam = "U0XENA", "T0OTHERORG"
	shared           = "C0SHARED"
)

// hostWithGuest starts a bot installed in A, whose channel shared is
// shared with extUser of extTeam (an admin of their own organisation when
// guestAdmin), with env.
func hostWithGuest(t *testing.T, guestAdmin bool, env ...string) (*bot, in) {
	t.Helper()
	b, addr := startMultiBot(t, append(env, httpMode...)...)
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: teamA, Name: "Host",
		Users: map[string]fakeslack.User{extUser: {ID: extUser, Name: "Xena", Team: extTeam, IsAdmin: guestAdmin}}})
	b.slack.ShareChannel(shared, teamA)
	return b, in{b, teamA}
}

// guestMention sends extUser's mention of mnemo in shared as Slack
// delivers it to the host's installation (the envelope's team_id is the
// speaker's own workspace; the authorization is the host's), and returns
// its ts.
func (w in) guestMention(text string) string {
	w.b.t.Helper()
	ts := w.b.nextTS()
	ev := map[string]any{"type": "app_mention", "user": extUser, "text": "<@" + w.botUser() + "> " + text, "ts": ts, "channel": shared, "event_ts": ts, "user_team": extTeam, "source_team": extTeam}
	w.b.slack.SendEvent(ev, fakeslack.EventOptions{Team: extTeam, Authorizations: []slack.EventAuthorization{{TeamID: w.team, UserID: w.botUser(), IsBot: true}}, ExtShared: true})
	return ts
}

// Slack sends a button press in a Slack Connect channel with the host's
// workspace as its team (the installation's, where the message was posted)
// and the presser's own workspace as user.team_id (slackapi/java-slack-sdk
// #1041, slackapi/bolt-js#1614). An external member's buttons on their own
// /mnemo memories list are theirs as the command was: the next page lists
// their own team's memories, and Forget forgets one of them. The command's
// first page is the control.
func TestAnExternalMembersButtonsInASlackConnectChannelAreTheirs(t *testing.T) {
	t.Parallel()
	b, A := hostWithGuest(t, false)
	ctx := context.Background()
	words := []string{"zqxamber", "zqxbronze", "zqxcobalt", "zqxdenim", "zqxemerald", "zqxfuchsia"}
	ids := map[string]string{}
	for i, w := range words {
		out, err := b.store().Remember(ctx, memory.WriteRequest{
			Actor: provenance.Actor{Kind: provenance.KindUser, Team: extTeam, ID: extUser},
			Place: provenance.Place{Team: extTeam, Channel: shared, SourceKey: fmt.Sprintf("slack:%s:%s:18000000%02d.000100", extTeam, shared, i), Visibility: provenance.Public},
			Scope: memory.ScopePersonal, Content: "I like the colour " + w, WrittenBy: provenance.ByExplicit,
		})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		ids[w] = out.Memory.ID.String()
	}
	press := func(actionID, value string) string {
		t.Helper()
		n := len(b.responses())
		env := b.slack.SendInteractive(map[string]any{
			"type": "block_actions", "team": map[string]any{"id": teamA}, "user": map[string]any{"id": extUser, "team_id": extTeam},
			"api_app_id": fakeslack.AppID, "trigger_id": "trig", "response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
			"actions":   []any{map[string]any{"type": "button", "action_id": actionID, "block_id": "b1", "value": value, "action_ts": "1800000000.000100"}},
			"channel":   map[string]any{"id": shared},
			"container": map[string]any{"type": "message", "message_ts": "1800000000.000100", "is_ephemeral": true},
		})
		b.slack.WaitAck(env, 5*time.Second)
		r := b.nextResponse(n)
		return r.Text + string(r.Blocks)
	}

	first := A.command(extUser, shared, "memories")
	shown := 0
	for _, w := range words {
		if strings.Contains(first, w) {
			shown++
		}
	}
	require.Equal(t, 5, shown, "the control: the command's first page lists five of their own")
	next := press("mnemo_page", fmt.Sprintf(`{"u":%q,"o":5}`, extUser))
	require.Contains(t, next, "zqxamber", "the next page is their own team's too")
	require.Contains(t, press("mnemo_forget", ids["zqxbronze"]), "Forgotten")
	var archived bool
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT archived_at IS NOT NULL FROM memories WHERE team_id = $1 AND id = $2`, extTeam, ids["zqxbronze"]).Scan(&archived))
	require.True(t, archived)
}

// Passive learning runs after the turn, from the thread's log and the
// turn's row. In a Slack Connect channel the log kept only the thread's
// team for each line, so a preference an external member stated was
// learned as a host member's, in the host's workspace, where they never
// see it; and the turn's row lost that the channel is shared, so learning's
// write weighed the speaker's memories said elsewhere. Now what is learned
// from an external member's words is kept in their own workspace, as what
// they ask to be remembered is, and the turn remembers the channel is
// shared. A host member's preference, learned in the host's workspace, is
// the control.
func TestWhatIsLearnedFromAnExternalMemberIsKeptInTheirOwnWorkspace(t *testing.T) {
	t.Parallel()
	b, A := hostWithGuest(t, false)
	ctx := context.Background()
	learned := func(word string) (team string) {
		t.Helper()
		require.Eventually(t, func() bool {
			err := b.db.Pool.QueryRow(ctx, `SELECT team_id FROM memories WHERE written_by = 'passive' AND content ILIKE '%' || $1 || '%'`, word).Scan(&team)
			return err == nil
		}, 30*time.Second, 20*time.Millisecond, "%s was learned", word)
		return team
	}

	A.ask(alice, shared, "honestly i prefer zqxhost mode dashboards")
	require.Equal(t, teamA, learned("zqxhost"), "the control: a host member's preference is the host's")

	ts := A.guestMention("honestly i prefer zqxguest mode dashboards")
	b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	require.Equal(t, extTeam, learned("zqxguest"), "an external member's preference is kept in their own workspace")
	var turnShared bool
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT shared FROM turns WHERE team_id = $1 AND message_ts = $2`, teamA, ts).Scan(&turnShared))
	require.True(t, turnShared, "the turn remembers its channel is shared")

	// They turned learning about themselves off in their own workspace,
	// where what is learned about them is kept: it is honoured here too.
	require.NoError(t, b.db.DB.Settings().SetUserLearning(ctx, extTeam, extUser, false))
	ts = A.guestMention("honestly i prefer zqxquiet mode dashboards")
	b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	var turn int64
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT id FROM turns WHERE team_id = $1 AND message_ts = $2`, teamA, ts).Scan(&turn))
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(b.logs.String(), "\n") {
			if strings.Contains(line, `"passive learning decided"`) && strings.Contains(line, fmt.Sprintf(`"turn":%d,`, turn)) {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "learning decided on the turn")
	var n int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE written_by = 'passive' AND content ILIKE '%zqxquiet%'`).Scan(&n))
	require.Zero(t, n, "nothing learned about someone who turned it off (the same query found zqxguest above)")
}

// The Inspect shortcut is an admin's, and in a Slack Connect channel an
// external member is no admin of the host's, whatever they are in their
// own organisation (users.info names their own workspace: Directory.ActorIn),
// so an admin of the other organisation can't inspect a host member's
// turn: its tools, its cost and which of the host's memories it recalled.
// The host's admin is the control.
func TestAnExternalAdminCannotInspectTheHostsTurnsInASlackConnectChannel(t *testing.T) {
	t.Parallel()
	b, A := hostWithGuest(t, true)
	A.ask(alice, shared, factA)
	var reply string
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT reply_ts FROM turns WHERE team_id = $1 AND channel_id = $2 AND reply_ts IS NOT NULL`, teamA, shared).Scan(&reply))
	inspect := func(user, userTeam string) string {
		t.Helper()
		before := len(b.responses())
		env := b.slack.SendInteractive(map[string]any{
			"type": "message_action", "callback_id": "mnemo_inspect", "trigger_id": "trig",
			"team": map[string]any{"id": teamA}, "user": map[string]any{"id": user, "team_id": userTeam},
			"channel": map[string]any{"id": shared}, "message": map[string]any{"ts": reply, "type": "message"},
			"response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
		})
		b.slack.WaitAck(env, 5*time.Second)
		return b.nextResponse(before).Text
	}
	require.Contains(t, inspect(admin, teamA), "Tools called", "the control: the host's admin inspects the turn")
	got := inspect(extUser, extTeam)
	require.Contains(t, got, "Only an admin can inspect turns")
	require.NotContains(t, got, "Tools called")
}

// Slack's user_change for an external member whose own organisation deleted
// their account, delivered to the host's installation, erases them with
// MNEMO_ERASE_DELETED_USERS as /mnemo purge does: their lines in the host's
// log, and what the host's conversations kept under their own team. It
// erased under their own team alone (which it still does), so the host
// kept their words.
func TestADeletedExternalMemberIsErasedFromTheHost(t *testing.T) {
	t.Parallel()
	b, A := hostWithGuest(t, false, "MNEMO_ERASE_DELETED_USERS", "true")
	ctx := context.Background()
	ts := A.guestMention("remember that I prefer zqxfoxtrot lists")
	b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}
	lines := `SELECT count(*) FROM session_messages WHERE team_id = $1 AND actor_id = $2`
	kept := `SELECT count(*) FROM memories WHERE team_id = $1 AND subject_id = $2 AND content ILIKE '%zqxfoxtrot%'`
	require.Positive(t, count(lines, teamA, extUser), "before: the host's log holds their words")
	require.Equal(t, 1, count(kept, extTeam, extUser), "before: their preference, under their own team")

	deleted := map[string]any{"type": "user_change", "user": map[string]any{"id": extUser, "team_id": extTeam, "deleted": true}, "event_ts": "1800000000.000200"}
	b.slack.WaitAck(b.slack.SendEvent(deleted, fakeslack.EventOptions{Team: extTeam, Authorizations: []slack.EventAuthorization{{TeamID: teamA, UserID: A.botUser(), IsBot: true}}}), 5*time.Second)
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(b.logs.String(), "\n") {
			if strings.Contains(line, "deleted member erased") && strings.Contains(line, `"team":"`+teamA+`"`) {
				return true
			}
		}
		return false
	}, 20*time.Second, 20*time.Millisecond, "the host's erasure of them is logged")
	require.Zero(t, count(lines, teamA, extUser), "their words are gone from the host's log")
	require.Zero(t, count(kept, extTeam, extUser), "and what the host kept under their team")
}

// Under an org-wide installation, Slack names no workspace when a button
// is pressed (team is null) and gives the presser's own (user.team_id),
// which need not be the one they pressed it in. An admin whose own
// workspace is A, purging bob in B, erased bob in A and left B as it was.
// A purge's buttons now carry the workspace they were made for.
func TestAnOrgWidePurgeErasesInTheWorkspaceItWasAskedIn(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	A, B := gridIn{b, orgTeamA, org, true}, gridIn{b, orgTeamB, org, true}
	require.Contains(t, A.ask(bob, "C0ORGAGEN", factA), "Prefers terse PR summaries")
	require.Contains(t, B.ask(bob, "C0ORGBGEN", factB), "Prefers tabs over spaces")
	ctx := context.Background()
	count := func(team string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE team_id = $1 AND subject_id = $2`, team, bob).Scan(&n))
		return n
	}
	require.Equal(t, []int{1, 1}, []int{count(orgTeamA), count(orgTeamB)}, "the control: bob has a memory in each")

	env := b.slack.SendGridSlashCommand(orgTeamB, org, true, "/mnemo", "purge <@U0BOB>", admin, "C0ORGBGEN")
	b.slack.WaitAck(env, 5*time.Second)
	asked := b.slack.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == env })
	var blocks []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(asked[0].Blocks, &blocks), string(asked[0].Blocks))
	var value string
	for _, bl := range blocks {
		for _, e := range bl.Elements {
			if e.ActionID == slackapp.ActionPurgeConfirm {
				value = e.Value
			}
		}
	}
	require.NotEmpty(t, value, string(asked[0].Blocks))

	n := len(b.responses())
	press := b.slack.SendInteractive(map[string]any{
		"type": "block_actions", "team": nil, "enterprise": map[string]any{"id": org, "name": "Grid Org"}, "is_enterprise_install": true,
		"user":       map[string]any{"id": admin, "team_id": orgTeamA}, // the admin's own workspace
		"api_app_id": fakeslack.AppID, "trigger_id": "trig", "response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
		"actions":   []any{map[string]any{"type": "button", "action_id": slackapp.ActionPurgeConfirm, "block_id": "mnemo_purge", "value": value, "action_ts": "1800000000.000100"}},
		"channel":   map[string]any{"id": "C0ORGBGEN"},
		"container": map[string]any{"type": "message", "message_ts": "1800000000.000100", "is_ephemeral": true},
	})
	b.slack.WaitAck(press, 5*time.Second)
	require.Contains(t, b.nextResponse(n).Text, "memories: 1 deleted")
	require.Equal(t, []int{1, 0}, []int{count(orgTeamA), count(orgTeamB)}, "bob is erased in B, where the admin asked, and kept in A")
}

// A press under an org-wide installation that names no workspace, from a
// button that does not say where it was made (feedback, Forget), falls
// back to the presser's own workspace, which may be another
// organisation's: an external member's in a Slack Connect channel. It is
// looked up by the workspace alone and never recorded as the host
// organisation's: before, one press made it so, and the host's uninstall
// would later have erased that other organisation's workspace.
func TestAPressNamingNoWorkspaceRecordsNoneAsTheOrganisations(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	A := gridIn{b, orgTeamA, org, true}
	require.NotEmpty(t, A.ask(alice, "C0ORGAGEN", "hello"))
	ctx := context.Background()
	servedBy := func(team string) []string {
		rows, err := b.db.Pool.Query(ctx, `SELECT enterprise_id FROM installation_teams WHERE team_id = $1`, team)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var e string
			require.NoError(t, rows.Scan(&e))
			out = append(out, e)
		}
		return out
	}
	require.Equal(t, []string{org}, servedBy(orgTeamA), "the control: the event's workspace is recorded")

	const stranger = "T0STRANGER"
	press := b.slack.SendInteractive(map[string]any{
		"type": "block_actions", "team": nil, "enterprise": map[string]any{"id": org, "name": "Grid Org"}, "is_enterprise_install": true,
		"user":       map[string]any{"id": "U0GUEST", "team_id": stranger},
		"api_app_id": fakeslack.AppID, "trigger_id": "trig", "response_url": strings.TrimSuffix(b.slack.URL, "/api/") + "/response",
		"actions":   []any{map[string]any{"type": "button", "action_id": slackapp.ActionFeedback, "block_id": "b1", "value": "up", "action_ts": "1800000000.000100"}},
		"channel":   map[string]any{"id": "C0ORGAGEN"},
		"container": map[string]any{"type": "message", "message_ts": "1800000000.000100", "is_ephemeral": false},
	})
	b.slack.WaitAck(press, 5*time.Second)
	require.Empty(t, servedBy(stranger), "the presser's own workspace is not recorded as the organisation's")
}

// A reply posted in workspace B under an org-wide installation carries its
// workspace in its feedback buttons, so a 👍 pressed by someone whose own
// workspace is A (the payload names no team, bolt-python#23) is recorded
// on B's turn. Before, the buttons said nothing, the press was looked up
// in A, where no turn posted that reply, and the verdict was dropped.
func TestAnOrgWideReplysFeedbackIsRecordedInItsWorkspace(t *testing.T) {
	t.Parallel()
	// A mention in a channel and a DM. (A streamed answer's buttons are
	// held by TestAStreamedAnswersFeedbackSaysItsWorkspaceUnderAnOrgWide-
	// Install in slackapp.)
	for _, channel := range []string{"C0ORGBGEN", "D0ALICEB"} {
		t.Run(channel, func(t *testing.T) {
			t.Parallel()
			orgWideFeedback(t, channel)
		})
	}
}

func orgWideFeedback(t *testing.T, channel string) {
	b, addr := startMultiBot(t)
	installWorkspace(t, b, addr, fakeslack.Workspace{Enterprise: org, OrgWide: true, Name: "Grid Org"})
	B := gridIn{b, orgTeamB, org, true}
	require.NotEmpty(t, B.ask(alice, channel, "hello"))
	var reply fakeslack.Message
	for _, m := range b.slack.Posted() {
		if m.Channel == channel && m.Team == orgTeamB && strings.Contains(string(m.Blocks), slackapp.ActionFeedback) {
			reply = m
		}
	}
	require.NotEmpty(t, reply.TS, "the reply has feedback buttons")
	// The turn records its reply after posting it: the press waits for
	// that, as a person's would.
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM session_messages WHERE team_id = $1 AND channel_id = $2 AND ts = $3 AND turn_id IS NOT NULL`,
			orgTeamB, channel, reply.TS).Scan(&n))
		return n == 1
	}, 10*time.Second, 10*time.Millisecond, "the reply is recorded as its turn's")
	var blocks []struct {
		Elements []struct {
			PositiveButton struct {
				Value string `json:"value"`
			} `json:"positive_button"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(reply.Blocks, &blocks))
	up := ""
	for _, bl := range blocks {
		for _, e := range bl.Elements {
			up = cmp.Or(up, e.PositiveButton.Value)
		}
	}
	require.NotEmpty(t, up)

	press := b.slack.SendInteractive(map[string]any{
		"type": "block_actions", "team": nil, "enterprise": map[string]any{"id": org, "name": "Grid Org"}, "is_enterprise_install": true,
		"user":       map[string]any{"id": alice, "team_id": orgTeamA},
		"api_app_id": fakeslack.AppID, "trigger_id": "trig", "channel": map[string]any{"id": channel},
		"container": map[string]any{"type": "message", "message_ts": reply.TS, "channel_id": channel, "is_ephemeral": false},
		"message":   map[string]any{"ts": reply.TS, "type": "message"},
		"actions":   []any{map[string]any{"type": "feedback_buttons", "action_id": slackapp.ActionFeedback, "block_id": "mnemo_feedback", "value": up, "action_ts": b.nextTS()}},
	})
	b.slack.WaitAck(press, 5*time.Second)
	require.Eventually(t, func() bool { return b.feedback(channel, reply.TS, alice) == string(db.Positive) }, 10*time.Second, 20*time.Millisecond,
		"the verdict is recorded on B's turn")
}
