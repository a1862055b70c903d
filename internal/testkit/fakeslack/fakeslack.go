// Package fakeslack is a local Slack for tests: the Web API methods mnemo
// calls, over HTTP as slack-go sends them, and the Socket Mode websocket with
// hello, events_api, slash_commands, interactive and disconnect envelopes,
// to one connection or to all of them (two replicas), or, after DeliverHTTP,
// the same deliveries as signed POSTs to the app's request URLs (http.go). Like Slack, it can
// deliver an envelope again when it is not acked in time, and it keeps
// message metadata for conversations.replies. It records acks (and when
// they came), posted messages, reactions and every API call.
package fakeslack

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
)

// Fixed identities of the fake workspace.
const (
	TeamID    = "T0TEAM"
	BotUserID = "U0MNEMO"
	BotID     = "B0MNEMO"
	AppID     = "A0MNEMO"
)

// Message is a message the bot posted, or one seeded into a channel.
type Message struct {
	Channel  string          `json:"channel"`
	TS       string          `json:"ts"`
	ThreadTS string          `json:"thread_ts,omitempty"`
	User     string          `json:"user,omitempty"`
	BotID    string          `json:"bot_id,omitempty"`
	Text     string          `json:"text"`
	Blocks   json.RawMessage `json:"blocks,omitempty"`
	// Metadata is the message's metadata, as chat.postMessage took it;
	// conversations.replies returns it only with include_all_metadata.
	Metadata  json.RawMessage `json:"-"`
	Ephemeral bool            `json:"-"`
	Target    string          `json:"-"` // ephemeral recipient
	Updated   bool            `json:"-"`
	// Response marks an answer through a response_url; Replace, one that
	// replaces the message it answers.
	Response bool `json:"-"`
	Replace  bool `json:"-"`
	// Envelope is the slash command's envelope a response_url answer is for.
	Envelope string `json:"-"`
	// At is when the fake took the call that posted or updated it.
	At time.Time `json:"-"`
	// Team is the workspace whose token posted it (TeamID for the default
	// token), or a seeded message's.
	Team string `json:"-"`
}

// Reaction is a reactions.add or reactions.remove call.
type Reaction struct {
	Op, Channel, TS, Name string
	Team                  string // the workspace whose token made it
}

// User is a workspace member, for users.info.
type User struct {
	ID      string
	Name    string
	IsAdmin bool
	IsOwner bool
	IsBot   bool
	// Team is the user's own workspace, when it is not the one asked
	// (a member of another organisation, in a Slack Connect channel).
	Team string
	// Enterprise is the Enterprise Grid organisation the user belongs to:
	// users.info then says so in its enterprise_user.
	Enterprise string
}

// Call is one Web API request.
type Call struct {
	Method string
	Form   url.Values
	JSON   map[string]any
	Token  string
	// Team is the workspace the token belongs to: TeamID for any token the
	// fake did not issue through oauth.v2.access.
	Team string
}

// File is an uploaded file.
type File struct {
	Name, Channel, Title string
	Content              []byte
	Team                 string // the workspace whose token uploaded it
}

// Server is a running fake Slack.
type Server struct {
	URL    string // Web API base, ends with "/api/"
	t      harness.TB
	srv    *httptest.Server
	upgrad websocket.Upgrader

	mu        sync.Mutex
	cond      *sync.Cond
	conns     []*websocket.Conn
	writeMu   sync.Mutex
	acks      map[string]json.RawMessage
	posted    []Message
	history   map[string][]Message // channel → messages
	reactions []Reaction
	users     map[string]User
	calls     []Call
	views     map[string]json.RawMessage // user → published home view
	files     []File
	uploads   map[string]*File
	nextTS    int64
	nextEnv   int
	opens     int
	failNext  map[string]string
	failing   map[string]string // method → error code of every call, until cleared
	holding   bool
	limited   map[string]int
	streams   []*Stream         // assistant.go
	limitWait map[string]string // method → Retry-After of its 429s
	statusN   map[string]int    // method → calls left to answer with statusOf
	statusOf  map[string]int    // method → the HTTP status of FailStatus
	sentAt    map[string]time.Time
	ackedAt   map[string]time.Time
	redeliver []time.Duration // waits before each redelivery of an unacked envelope
	delivered map[string]int  // event id → envelopes sent for it
	closed    chan struct{}
	refuseWS  int             // RefuseSocket's HTTP status, or 0
	hang      map[string]bool // methods whose calls are never answered
	hung      int             // calls waiting on a hung method now

	// HTTP delivery (http.go): the app's base URL, its signing secret,
	// the client that posts, and the app's answers by envelope.
	appURL, secret string
	client         *http.Client
	answers        map[string]Answer
	httpWG         sync.WaitGroup
	oauth          oauthState          // oauth.go
	orgTeams       map[string][]string // teams.go
}

// New starts a fake Slack and stops it when t ends.
func New(t harness.TB) *Server {
	s := &Server{
		t: t, acks: map[string]json.RawMessage{}, history: map[string][]Message{},
		users: map[string]User{}, views: map[string]json.RawMessage{}, uploads: map[string]*File{}, limited: map[string]int{},
		nextTS: 1800000000, failNext: map[string]string{}, failing: map[string]string{}, limitWait: map[string]string{},
		statusN: map[string]int{}, statusOf: map[string]int{},
		sentAt: map[string]time.Time{}, ackedAt: map[string]time.Time{}, delivered: map[string]int{}, closed: make(chan struct{}),
		hang: map[string]bool{}, answers: map[string]Answer{},
	}
	s.cond = sync.NewCond(&s.mu)
	// slack-go dials with the Origin Slack's own servers expect.
	s.upgrad.CheckOrigin = func(r *http.Request) bool { return r.Header.Get("Origin") == "https://api.slack.com" }
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.api)
	mux.HandleFunc("/ws", s.ws)
	mux.HandleFunc("/upload/", s.upload)
	mux.HandleFunc("/response", s.response)
	mux.HandleFunc("/oauth/v2/authorize", s.authorize)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/api/"
	t.Cleanup(func() {
		close(s.closed)
		s.mu.Lock()
		s.holding = false // a held post must not keep the server from closing
		s.cond.Broadcast()
		for _, c := range s.conns {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.httpWG.Wait() // each request ends within HTTPAckTimeout
		s.srv.Close()
	})
	s.users[BotUserID] = User{ID: BotUserID, Name: "mnemo", IsBot: true}
	s.oauth = oauthState{tokens: map[string]Workspace{}, codes: map[string]Workspace{}, revoked: map[string]bool{}, chanTeam: map[string]string{}, shared: map[string]string{}, groupDMs: map[string]GroupDM{}}
	return s
}

// AddUser adds a member for users.info.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[u.ID] = u
}

// Seed puts a message into a channel's history (for conversations.replies).
func (s *Server) Seed(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := hkey(m.Team, m.Channel)
	s.history[k] = append(s.history[k], m)
}

// RateLimit makes the next n calls of method answer 429 with Retry-After: 1,
// as Slack does when a method's rate limit is hit.
func (s *Server) RateLimit(method string, n int) { s.RateLimitFor(method, n, 1) }

// RateLimitFor is RateLimit with Retry-After: seconds.
func (s *Server) RateLimitFor(method string, n, seconds int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited[method] = n
	s.limitWait[method] = fmt.Sprint(seconds)
}

// FailStatus makes the next n calls of method answer with HTTP status (a
// 5xx, as Slack's edge does when it fails) and no body.
func (s *Server) FailStatus(method string, status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statusN[method] = n
	s.statusOf[method] = status
}

// Redeliver makes the server deliver an events_api envelope again, as
// Slack does, when it is not acked: after each wait in turn, as long as it
// is still not acked, a new envelope with the same event and a higher
// retry_attempt. Slack itself retries about 3 times over a few minutes.
func (s *Server) Redeliver(waits ...time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redeliver = waits
}

// HoldPosts makes chat.postMessage wait until ReleasePosts, so several
// posts reach the bot before any reply lands (a batched mention).
func (s *Server) HoldPosts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holding = true
}

// ReleasePosts lets held posts through.
func (s *Server) ReleasePosts() {
	s.mu.Lock()
	s.holding = false
	s.mu.Unlock()
	s.cond.Broadcast()
}

// Hang makes every later call of the methods wait without an answer, as a
// Slack that accepted the connection and never replied: until the caller
// gives up or the server closes.
func (s *Server) Hang(methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range methods {
		s.hang[m] = true
	}
}

// WaitHung waits until at least n calls are waiting on hung methods.
func (s *Server) WaitHung(n int, timeout time.Duration) {
	s.waitFor(timeout, fmt.Sprintf("%d hung calls", n), func() bool { return s.hung >= n })
}

// FailNext makes the next call of method answer {"ok":false,"error":code}.
func (s *Server) FailNext(method, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext[method] = code
}

// Fail makes every call of method answer {"ok":false,"error":code} until
// it is called again with an empty code.
func (s *Server) Fail(method, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == "" {
		delete(s.failing, method)
		return
	}
	s.failing[method] = code
}

func (s *Server) ts() string {
	s.nextTS++
	return fmt.Sprintf("%d.%06d", s.nextTS, 100)
}

// NextTS hands out a fresh, valid message ts from the same clock as the
// bot's own posts, so a thread's messages sort as they were sent.
func (s *Server) NextTS() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextTS++
	return fmt.Sprintf("%d.%06d", s.nextTS, 200)
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	call := Call{Method: method, Token: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}
	body, _ := io.ReadAll(r.Body)
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(body, &call.JSON)
		call.Form = url.Values{}
		for k, v := range call.JSON {
			switch x := v.(type) {
			case string:
				call.Form.Set(k, x)
			default:
				b, _ := json.Marshal(x)
				call.Form.Set(k, string(b))
			}
		}
	} else {
		call.Form, _ = url.ParseQuery(string(body))
		for k, v := range r.URL.Query() {
			call.Form[k] = v
		}
	}
	if call.Token == "" {
		call.Token = call.Form.Get("token")
	}
	s.mu.Lock()
	ws, issued := s.oauth.tokens[call.Token]
	call.Team = TeamID
	if issued {
		call.Team = ws.Team
		if ws.OrgWide {
			// An org-wide token acts in the workspace of the channel it
			// names (the one the event came from), or the user's.
			call.Team = s.oauth.chanTeam[call.Form.Get("channel")]
			if u, ok := ws.Users[call.Form.Get("user")]; ok && call.Team == "" {
				call.Team = u.Team
			}
		}
	}
	revoked := s.oauth.revoked[call.Token]
	s.calls = append(s.calls, call)
	code, fail := s.failNext[method]
	delete(s.failNext, method)
	if c, ok := s.failing[method]; ok && !fail {
		code, fail = c, true
	}
	limited := s.limited[method] > 0
	if limited {
		s.limited[method]--
	}
	status := 0
	if s.statusN[method] > 0 {
		s.statusN[method]--
		status = s.statusOf[method]
	}
	hang := s.hang[method]
	if hang {
		s.hung++
	}
	s.mu.Unlock()
	s.cond.Broadcast()
	if hang {
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		s.mu.Lock()
		s.hung--
		s.mu.Unlock()
		return
	}
	if limited {
		s.mu.Lock()
		wait := s.limitWait[method]
		s.mu.Unlock()
		if wait == "" {
			wait = "1"
		}
		w.Header().Set("Retry-After", wait)
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		return
	}
	if fail {
		writeJSON(w, map[string]any{"ok": false, "error": code})
		return
	}
	if revoked {
		writeJSON(w, map[string]any{"ok": false, "error": "token_revoked"})
		return
	}
	f, team := call.Form, call.Team
	switch method {
	case "auth.test":
		if issued {
			writeJSON(w, map[string]any{"ok": true, "url": "https://" + strings.ToLower(ws.Team) + ".slack.com/", "team": ws.Name, "user": "mnemo", "team_id": ws.Team, "user_id": ws.BotUserID, "bot_id": ws.BotID})
			return
		}
		writeJSON(w, map[string]any{"ok": true, "url": "https://fake.slack.com/", "team": "Fake", "user": "mnemo", "team_id": TeamID, "user_id": BotUserID, "bot_id": BotID})
	case "oauth.v2.access":
		s.oauthAccess(w, f)
	case "apps.connections.open":
		s.mu.Lock()
		s.opens++
		s.mu.Unlock()
		writeJSON(w, map[string]any{"ok": true, "url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws"})
	case "chat.postMessage", "chat.postEphemeral":
		s.mu.Lock()
		for s.holding {
			s.cond.Wait()
		}
		m := Message{Channel: f.Get("channel"), TS: s.ts(), ThreadTS: f.Get("thread_ts"), User: BotUserID, BotID: BotID, Text: f.Get("text"), Blocks: json.RawMessage(f.Get("blocks")), At: time.Now(), Team: team}
		if issued {
			m.User, m.BotID = ws.BotUserID, ws.BotID
		}
		if md := f.Get("metadata"); md != "" {
			m.Metadata = json.RawMessage(md)
		}
		if method == "chat.postEphemeral" {
			m.Ephemeral, m.Target = true, f.Get("user")
		} else {
			s.history[hkey(team, m.Channel)] = append(s.history[hkey(team, m.Channel)], m)
		}
		s.posted = append(s.posted, m)
		s.mu.Unlock()
		s.cond.Broadcast()
		if m.Ephemeral {
			writeJSON(w, map[string]any{"ok": true, "message_ts": m.TS})
			return
		}
		writeJSON(w, map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "message": m})
	case "chat.update":
		s.mu.Lock()
		m := Message{Channel: f.Get("channel"), TS: f.Get("ts"), Text: f.Get("text"), Blocks: json.RawMessage(f.Get("blocks")), Updated: true, At: time.Now(), Team: team}
		if md := f.Get("metadata"); md != "" {
			// As Slack: metadata given with an update replaces the
			// message's (in its history; the update itself, among the
			// posts, carries none, as before).
			s.setMetadataLocked(team, m.Channel, m.TS, json.RawMessage(md))
		}
		s.posted = append(s.posted, m)
		s.mu.Unlock()
		s.cond.Broadcast()
		writeJSON(w, map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS})
	case "reactions.add", "reactions.remove":
		s.mu.Lock()
		s.reactions = append(s.reactions, Reaction{Op: strings.TrimPrefix(method, "reactions."), Channel: f.Get("channel"), TS: f.Get("timestamp"), Name: f.Get("name"), Team: team})
		s.mu.Unlock()
		s.cond.Broadcast()
		writeJSON(w, map[string]any{"ok": true})
	case "users.info":
		s.mu.Lock()
		u, ok := s.users[f.Get("user")]
		if issued {
			u, ok = ws.Users[f.Get("user")]
		}
		s.mu.Unlock()
		if !ok {
			writeJSON(w, map[string]any{"ok": false, "error": "user_not_found"})
			return
		}
		if u.Team != "" {
			team = u.Team
		}
		user := map[string]any{
			"id": u.ID, "team_id": team, "name": strings.ToLower(u.Name), "real_name": u.Name,
			"is_admin": u.IsAdmin, "is_owner": u.IsOwner, "is_bot": u.IsBot,
			"profile": map[string]any{"display_name": u.Name, "real_name": u.Name},
		}
		if u.Enterprise != "" {
			user["enterprise_user"] = map[string]any{"id": u.ID, "enterprise_id": u.Enterprise, "teams": []string{team}}
		}
		writeJSON(w, map[string]any{"ok": true, "user": user})
	case "conversations.replies":
		s.mu.Lock()
		msgs := s.thread(hkey(team, f.Get("channel")), f.Get("ts"), f.Get("oldest"), f.Get("latest"), f.Get("inclusive") == "1" || f.Get("inclusive") == "true")
		s.mu.Unlock()
		withMetadata := f.Get("include_all_metadata") == "1" || f.Get("include_all_metadata") == "true"
		page, next, err := paginate(msgs, f.Get("cursor"), f.Get("limit"))
		if err != nil {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_cursor"})
			return
		}
		out := make([]map[string]any, 0, len(page))
		for _, m := range page {
			b, _ := json.Marshal(m)
			var o map[string]any
			_ = json.Unmarshal(b, &o)
			if withMetadata && m.Metadata != nil {
				o["metadata"] = m.Metadata
			}
			out = append(out, o)
		}
		writeJSON(w, map[string]any{"ok": true, "messages": out, "has_more": next != "", "response_metadata": map[string]any{"next_cursor": next}})
	case "conversations.info":
		id := f.Get("channel")
		s.mu.Lock()
		host, shared := s.oauth.shared[id]
		g, mpim := s.oauth.groupDMs[id]
		s.mu.Unlock()
		ch := map[string]any{"id": id, "name": strings.ToLower(id), "is_channel": strings.HasPrefix(id, "C"),
			"is_private": strings.HasPrefix(id, "G"), "is_im": strings.HasPrefix(id, "D"), "is_mpim": false,
			"is_ext_shared": shared, "is_shared": shared}
		if shared {
			ch["context_team_id"], ch["conversation_host_id"] = host, host
		}
		if mpim {
			// As Slack describes a group DM: a private conversation, no
			// channel and no group, named after its members.
			ch["name"] = "mpdm-" + strings.ToLower(strings.Join(g.Members, "--")) + "-1"
			ch["is_channel"], ch["is_group"], ch["is_private"], ch["is_mpim"] = false, false, true, true
			ch["is_ext_shared"], ch["is_shared"] = g.ExtShared, g.ExtShared
			ch["context_team_id"] = team
		}
		writeJSON(w, map[string]any{"ok": true, "channel": ch})
	case "conversations.members":
		s.mu.Lock()
		g, ok := s.oauth.groupDMs[f.Get("channel")]
		s.mu.Unlock()
		if !ok {
			writeJSON(w, map[string]any{"ok": false, "error": "channel_not_found"})
			return
		}
		writeJSON(w, map[string]any{"ok": true, "members": g.Members, "response_metadata": map[string]any{"next_cursor": ""}})
	case "conversations.open":
		writeJSON(w, map[string]any{"ok": true, "channel": map[string]any{"id": "D" + strings.TrimPrefix(f.Get("users"), "U")}})
	case "views.publish":
		s.mu.Lock()
		s.views[f.Get("user_id")] = json.RawMessage(f.Get("view"))
		s.views[team+"/"+f.Get("user_id")] = json.RawMessage(f.Get("view"))
		s.mu.Unlock()
		s.cond.Broadcast()
		writeJSON(w, map[string]any{"ok": true, "view": map[string]any{"id": "V1"}})
	case "files.getUploadURLExternal":
		s.mu.Lock()
		id := fmt.Sprintf("F%d", len(s.uploads)+1)
		s.uploads[id] = &File{Name: f.Get("filename")}
		s.mu.Unlock()
		writeJSON(w, map[string]any{"ok": true, "upload_url": s.srv.URL + "/upload/" + id, "file_id": id})
	case "files.completeUploadExternal":
		var files []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		}
		_ = json.Unmarshal([]byte(f.Get("files")), &files)
		s.mu.Lock()
		var done []any
		for _, fl := range files {
			if up := s.uploads[fl.ID]; up != nil {
				up.Channel, up.Title, up.Team = f.Get("channel_id"), fl.Title, team
				s.files = append(s.files, *up)
				done = append(done, map[string]any{"id": fl.ID, "title": fl.Title})
			}
		}
		s.mu.Unlock()
		s.cond.Broadcast()
		writeJSON(w, map[string]any{"ok": true, "files": done})
	default:
		if !s.assistantAPI(w, method, f, team) && !s.teamsAPI(w, method, f, call.Token) {
			writeJSON(w, map[string]any{"ok": false, "error": "unknown_method"})
		}
	}
}

// thread is a thread's messages, root first and then oldest first, within
// oldest and latest (exclusive unless inclusive), as conversations.replies
// selects them. The caller holds s.mu.
func (s *Server) thread(channel, root, oldest, latest string, inclusive bool) []Message {
	var msgs []Message
	for _, m := range s.history[channel] {
		if m.TS != root && m.ThreadTS != root {
			continue
		}
		if oldest != "" && (tsLess(m.TS, oldest) || (!inclusive && m.TS == oldest)) {
			continue
		}
		if latest != "" && (tsLess(latest, m.TS) || (!inclusive && m.TS == latest)) {
			continue
		}
		msgs = append(msgs, m)
	}
	sort.SliceStable(msgs, func(i, j int) bool { return tsLess(msgs[i].TS, msgs[j].TS) })
	return msgs
}

// paginate cuts msgs as Slack's cursor pagination does: at most limit
// (default and most 1000) from the message the cursor names, and the
// cursor of the next page, or "" on the last.
func paginate(msgs []Message, cursor, limit string) ([]Message, string, error) {
	n, err := strconv.Atoi(limit)
	if err != nil || n <= 0 || n > 1000 {
		n = 1000
	}
	from := 0
	if cursor != "" {
		b, err := base64.StdEncoding.DecodeString(cursor)
		ts, ok := strings.CutPrefix(string(b), "next_ts:")
		if err != nil || !ok {
			return nil, "", fmt.Errorf("bad cursor %q", cursor)
		}
		from = sort.Search(len(msgs), func(i int) bool { return !tsLess(msgs[i].TS, ts) })
	}
	to := min(from+n, len(msgs))
	if to == len(msgs) {
		return msgs[from:to], "", nil
	}
	return msgs[from:to], base64.StdEncoding.EncodeToString([]byte("next_ts:" + msgs[to].TS)), nil
}

// tsLess orders Slack timestamps by time: seconds, then the fraction.
func tsLess(a, b string) bool {
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	if len(as) != len(bs) {
		return len(as) < len(bs)
	}
	if as != bs {
		return as < bs
	}
	return af < bf
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/upload/")
	var content []byte
	if mr, err := r.MultipartReader(); err == nil {
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			content = append(content, b...)
		}
	} else {
		content, _ = io.ReadAll(r.Body)
	}
	s.mu.Lock()
	if up := s.uploads[id]; up != nil {
		up.Content = content
	}
	s.mu.Unlock()
	w.WriteHeader(200)
	_, _ = w.Write([]byte("OK - " + fmt.Sprint(len(content))))
}

// response takes a POST to a response_url, as Slack does for slash
// commands and interactions.
func (s *Server) response(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.posted = append(s.posted, Message{Channel: "response_url", Text: body.Text, Blocks: body.Blocks, Ephemeral: body.ResponseType != "in_channel", Response: true, Replace: body.ReplaceOriginal, Envelope: r.URL.Query().Get("envelope"), At: time.Now()})
	s.mu.Unlock()
	s.cond.Broadcast()
	_, _ = w.Write([]byte("ok"))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// --- Socket Mode ---

// RefuseSocket makes the Socket Mode websocket answer every handshake with
// status (401, 403), as Slack does for a connection it will not take.
func (s *Server) RefuseSocket(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseWS = status
}

func (s *Server) ws(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	refuse := s.refuseWS
	s.mu.Unlock()
	if refuse != 0 {
		http.Error(w, http.StatusText(refuse), refuse)
		return
	}
	c, err := s.upgrad.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	s.write(c, map[string]any{"type": "hello", "num_connections": 1, "connection_info": map[string]any{"app_id": AppID}, "debug_info": map[string]any{"host": "fake", "approximate_connection_time": 3600}})
	done := make(chan struct{})
	go func() { // Slack pings; slack-go treats a silent server as dead.
		tk := time.NewTicker(500 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				s.writeMu.Lock()
				err := c.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(time.Second))
				s.writeMu.Unlock()
				if err != nil {
					return
				}
			}
		}
	}()
	defer close(done)
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			s.mu.Lock()
			for i, x := range s.conns {
				if x == c {
					s.conns = append(s.conns[:i], s.conns[i+1:]...)
					break
				}
			}
			s.mu.Unlock()
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &ack) == nil && ack.EnvelopeID != "" {
			s.mu.Lock()
			s.acks[ack.EnvelopeID] = ack.Payload
			if _, ok := s.ackedAt[ack.EnvelopeID]; !ok {
				s.ackedAt[ack.EnvelopeID] = time.Now()
			}
			s.mu.Unlock()
			s.cond.Broadcast()
		}
	}
}

func (s *Server) write(c *websocket.Conn, v any) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_ = c.WriteJSON(v)
}

// WaitConnected waits until the bot has a Socket Mode connection; over
// HTTP, where the fake connects to the bot, it returns at once.
func (s *Server) WaitConnected(timeout time.Duration) {
	s.t.Helper()
	s.waitFor(timeout, "a socket mode connection", func() bool { return s.appURL != "" || len(s.conns) > 0 })
}

// WaitConnections waits until the bot (or its replicas) holds n Socket
// Mode connections.
func (s *Server) WaitConnections(n int, timeout time.Duration) {
	s.t.Helper()
	s.waitFor(timeout, fmt.Sprintf("%d socket mode connections", n), func() bool { return len(s.conns) >= n })
}

// Connections counts the open Socket Mode connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Target says which connections an envelope goes to.
type Target int

const (
	// Newest is the most recent connection: the default.
	Newest Target = 0
	// All sends the envelope to every open connection, as two replicas can
	// both receive one when Slack retries it on another connection.
	All Target = -1
)

// Conn targets the n-th open connection, counted from 1 in the order they
// connected.
func Conn(n int) Target { return Target(n) }

// SendRaw writes one raw frame to the bot's newest connection.
func (s *Server) SendRaw(frame []byte) {
	s.t.Helper()
	s.SendRawTo(Newest, frame)
}

// SendRawTo writes one raw frame to the target connections.
func (s *Server) SendRawTo(to Target, frame []byte) {
	s.t.Helper()
	s.WaitConnected(10 * time.Second)
	if !s.writeTo(to, frame) {
		s.t.Fatalf("fakeslack: no connection %d to write to", to)
	}
}

// writeTo writes frame to the target connections and reports whether any
// took it.
func (s *Server) writeTo(to Target, frame []byte) bool {
	s.mu.Lock()
	var targets []*websocket.Conn
	switch {
	case to == All:
		targets = append(targets, s.conns...)
	case to == Newest && len(s.conns) > 0:
		targets = append(targets, s.conns[len(s.conns)-1])
	case int(to) >= 1 && int(to) <= len(s.conns):
		targets = append(targets, s.conns[int(to)-1])
	}
	s.mu.Unlock()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	wrote := false
	for _, c := range targets {
		if err := c.WriteMessage(websocket.TextMessage, frame); err == nil {
			wrote = true
		}
	}
	return wrote
}

func (s *Server) envelope() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextEnv++
	return fmt.Sprintf("env-%04d", s.nextEnv)
}

// EventOptions tunes an events_api envelope.
type EventOptions struct {
	EventID      string
	RetryAttempt int
	EnvelopeID   string
	// To chooses the connections it goes to (default the newest).
	To Target
	// Team is the envelope's team_id (default TeamID).
	Team string
	// EventTime is the envelope's event_time (default now).
	EventTime time.Time
	// Enterprise is the envelope's enterprise_id, for a workspace of an
	// Enterprise Grid organisation.
	Enterprise string
	// Authorizations name the installation the event is delivered for, as
	// Slack's envelope does (default: one, the bot of Team, or of the
	// organisation when OrgWide).
	Authorizations []slack.EventAuthorization
	// OrgWide: the default authorization is the organisation's org-wide
	// installation (is_enterprise_install, no team_id).
	OrgWide bool
	// ExtShared sets is_ext_shared_channel: a Slack Connect channel.
	ExtShared bool
	// ContextTeam and ContextEnterprise are the envelope's context_team_id
	// and context_enterprise_id: the workspace and organisation through
	// which the app receives the event (default: the authorization's
	// workspace, else Team; and Enterprise).
	ContextTeam, ContextEnterprise string
}

// callback is the event_callback payload Slack sends for event, over
// either transport.
func (s *Server) callback(event map[string]any, o EventOptions) map[string]any {
	team := o.Team
	if team == "" {
		team = TeamID
	}
	at := o.EventTime
	if at.IsZero() {
		at = time.Now()
	}
	if ch, ok := event["channel"].(string); ok {
		s.mu.Lock()
		if _, known := s.oauth.chanTeam[ch]; !known {
			s.oauth.chanTeam[ch] = team
		}
		s.mu.Unlock()
	}
	auths := o.Authorizations
	if auths == nil {
		owner := team
		if o.OrgWide {
			owner = o.Enterprise
		}
		a := slack.EventAuthorization{EnterpriseID: o.Enterprise, TeamID: team, UserID: s.botUserOf(owner), IsBot: true}
		if o.OrgWide {
			a.TeamID, a.IsEnterpriseInstall = "", true
		}
		auths = []slack.EventAuthorization{a}
	}
	ctxTeam, ctxEnterprise := o.ContextTeam, o.ContextEnterprise
	if ctxTeam == "" {
		ctxTeam = team
		if len(auths) > 0 && auths[0].TeamID != "" {
			ctxTeam = auths[0].TeamID
		}
	}
	if ctxEnterprise == "" {
		ctxEnterprise = o.Enterprise
	}
	p := map[string]any{
		"token": "legacy", "team_id": team, "api_app_id": AppID, "type": "event_callback",
		"event_id": o.EventID, "event_time": at.Unix(), "event": event, "authorizations": auths,
		"is_ext_shared_channel": o.ExtShared, "event_context": "4-" + o.EventID,
		"context_team_id": ctxTeam, "context_enterprise_id": nil,
	}
	if ctxEnterprise != "" {
		p["context_enterprise_id"] = ctxEnterprise
	}
	if o.Enterprise != "" {
		p["enterprise_id"] = o.Enterprise
	}
	return p
}

// botUserOf is the bot user of the app's installation in team, or of an
// organisation's org-wide one (the default bot's when there is none).
func (s *Server) botUserOf(team string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ws := range s.oauth.tokens {
		if ws.owner() == team && !s.oauth.revoked[ws.Token] {
			return ws.BotUserID
		}
	}
	return BotUserID
}

// SendEvent sends an Events API event (the inner "event" object) and returns
// the envelope id. With Redeliver set, it is delivered again while it is
// not acked.
func (s *Server) SendEvent(event map[string]any, opt ...EventOptions) string {
	s.t.Helper()
	var o EventOptions
	if len(opt) > 0 {
		o = opt[0]
	}
	if o.EnvelopeID == "" {
		o.EnvelopeID = s.envelope()
	}
	if o.EventID == "" {
		o.EventID = "Ev" + strings.ToUpper(strings.ReplaceAll(o.EnvelopeID, "-", ""))
	}
	if s.HTTPDelivery() {
		s.sendEventHTTP(event, o)
		return o.EnvelopeID
	}
	s.WaitConnected(10 * time.Second)
	if !s.deliver(event, o) {
		s.t.Fatalf("fakeslack: no connection %d to send %s to", o.To, o.EnvelopeID)
	}
	s.mu.Lock()
	waits := append([]time.Duration(nil), s.redeliver...)
	s.mu.Unlock()
	if len(waits) > 0 {
		go s.redeliverUnacked(event, o, waits)
	}
	return o.EnvelopeID
}

// deliver writes one events_api envelope and records when it was sent.
func (s *Server) deliver(event map[string]any, o EventOptions) bool {
	env := map[string]any{
		"type": "events_api", "envelope_id": o.EnvelopeID, "accepts_response_payload": false,
		"retry_attempt": o.RetryAttempt, "retry_reason": "",
		"payload": s.callback(event, o),
	}
	if o.RetryAttempt > 0 {
		env["retry_reason"] = "timeout"
	}
	b, _ := json.Marshal(env)
	s.mu.Lock()
	s.sentAt[o.EnvelopeID] = time.Now()
	s.delivered[o.EventID]++
	s.mu.Unlock()
	s.cond.Broadcast()
	return s.writeTo(o.To, b)
}

// redeliverUnacked sends an event again, after each wait, until one of its
// envelopes is acked.
func (s *Server) redeliverUnacked(event map[string]any, o EventOptions, waits []time.Duration) {
	envelopes := []string{o.EnvelopeID}
	acked := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range envelopes {
			if _, ok := s.acks[e]; ok {
				return true
			}
		}
		return false
	}
	for i, wait := range waits {
		select {
		case <-s.closed:
			return
		case <-time.After(wait):
		}
		if acked() {
			return
		}
		retry := o
		retry.RetryAttempt = o.RetryAttempt + i + 1
		retry.EnvelopeID = fmt.Sprintf("%s-r%d", o.EnvelopeID, i+1)
		envelopes = append(envelopes, retry.EnvelopeID)
		if !s.deliver(event, retry) {
			return // the server is closing
		}
	}
}

// Deliveries counts the envelopes sent for an event id: the first and every
// redelivery.
func (s *Server) Deliveries(eventID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered[eventID]
}

// WaitDeliveries waits until an event was delivered n times.
func (s *Server) WaitDeliveries(eventID string, n int, timeout time.Duration) {
	s.t.Helper()
	s.waitFor(timeout, fmt.Sprintf("%d deliveries of %s", n, eventID), func() bool { return s.delivered[eventID] >= n })
}

// AckLatency is how long the envelope waited for its ack, and whether it
// was acked.
func (s *Server) AckLatency(envelopeID string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sent, ok1 := s.sentAt[envelopeID]
	acked, ok2 := s.ackedAt[envelopeID]
	if !ok1 || !ok2 {
		return 0, false
	}
	return acked.Sub(sent), true
}

// SentAt is when the envelope was written to the socket, and whether it was.
func (s *Server) SentAt(envelopeID string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.sentAt[envelopeID]
	return at, ok
}

// Acked reports whether the envelope was acked.
func (s *Server) Acked(envelopeID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.acks[envelopeID]
	return ok
}

// SendSlashCommand sends a slash_commands envelope and returns its envelope id.
func (s *Server) SendSlashCommand(command, text, user, channel string) string {
	s.t.Helper()
	return s.SendTeamSlashCommand(TeamID, command, text, user, channel)
}

// SendTeamSlashCommand is SendSlashCommand from a workspace's member.
func (s *Server) SendTeamSlashCommand(team, command, text, user, channel string) string {
	s.t.Helper()
	return s.sendSlashCommand(team, "", false, command, text, user, channel)
}

// SendGridSlashCommand sends a slash command from team, a workspace of the
// Enterprise Grid organisation enterprise, as Slack does: with its
// enterprise_id, and is_enterprise_install when the app is installed
// org-wide.
func (s *Server) SendGridSlashCommand(team, enterprise string, orgWide bool, command, text, user, channel string) string {
	s.t.Helper()
	return s.sendSlashCommand(team, enterprise, orgWide, command, text, user, channel)
}

func (s *Server) sendSlashCommand(team, enterprise string, orgWide bool, command, text, user, channel string) string {
	id := s.envelope()
	payload := map[string]string{
		"token": "legacy", "team_id": team, "team_domain": "fake", "channel_id": channel, "channel_name": "general",
		"user_id": user, "user_name": strings.ToLower(user), "command": command, "text": text,
		"api_app_id": AppID, "response_url": s.srv.URL + "/response?envelope=" + id, "trigger_id": "trig-" + id,
	}
	if enterprise != "" {
		payload["enterprise_id"], payload["is_enterprise_install"] = enterprise, strconv.FormatBool(orgWide)
		s.mu.Lock()
		if _, known := s.oauth.chanTeam[channel]; !known {
			s.oauth.chanTeam[channel] = team
		}
		s.mu.Unlock()
	}
	if s.HTTPDelivery() {
		form := url.Values{}
		for k, v := range payload {
			form.Set(k, v)
		}
		s.sendFormHTTP(id, "/slack/commands", form)
		return id
	}
	b, _ := json.Marshal(map[string]any{"type": "slash_commands", "envelope_id": id, "accepts_response_payload": true, "payload": payload})
	s.SendRaw(b)
	return id
}

// SendInteractive sends an interactive envelope with payload and returns its envelope id.
func (s *Server) SendInteractive(payload map[string]any) string {
	s.t.Helper()
	id := s.envelope()
	if s.HTTPDelivery() {
		p, _ := json.Marshal(payload)
		s.sendFormHTTP(id, "/slack/interactivity", url.Values{"payload": {string(p)}})
		return id
	}
	b, _ := json.Marshal(map[string]any{"type": "interactive", "envelope_id": id, "accepts_response_payload": false, "payload": payload})
	s.SendRaw(b)
	return id
}

// SendDisconnect asks the bot to reconnect, as Slack does before a refresh.
func (s *Server) SendDisconnect() {
	s.t.Helper()
	s.SendRaw([]byte(`{"type":"disconnect","reason":"refresh_requested","debug_info":{"host":"fake"}}`))
}

// Opens counts apps.connections.open calls.
func (s *Server) Opens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens
}

// WaitAck waits for the envelope's ack and returns its payload.
func (s *Server) WaitAck(envelopeID string, timeout time.Duration) json.RawMessage {
	s.t.Helper()
	var p json.RawMessage
	s.waitFor(timeout, "ack of "+envelopeID, func() bool {
		var ok bool
		p, ok = s.acks[envelopeID]
		return ok
	})
	return p
}

// Posted returns every message the bot posted or updated.
func (s *Server) Posted() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.posted...)
}

// WaitPosted waits until at least n messages match pred and returns them.
func (s *Server) WaitPosted(n int, timeout time.Duration, pred func(Message) bool) []Message {
	s.t.Helper()
	var got []Message
	s.waitFor(timeout, fmt.Sprintf("%d posted messages", n), func() bool {
		got = got[:0]
		for _, m := range s.posted {
			if pred == nil || pred(m) {
				got = append(got, m)
			}
		}
		return len(got) >= n
	})
	return got
}

// Reactions returns every reaction call.
func (s *Server) Reactions() []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Reaction(nil), s.reactions...)
}

// WaitReaction waits for a reaction call.
func (s *Server) WaitReaction(op, name, ts string, timeout time.Duration) {
	s.t.Helper()
	s.waitFor(timeout, op+" :"+name+": on "+ts, func() bool {
		for _, r := range s.reactions {
			if r.Op == op && r.Name == name && r.TS == ts {
				return true
			}
		}
		return false
	})
}

// Calls returns the Web API calls of one method ("" for all).
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitView waits for a views.publish for user and returns the view JSON.
func (s *Server) WaitView(user string, timeout time.Duration, pred func(json.RawMessage) bool) json.RawMessage {
	s.t.Helper()
	var v json.RawMessage
	s.waitFor(timeout, "home view of "+user, func() bool {
		v = s.views[user]
		return v != nil && (pred == nil || pred(v))
	})
	return v
}

// WaitFile waits for an uploaded file.
func (s *Server) WaitFile(timeout time.Duration) File {
	s.t.Helper()
	var f File
	s.waitFor(timeout, "a file upload", func() bool {
		if len(s.files) == 0 {
			return false
		}
		f = s.files[len(s.files)-1]
		return true
	})
	return f
}

func (s *Server) waitFor(timeout time.Duration, what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, s.cond.Broadcast)
	defer timer.Stop()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // wake periodically so time-based conditions are re-read
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				s.cond.Broadcast()
			}
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("fakeslack: timed out after %s waiting for %s", timeout, what)
		}
		s.cond.Wait()
	}
}
