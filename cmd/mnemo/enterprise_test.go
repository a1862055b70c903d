package main

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
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
