package install

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/db"
)

// Routes of the install flow, as OAuth serves them.
const (
	InstallPath  = "/slack/install"
	RedirectPath = "/slack/oauth_redirect"
)

// stateCookie binds a state to the browser that asked for it, so a state
// (and the code that comes back with it) can't be replayed from elsewhere.
const stateCookie = "mnemo_oauth_state"

// StateTTL is how long an install link stays good.
const StateTTL = 10 * time.Minute

// exchangeTimeout bounds the oauth.v2.access exchange and the auth.test
// that follows it.
const exchangeTimeout = 15 * time.Second

// OAuth serves the OAuth v2 install flow: GET /slack/install shows an "Add
// to Slack" page, and GET /slack/oauth_redirect checks the signed state,
// exchanges the code (oauth.v2.access), learns the bot's id (auth.test
// with the new token) and stores the installation with its token sealed.
type OAuth struct {
	ClientID, ClientSecret string
	// Scopes are the bot scopes asked for (the manifest's).
	Scopes []string
	// APIURL is the Web API base (SLACK_API_URL); AuthorizeURL is Slack's
	// authorize page, https://slack.com/oauth/v2/authorize unless set.
	APIURL, AuthorizeURL string
	// RedirectURL is sent as redirect_uri when set; else Slack uses the
	// app's only configured redirect URL.
	RedirectURL string
	Keyring     *Keyring
	DB          *db.DB
	// HTTPClient makes the exchange; it must have a timeout.
	HTTPClient *http.Client
	// NewClient makes a Web API client for the new token (auth.test).
	NewClient func(token string) *slack.Client
	// Installed is told of each team installed (to drop a cached bot).
	Installed func(team string)
	Logger    zerolog.Logger
	Now       func() time.Time
}

func (o *OAuth) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// ServeHTTP answers the two routes; anything else is 404.
func (o *OAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case InstallPath:
		o.install(w, r)
	case RedirectPath:
		o.redirect(w, r)
	default:
		http.NotFound(w, r)
	}
}

// install shows the "Add to Slack" page, with a fresh state bound to a
// cookie.
func (o *OAuth) install(w http.ResponseWriter, r *http.Request) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		http.Error(w, "no randomness", http.StatusInternalServerError)
		return
	}
	expires := o.now().Add(StateTTL)
	state := o.sign(nonce, expires)
	http.SetCookie(w, &http.Cookie{
		Name: stateCookie, Value: base64.RawURLEncoding.EncodeToString(nonce), Path: "/slack/",
		Expires: expires, MaxAge: int(StateTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	})
	authorize := o.AuthorizeURL
	if authorize == "" {
		authorize = "https://slack.com/oauth/v2/authorize"
	}
	q := url.Values{"client_id": {o.ClientID}, "scope": {strings.Join(o.Scopes, ",")}, "state": {state}}
	if o.RedirectURL != "" {
		q.Set("redirect_uri", o.RedirectURL)
	}
	page(w, http.StatusOK, "Add mnemo to Slack", "mnemo remembers what you tell it in Slack, and forgets when you ask.", authorize+"?"+q.Encode())
}

// sign makes a state: the nonce and expiry, with an HMAC under a key
// derived from the encryption key.
func (o *OAuth) sign(nonce []byte, expires time.Time) string {
	msg := make([]byte, 0, len(nonce)+8)
	msg = append(msg, nonce...)
	msg = binary.BigEndian.AppendUint64(msg, uint64(expires.Unix()))
	mac := hmac.New(sha256.New, o.Keyring.Derive("oauth state"))
	mac.Write(msg)
	return base64.RawURLEncoding.EncodeToString(msg) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// errState is a state that is missing, forged, expired or not this
// browser's.
var errState = errors.New("the install link is invalid or has expired")

// issued is a state that verify accepted: its nonce and expiry.
type issued struct {
	nonce   []byte
	expires time.Time
}

// checked checks a state's signature, expiry and cookie, and returns it.
func (o *OAuth) checked(r *http.Request, state string) (issued, error) {
	body, sig, ok := strings.Cut(state, ".")
	if !ok {
		return issued{}, errState
	}
	msg, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || len(msg) != 24 {
		return issued{}, errState
	}
	mac := hmac.New(sha256.New, o.Keyring.Derive("oauth state"))
	mac.Write(msg)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return issued{}, errState
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(msg[16:])), 0)
	if o.now().After(expires) {
		return issued{}, fmt.Errorf("%w (expired)", errState)
	}
	c, err := r.Cookie(stateCookie)
	if err != nil {
		return issued{}, fmt.Errorf("%w (no cookie: finish the install in the browser that started it)", errState)
	}
	nonce, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || subtle.ConstantTimeCompare(nonce, msg[:16]) != 1 {
		return issued{}, fmt.Errorf("%w (another browser's)", errState)
	}
	return issued{nonce: msg[:16], expires: expires}, nil
}

// spend records a verified state as used until it expires, on the server:
// a second redirect with it is refused, whatever its cookie says (the
// browser's deletion of the cookie is a courtesy, not the guard).
func (o *OAuth) spend(ctx context.Context, st issued) error {
	h := sha256.Sum256(st.nonce)
	first, err := o.DB.Installations().SpendOAuthState(ctx, h[:], st.expires)
	if err != nil {
		return err
	}
	if !first {
		return fmt.Errorf("%w (already used)", errState)
	}
	return nil
}

// redirect finishes an install.
func (o *OAuth) redirect(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// The cookie is spent whatever happens, and the state on the server
	// once it is verified: a state is good once.
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: "", Path: "/slack/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	st, err := o.checked(r, q.Get("state"))
	if err == nil {
		sctx, cancel := context.WithTimeout(r.Context(), exchangeTimeout)
		err = o.spend(sctx, st)
		cancel()
		if err != nil && !errors.Is(err, errState) {
			o.Logger.Error().Err(err).Msg("oauth state could not be recorded; install refused")
			page(w, http.StatusServiceUnavailable, "mnemo was not installed", "mnemo could not finish the install. Start again.", InstallPath)
			return
		}
	}
	if err != nil {
		o.Logger.Warn().Err(err).Msg("oauth redirect refused")
		page(w, http.StatusBadRequest, "mnemo was not installed", "The install link is invalid or has expired. Start again.", InstallPath)
		return
	}
	if e := q.Get("error"); e != "" {
		o.Logger.Info().Str("error", e).Msg("install cancelled in Slack")
		page(w, http.StatusOK, "mnemo was not installed", "The install was cancelled in Slack.", InstallPath)
		return
	}
	code := q.Get("code")
	if code == "" {
		page(w, http.StatusBadRequest, "mnemo was not installed", "Slack sent no code. Start again.", InstallPath)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), exchangeTimeout)
	defer cancel()
	team, err := o.exchange(ctx, code)
	if err != nil {
		o.Logger.Error().Err(err).Msg("install failed")
		page(w, http.StatusBadGateway, "mnemo was not installed", "Slack did not complete the install. Try again.", InstallPath)
		return
	}
	page(w, http.StatusOK, "mnemo is installed", "mnemo is installed in your workspace ("+team+"). Mention @mnemo in a channel or write to it in a DM.", "")
}

// exchange trades the code for a bot token and stores the installation.
func (o *OAuth) exchange(ctx context.Context, code string) (string, error) {
	opts := []slack.OAuthOption{}
	if o.APIURL != "" {
		opts = append(opts, slack.OAuthOptionAPIURL(o.APIURL))
	}
	resp, err := slack.GetOAuthV2ResponseContext(ctx, o.HTTPClient, o.ClientID, o.ClientSecret, code, o.RedirectURL, opts...)
	if err != nil {
		return "", fmt.Errorf("oauth.v2.access: %w", err)
	}
	if resp.TokenType != "" && resp.TokenType != "bot" || !strings.HasPrefix(resp.AccessToken, "xoxb-") {
		return "", fmt.Errorf("oauth.v2.access returned no bot token (token_type %q)", resp.TokenType)
	}
	team, enterprise := resp.Team.ID, resp.Enterprise.ID
	if resp.IsEnterpriseInstall {
		team = ""
	}
	if team == "" && enterprise == "" {
		return "", errors.New("oauth.v2.access named no team")
	}
	auth, err := o.NewClient(resp.AccessToken).AuthTestContext(ctx)
	if err != nil {
		return "", fmt.Errorf("auth.test with the new token: %w", err)
	}
	owner := team
	if owner == "" {
		owner = enterprise
	}
	sealed, err := o.Keyring.Seal(owner, resp.AccessToken)
	if err != nil {
		return "", err
	}
	inst := db.Installation{Team: team, Enterprise: enterprise, Token: sealed, BotUserID: resp.BotUserID, BotID: auth.BotID,
		Scopes: resp.Scope, InstallerID: resp.AuthedUser.ID}
	if err := o.DB.Installations().Save(ctx, inst); err != nil {
		return "", err
	}
	if o.Installed != nil {
		o.Installed(team)
	}
	o.Logger.Info().Str("team", team).Str("enterprise", enterprise).Str("installer", resp.AuthedUser.ID).Msg("installed")
	if resp.Team.Name != "" {
		return resp.Team.Name, nil
	}
	if resp.Enterprise.Name != "" {
		return resp.Enterprise.Name + ", every workspace of the organisation", nil
	}
	return owner, nil
}

// page writes a small HTML page. It is built with html.EscapeString, not
// html/template: executing any text/template keeps every exported method
// of every type in the binary (the linker cannot tell which one a
// template calls by name), which doubled mnemo's size and, since the
// kernel maps a binary's pages in large folios, its idle RSS. Every value
// below is escaped for its place: the title and text as text, the link in
// a quoted attribute, and a link that is neither http(s) nor a path on
// this server is not drawn.
func page(w http.ResponseWriter, status int, title, text, link string) {
	var b strings.Builder
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>`)
	b.WriteString(html.EscapeString(title))
	b.WriteString(`</title>
<meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;line-height:1.5">
<h1>`)
	b.WriteString(html.EscapeString(title))
	b.WriteString(`</h1><p>`)
	b.WriteString(html.EscapeString(text))
	b.WriteString("</p>\n")
	if safeLink(link) {
		label := "Add to Slack"
		if link == InstallPath {
			label = "Start again"
		}
		b.WriteString(`<p><a id="add" href="`)
		b.WriteString(html.EscapeString(link))
		b.WriteString(`" style="display:inline-block;padding:.6em 1.2em;background:#4a154b;color:#fff;border-radius:6px;text-decoration:none">`)
		b.WriteString(label)
		b.WriteString("</a></p>\n")
	}
	b.WriteString("</body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, b.String())
}

// safeLink says whether link may be drawn as a link: an absolute http(s)
// URL or a path on this server ("/…" but not "//…" or "/\…", which a
// browser reads as another host).
func safeLink(link string) bool {
	if link == "" {
		return false
	}
	if strings.HasPrefix(link, "/") {
		return !strings.HasPrefix(link, "//") && !strings.HasPrefix(link, "/\\")
	}
	u, err := url.Parse(link)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
