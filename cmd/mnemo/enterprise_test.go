package main

import (
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
