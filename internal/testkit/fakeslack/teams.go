package fakeslack

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// SetOrgTeams sets the workspaces an organisation's org-wide installation
// is on now, as auth.teams.list lists them for its token (none until
// set): what the last team_access_revoked or team_access_granted for
// each left, on Slack's side.
func (s *Server) SetOrgTeams(enterprise string, teams ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.orgTeams == nil {
		s.orgTeams = map[string][]string{}
	}
	s.orgTeams[enterprise] = slices.Sorted(slices.Values(teams))
}

// teamsAPI answers auth.teams.list, and reports whether method was it: for
// an org-wide token, the workspaces SetOrgTeams gave its organisation; for
// a workspace's token, that workspace. Pages of limit (at most 1000,
// default 100) follow next_cursor, as Slack's do.
func (s *Server) teamsAPI(w http.ResponseWriter, method string, f url.Values, token string) bool {
	if method != "auth.teams.list" {
		return false
	}
	s.mu.Lock()
	ws, issued := s.oauth.tokens[token]
	teams := []string{TeamID}
	switch {
	case issued && ws.OrgWide:
		teams = slices.Clone(s.orgTeams[ws.Enterprise])
	case issued:
		teams = []string{ws.Team}
	}
	s.mu.Unlock()
	limit := 100
	if l := f.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n <= 0 || n > 1000 {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_limit"})
			return true
		}
		limit = n
	}
	from := 0
	if c := f.Get("cursor"); c != "" {
		b, err := base64.StdEncoding.DecodeString(c)
		n, aerr := strconv.Atoi(string(b))
		if err != nil || aerr != nil || n < 0 || n > len(teams) {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_cursor"})
			return true
		}
		from = n
	}
	to := min(from+limit, len(teams))
	next := ""
	if to < len(teams) {
		next = base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(to)))
	}
	page := make([]map[string]any, 0, to-from)
	for _, t := range teams[from:to] {
		page = append(page, map[string]any{"id": t, "name": "Workspace " + t})
	}
	writeJSON(w, map[string]any{"ok": true, "teams": page, "response_metadata": map[string]any{"next_cursor": next}})
	return true
}
