package install

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A state is good for StateTTL, in the browser it was given to, with its
// signature intact.
func TestOAuthStateExpiresAndIsBoundToItsBrowser(t *testing.T) {
	t.Parallel()
	keys, err := ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(t, err)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	o := &OAuth{ClientID: "1.2", Keyring: keys, Now: func() time.Time { return now }}

	rec := httptest.NewRecorder()
	o.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, InstallPath, nil))
	require.Equal(t, http.StatusOK, rec.Code)
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 1)
	require.True(t, cookies[0].HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, cookies[0].SameSite)
	body := rec.Body.String()
	i := strings.Index(body, "state=")
	require.Positive(t, i)
	state := body[i+len("state="):]
	state = state[:strings.IndexAny(state, "&\"")]

	req := func(withCookie bool) *http.Request {
		r := httptest.NewRequest(http.MethodGet, RedirectPath, nil)
		if withCookie {
			r.AddCookie(cookies[0])
		}
		return r
	}
	require.NoError(t, o.verify(req(true), state), "the control: its browser, in time")
	require.ErrorIs(t, o.verify(req(false), state), errState)
	require.ErrorIs(t, o.verify(req(true), "x"+state), errState)

	now = now.Add(StateTTL - time.Second)
	require.NoError(t, o.verify(req(true), state))
	now = now.Add(2 * time.Second)
	require.ErrorContains(t, o.verify(req(true), state), "expired")

	other, err := ParseKeyring(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32))))
	require.NoError(t, err)
	now = now.Add(-time.Minute)
	require.ErrorIs(t, (&OAuth{Keyring: other, Now: o.Now}).verify(req(true), state), errState, "another key's signature")
}

// verify is checked, for the tests that need only its verdict.
func (o *OAuth) verify(r *http.Request, state string) error {
	_, err := o.checked(r, state)
	return err
}

// A page shows a workspace's name, which its admins choose, as text: markup
// in it is escaped, not drawn. Its link is drawn only to an http(s) URL or
// a path on this server, escaped for its attribute.
func TestPageEscapesWhatItShows(t *testing.T) {
	t.Parallel()
	show := func(text, link string) string {
		rec := httptest.NewRecorder()
		page(rec, http.StatusOK, "mnemo is installed", text, link)
		require.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
		return rec.Body.String()
	}
	body := show(`Installed in <script>alert("x")</script> & co`, "https://slack.com/oauth/v2/authorize?client_id=1.2&state=a\"b")
	require.Contains(t, body, `Installed in &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co`)
	require.NotContains(t, body, "<script>")
	require.Contains(t, body, `href="https://slack.com/oauth/v2/authorize?client_id=1.2&amp;state=a&#34;b"`)
	require.Contains(t, body, ">Add to Slack</a>")

	require.Contains(t, show("x", InstallPath), `href="/slack/install"`)
	require.Contains(t, show("x", InstallPath), ">Start again</a>")
	for _, bad := range []string{"javascript:alert(1)", "//evil.example/x", `/\evil.example/x`, "data:text/html,x", ""} {
		require.NotContains(t, show("x", bad), "<a ", "no link to %q", bad)
	}
}
