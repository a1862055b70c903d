package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Workspace is a workspace that installs the app through OAuth v2: Slack's
// authorize page (/oauth/v2/authorize) approves it for Installer and sends
// the browser back with a code, which oauth.v2.access exchanges for a bot
// token of its own. Calls made with that token act in this workspace:
// auth.test names it, users.info reads its Users, and what is posted,
// reacted, published or uploaded is marked with its Team.
type Workspace struct {
	Team, Name string
	Enterprise string
	// OrgWide installs the app for the whole organisation (Enterprise,
	// with no Team): oauth.v2.access says is_enterprise_install, and its
	// token acts in any workspace of the organisation.
	OrgWide            bool
	Installer          string
	BotUserID, BotID   string
	Users              map[string]User
	ClientID, Secret   string // the app's credentials oauth.v2.access requires
	RedirectURL        string // where authorize sends the browser back
	Token              string // the bot token, once issued
	authorizeRequested url.Values
}

type oauthState struct {
	next     *Workspace           // who approves the next authorize
	codes    map[string]Workspace // code → workspace, until exchanged
	tokens   map[string]Workspace // issued bot token → workspace
	revoked  map[string]bool
	chanTeam map[string]string // channel → the workspace its events came from
	shared   map[string]string // Slack Connect channel → its host workspace
	groupDMs map[string]GroupDM
	n        int
}

// owner is the workspace, or the organisation of an org-wide install.
func (w Workspace) owner() string {
	if w.OrgWide {
		return w.Enterprise
	}
	return w.Team
}

// AuthorizeURL is the fake's authorize page, for the app's
// SLACK_AUTHORIZE_URL.
func (s *Server) AuthorizeURL() string { return s.srv.URL + "/oauth/v2/authorize" }

// ApproveNext makes the next visit to the authorize page install the app in
// w: it redirects to w.RedirectURL (or the request's redirect_uri) with a
// fresh code and the state it was given.
func (s *Server) ApproveNext(w Workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.BotUserID == "" {
		w.BotUserID = "U0BOT" + w.owner()
	}
	if w.BotID == "" {
		w.BotID = "B0BOT" + w.owner()
	}
	if w.Users == nil {
		w.Users = map[string]User{}
	}
	w.Users[w.BotUserID] = User{ID: w.BotUserID, Name: "mnemo", IsBot: true}
	s.oauth.next = &w
}

// authorize is Slack's authorize page, approved at once by the workspace
// ApproveNext named.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	ws := s.oauth.next
	s.oauth.next = nil
	if ws == nil {
		s.mu.Unlock()
		http.Error(w, "fakeslack: no workspace approves this install (ApproveNext)", http.StatusForbidden)
		return
	}
	if q.Get("client_id") == "" || ws.ClientID != "" && q.Get("client_id") != ws.ClientID {
		s.mu.Unlock()
		http.Error(w, "invalid_client_id", http.StatusBadRequest)
		return
	}
	ws.authorizeRequested = q
	s.oauth.n++
	code := fmt.Sprintf("code-%s-%d", ws.owner(), s.oauth.n)
	s.oauth.codes[code] = *ws
	s.mu.Unlock()
	target := ws.RedirectURL
	if ru := q.Get("redirect_uri"); ru != "" {
		target = ru
	}
	back := url.Values{"code": {code}, "state": {q.Get("state")}}
	http.Redirect(w, r, target+"?"+back.Encode(), http.StatusFound)
}

// oauthAccess is oauth.v2.access: a code, once, for a bot token.
func (s *Server) oauthAccess(w http.ResponseWriter, f url.Values) {
	s.mu.Lock()
	ws, ok := s.oauth.codes[f.Get("code")]
	delete(s.oauth.codes, f.Get("code"))
	if ok && (ws.ClientID != "" && f.Get("client_id") != ws.ClientID || ws.Secret != "" && f.Get("client_secret") != ws.Secret) {
		s.mu.Unlock()
		writeJSON(w, map[string]any{"ok": false, "error": "invalid_client"})
		return
	}
	if !ok {
		s.mu.Unlock()
		writeJSON(w, map[string]any{"ok": false, "error": "invalid_code"})
		return
	}
	s.oauth.n++
	ws.Token = fmt.Sprintf("xoxb-%s-%d-fake", strings.ToLower(ws.owner()), s.oauth.n)
	s.oauth.tokens[ws.Token] = ws
	scope := ws.authorizeRequested.Get("scope")
	s.mu.Unlock()
	var team, enterprise any
	if !ws.OrgWide {
		team = map[string]any{"id": ws.Team, "name": ws.Name}
	}
	if ws.Enterprise != "" {
		enterprise = map[string]any{"id": ws.Enterprise, "name": ws.Name}
	}
	writeJSON(w, map[string]any{
		"ok": true, "access_token": ws.Token, "token_type": "bot", "scope": scope, "bot_user_id": ws.BotUserID,
		"app_id": AppID, "team": team, "enterprise": enterprise, "is_enterprise_install": ws.OrgWide,
		"authed_user": map[string]any{"id": ws.Installer},
	})
}

// Installed returns the workspace a bot token was issued to, or the
// organisation (by its enterprise id) of an org-wide one.
func (s *Server) Installed(team string) (Workspace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ws := range s.oauth.tokens {
		if ws.owner() == team && !s.oauth.revoked[ws.Token] {
			return ws, true
		}
	}
	return Workspace{}, false
}

// Revoke makes Slack refuse every token issued to team, or to an
// organisation by its enterprise id (token_revoked), as it does once the
// app is uninstalled.
func (s *Server) Revoke(team string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for tok, ws := range s.oauth.tokens {
		if ws.owner() == team {
			s.oauth.revoked[tok] = true
		}
	}
}

// hkey is the history key of a channel in a workspace: the channel alone
// in the default one, so that tests of one workspace read as before.
func hkey(team, channel string) string {
	if team == "" || team == TeamID {
		return channel
	}
	return team + "/" + channel
}

// WaitTeamView waits for a views.publish for user made with team's token.
func (s *Server) WaitTeamView(team, user string, timeout time.Duration, pred func(json.RawMessage) bool) json.RawMessage {
	return s.WaitView(team+"/"+user, timeout, pred)
}

// ShareChannel makes channel, hosted by workspace host, a Slack Connect
// channel: conversations.info says is_ext_shared, with its host.
func (s *Server) ShareChannel(channel, host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oauth.shared[channel] = host
	s.oauth.chanTeam[channel] = host
}

// GroupDM is a group DM (a multi-person DM, mpim) of Members, the bot
// among them: conversations.info says is_mpim, and conversations.members
// lists them. Through Slack Connect a person of another organisation can
// be a member; conversations.info says is_ext_shared only when ExtShared,
// since Slack's reference does not say it sets it for a group DM.
type GroupDM struct {
	Channel   string
	Members   []string
	ExtShared bool
}

// AddGroupDM makes g.Channel a group DM.
func (s *Server) AddGroupDM(g GroupDM) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oauth.groupDMs[g.Channel] = g
}
