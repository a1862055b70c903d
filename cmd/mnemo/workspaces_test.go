package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/tools/mcp"
)

// Two workspaces, installed through OAuth, with the same user and channel
// ids in both.
const (
	teamA = "T0AAAA"
	teamB = "T0BBBB"
	// What alice asks each workspace to remember: a word of it must never
	// reach the other.
	factA, wordA = "remember that I prefer terse PR summaries", "terse"
	factB, wordB = "remember that I prefer tabs over spaces", "tabs"
)

const (
	testClientID     = "1111.2222"
	testClientSecret = "client-secret-for-tests"
)

// slackCalls counts the Web API calls made with team's token.
func (b *bot) slackCalls(team string) int {
	n := 0
	for _, c := range b.slack.Calls("") {
		if c.Team == team {
			n++
		}
	}
	return n
}

// startMultiBot starts serve with no SLACK_BOT_TOKEN: every workspace is
// served by its own installation. It returns the address the install flow
// is served on: the operator server's in socket mode, Slack's own in http
// mode (modeEnv).
func startMultiBot(t *testing.T, modeEnv ...string) (*bot, string) {
	t.Helper()
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	env := append([]string{"SLACK_BOT_TOKEN", "", "SLACK_CLIENT_ID", testClientID, "SLACK_CLIENT_SECRET", testClientSecret,
		"MNEMO_ENCRYPTION_KEY", "k1:" + base64.StdEncoding.EncodeToString(key)}, modeEnv...)
	b := startBot(t, toolCaller(), env...)
	b.env["SLACK_AUTHORIZE_URL"] = b.slack.AuthorizeURL() // read by nothing after start; for the record
	if b.env["MNEMO_SLACK_MODE"] == "http" {
		return b, b.servingAddr("slack_http")
	}
	return b, servingAddr(t, b)
}

// servingAddr is the HTTP address serve logged it answers on.
func servingAddr(t *testing.T, b *bot) string {
	t.Helper()
	var addr string
	require.Eventually(t, func() bool {
		sc := bufio.NewScanner(strings.NewReader(b.logs.String()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Message string `json:"message"`
				HTTP    string `json:"http"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "mnemo serving" {
				addr = line.HTTP
				return true
			}
		}
		return false
	}, 15*time.Second, 20*time.Millisecond)
	return addr
}

var addLink = regexp.MustCompile(`id="add" href="([^"]+)"`)

// installThroughOAuth installs the app in team as a browser does: the Add
// to Slack page, Slack's authorize page (approved), the redirect back.
func installThroughOAuth(t *testing.T, b *bot, addr, team string) {
	t.Helper()
	installWorkspace(t, b, addr, fakeslack.Workspace{Team: team, Name: "Workspace " + team})
}

// installWorkspace is installThroughOAuth for a workspace (or an
// organisation) described in full; alice, bob and the admin are members.
func installWorkspace(t *testing.T, b *bot, addr string, ws fakeslack.Workspace) {
	t.Helper()
	if ws.Users == nil {
		ws.Users = map[string]fakeslack.User{}
	}
	for _, u := range []fakeslack.User{{ID: alice, Name: "Alice"}, {ID: bob, Name: "Bob"}, {ID: admin, Name: "Ada", IsAdmin: true}} {
		if _, ok := ws.Users[u.ID]; !ok {
			ws.Users[u.ID] = u
		}
	}
	ws.Installer, ws.ClientID, ws.Secret, ws.RedirectURL = alice, testClientID, testClientSecret, "http://"+addr+"/slack/oauth_redirect"
	b.slack.ApproveNext(ws)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	page := get(t, browser, "http://"+addr+"/slack/install", http.StatusOK)
	m := addLink.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	link := strings.ReplaceAll(m[1], "&amp;", "&")
	require.True(t, strings.HasPrefix(link, "https://slack.com/oauth/v2/authorize?"), link)
	require.Contains(t, link, "client_id="+testClientID)
	require.Contains(t, link, "chat%3Awrite", "the manifest's scopes")
	// The fake's authorize page stands in for Slack's.
	link = b.slack.AuthorizeURL() + strings.TrimPrefix(link, "https://slack.com/oauth/v2/authorize")
	done := get(t, browser, link, http.StatusOK)
	require.Contains(t, done, "mnemo is installed")
}

func get(t *testing.T, c *http.Client, url string, status int) string {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, string(body))
	return string(body)
}

// in is one workspace of the bot, as its members use it.
type in struct {
	b    *bot
	team string
}

func (w in) botUser() string {
	ws, ok := w.b.slack.Installed(w.team)
	require.True(w.b.t, ok)
	return ws.BotUserID
}

// ask sends text from user in channel (a DM, or a mention in a channel)
// and returns mnemo's reply in that workspace.
func (w in) ask(user, channel, text string) string {
	w.b.t.Helper()
	ts := w.b.nextTS()
	ev := map[string]any{"type": "message", "channel_type": "im", "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
	if !strings.HasPrefix(channel, "D") {
		ev = map[string]any{"type": "app_mention", "user": user, "text": "<@" + w.botUser() + "> " + text, "ts": ts, "channel": channel, "event_ts": ts}
	}
	w.b.slack.SendEvent(ev, fakeslack.EventOptions{Team: w.team})
	got := w.b.slack.WaitPosted(1, 20*time.Second, func(m fakeslack.Message) bool {
		return m.Team == w.team && m.Channel == channel && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
	})
	w.b.slack.WaitReaction("add", "white_check_mark", ts, 20*time.Second)
	return got[0].Text
}

// command runs /mnemo in the workspace and returns its answer.
func (w in) command(user, channel, text string) string {
	w.b.t.Helper()
	env := w.b.slack.SendTeamSlashCommand(w.team, "/mnemo", text, user, channel)
	w.b.slack.WaitAck(env, 5*time.Second)
	got := w.b.slack.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == env })
	return got[0].Text + string(got[0].Blocks)
}

// memoryID is the id of alice's memory holding word in team.
func (w in) memoryID(word string) string {
	w.b.t.Helper()
	var id string
	require.NoError(w.b.t, w.b.db.Pool.QueryRow(context.Background(),
		`SELECT id::text FROM memories WHERE team_id = $1 AND content ILIKE '%' || $2 || '%' AND archived_at IS NULL`, w.team, word).Scan(&id))
	return id
}

// Issue 23: two workspaces installed through OAuth, with the same user
// and channel ids, share nothing. Each surface is checked both ways, each
// time with its positive control: the workspace's own memory is found the
// same way.
func TestTwoWorkspacesInstalledThroughOAuthShareNothing(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t)
	installThroughOAuth(t, b, addr, teamA)
	installThroughOAuth(t, b, addr, teamB)
	A, B := in{b, teamA}, in{b, teamB}
	ctx := context.Background()

	// Each installation has its own token, sealed: no plaintext in the row.
	for _, team := range []string{teamA, teamB} {
		ws, ok := b.slack.Installed(team)
		require.True(t, ok)
		var row string
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT i::text FROM installations i WHERE team_id = $1 AND disabled_at IS NULL`, team).Scan(&row))
		require.NotContains(t, row, ws.Token)
		require.Contains(t, row, ws.BotUserID)
	}

	const dm, ch = "D0ALICE", "C0GENERAL"
	require.Contains(t, A.ask(alice, dm, factA), "Prefers terse PR summaries")
	require.Contains(t, B.ask(alice, dm, factB), "Prefers tabs over spaces")
	idA, idB := A.memoryID(wordA), B.memoryID(wordB)
	// Every call for a workspace was made with its own token.
	for _, team := range []string{teamA, teamB} {
		ws, _ := b.slack.Installed(team)
		for _, c := range b.slack.Calls("chat.postMessage") {
			if c.Form.Get("channel") == dm && c.Team == team {
				require.Equal(t, ws.Token, c.Token)
			}
		}
	}

	for _, c := range []struct {
		name       string
		own, other in
		mine, not  string
		otherID    string
	}{
		{"A", A, B, wordA, wordB, idB},
		{"B", B, A, wordB, wordA, idA},
	} {
		t.Run("workspace "+c.name, func(t *testing.T) {
			w := c.own
			// Recall and list, by the model's tools, in the DM the memory
			// was said in (a DM memory is not shown in a channel).
			for _, where := range []string{dm} {
				got := w.ask(alice, where, `call memory__recall {"query": "prefer"}`)
				require.Contains(t, got, c.mine, "recall in %s", where)
				require.NotContains(t, got, c.not, "recall in %s", where)
				got = w.ask(alice, where, `call memory__list {}`)
				require.Contains(t, got, c.mine, "list in %s", where)
				require.NotContains(t, got, c.not, "list in %s", where)
			}
			// Forget the other workspace's memory by its id and by a prefix:
			// not found; the other's memory stays.
			for _, ref := range []string{c.otherID, c.otherID[:8]} {
				got := w.ask(alice, dm, `call memory__forget {"memory": "`+ref+`"}`)
				require.NotContains(t, got, c.not)
				require.NotContains(t, w.command(alice, dm, "forget "+ref), c.not)
				require.NotContains(t, w.command(alice, dm, "history "+ref), c.not)
			}
			// Slash commands: the list, as the person and as an admin.
			got := w.command(alice, ch, "memories")
			require.Contains(t, got, c.mine)
			require.NotContains(t, got, c.not)
			got = w.command(admin, ch, "memories <@U0ALICE|alice>")
			require.Contains(t, got, c.mine)
			require.NotContains(t, got, c.not)
			// Export, to the person's DM in their own workspace.
			require.Contains(t, w.command(alice, ch, "export"), "Sent your")
			f := b.slack.WaitFile(5 * time.Second)
			require.Equal(t, w.team, f.Team)
			require.Contains(t, string(f.Content), c.mine)
			require.NotContains(t, string(f.Content), c.not)
			// The App Home, published with the workspace's own token.
			b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": alice, "channel": dm, "tab": "home", "event_ts": "1800000000.000100"}, fakeslack.EventOptions{Team: w.team})
			view := b.slack.WaitTeamView(w.team, alice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), c.mine) })
			require.NotContains(t, string(view), c.not)
		})
	}
	// Neither workspace's forgets reached the other: both still active.
	require.Equal(t, idA, A.memoryID(wordA))
	require.Equal(t, idB, B.memoryID(wordB))

	// The MCP server, for alice of each workspace.
	srv, err := newMemoryMCPServer(b.store(), mcp.IdentityFromContext)
	require.NoError(t, err)
	hs := httptest.NewServer(mcp.BearerHandler(srv, map[string]tools.Invocation{
		"tok-a": mcpIdentity{Team: teamA, User: alice}.invocation(time.Now()),
		"tok-b": mcpIdentity{Team: teamB, User: alice}.invocation(time.Now()),
	}, zerolog.Nop()))
	t.Cleanup(hs.Close)
	for _, c := range []struct{ tok, mine, not string }{{"tok-a", wordA, wordB}, {"tok-b", wordB, wordA}} {
		mc, err := client.NewStreamableHttpClient(hs.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + c.tok}))
		require.NoError(t, err)
		require.NoError(t, mc.Start(ctx))
		initMCP(t, mc)
		for _, call := range []struct {
			name string
			args map[string]any
		}{{"list_memories", map[string]any{}}, {"recall", map[string]any{"query": "prefer"}}} {
			out, _ := mcpCall(t, mc, call.name, call.args)
			raw, _ := json.Marshal(out)
			require.Contains(t, string(raw), c.mine, "%s over MCP", call.name)
			require.NotContains(t, string(raw), c.not, "%s over MCP", call.name)
		}
		mc.Close()
	}

	// Passive learning: what alice says in A is learned in A only.
	A.ask(alice, dm, "honestly i prefer dark mode dashboards")
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE written_by = 'passive' AND team_id = $1 AND content ILIKE '%dark mode%'`, teamA).Scan(&n))
		return n == 1
	}, 60*time.Second, 50*time.Millisecond, "learned in A (the positive control)")
	var inB int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE team_id = $1 AND content ILIKE '%dark mode%'`, teamB).Scan(&inB))
	require.Zero(t, inB)
	require.NotContains(t, B.command(alice, ch, "memories"), "dark mode")
	require.Contains(t, A.command(alice, ch, "memories"), "dark mode")

	// Forget by id in its own workspace works (the control of the probes).
	require.Contains(t, A.command(alice, dm, "forget "+idA[:8]), "Forgotten")
	require.Contains(t, B.command(alice, dm, "forget "+idB), "Forgotten")

	// Memories of each live in their own team, with the same subject.
	ms, err := b.store().ListAll(ctx, memory.Filter{SubjectUser: alice, IncludeArchived: true})
	require.NoError(t, err)
	teams := map[string]bool{}
	for _, m := range ms {
		teams[m.Team] = true
	}
	require.Equal(t, map[string]bool{teamA: true, teamB: true}, teams)
}

// Issue 23: app_uninstalled disables a workspace's installation at once:
// its next post is acked and dropped before the inbox, and nothing more is
// called with its token, while the other workspace is answered as before.
// `mnemo teams erase` then erases all of its data, and only its. Over
// both transports: the install flow and the gate are Slack's HTTP routes'
// too in http mode.
func TestUninstallStopsAWorkspaceAtOnceAndTeamsEraseErasesIt(t *testing.T) {
	t.Parallel()
	forEachTransport(t, testUninstallStopsAWorkspace)
}

func testUninstallStopsAWorkspace(t *testing.T, modeEnv []string) {
	b, addr := startMultiBot(t, modeEnv...)
	installThroughOAuth(t, b, addr, teamA)
	installThroughOAuth(t, b, addr, teamB)
	A, B := in{b, teamA}, in{b, teamB}
	ctx := context.Background()
	const dm = "D0ALICE"
	A.ask(alice, dm, factA)
	B.ask(alice, dm, factB)
	require.Contains(t, B.command(alice, dm, "learning me off"), "now off")

	b.slack.Revoke(teamB) // Slack refuses the token once the app is gone
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_uninstalled", "event_ts": "1800000000.000100"}, fakeslack.EventOptions{Team: teamB}), 5*time.Second)
	var why string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT disabled_why FROM installations WHERE team_id = $1 AND disabled_at IS NOT NULL`, teamB).Scan(&why))
	require.Equal(t, "app_uninstalled", why)

	callsB := func() int { return b.slackCalls(teamB) }
	before := callsB()
	ts := b.nextTS()
	env := b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "im", "user": alice, "text": "what do you remember?", "ts": ts, "channel": dm, "event_ts": ts}, fakeslack.EventOptions{Team: teamB})
	b.slack.WaitAck(env, 5*time.Second)
	cmdEnv := b.slack.SendTeamSlashCommand(teamB, "/mnemo", "memories", alice, dm)
	b.slack.WaitAck(cmdEnv, 5*time.Second)
	// The control: A is answered, after B's post and command were acked.
	require.Contains(t, A.ask(alice, dm, `call memory__list {}`), wordA)
	require.Equal(t, 0, b.arrivals(ts), "B's post never reached the inbox")
	require.Equal(t, before, callsB(), "nothing was called with B's token")
	for _, m := range b.slack.Posted() {
		require.False(t, m.Response && m.Envelope == cmdEnv, "B's command was not answered")
	}

	// Erasure: all of B, none of A. Before it, the same counts find B's
	// rows in every table (her settings too, from "learning me off"), so
	// the zeros after are the erasure's doing.
	tables := []string{"memories", "memory_events", "session_messages", "turns", "model_usage", "user_settings", "installations"}
	for _, table := range tables {
		var nB int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE team_id = $1`, teamB).Scan(&nB))
		require.NotZero(t, nB, "%s of B, before the erasure", table)
	}
	var out, errOut strings.Builder
	code := run(ctx, []string{"teams", "erase", "--by", "ops-ticket-42", teamB}, b.getenv, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Contains(t, out.String(), "Erased team "+teamB)
	for _, table := range tables {
		var nB, nA int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE team_id = $1`, teamB).Scan(&nB))
		require.Zero(t, nB, "%s of B", table)
		if table != "user_settings" {
			require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE team_id = $1`, teamA).Scan(&nA))
			require.NotZero(t, nA, "%s of A is kept", table)
		}
	}
	var record string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT actor_id || ' ' || detail FROM admin_audit WHERE team_id = $1 AND action = 'erase team'`, teamB).Scan(&record))
	require.Contains(t, record, "operator:ops-ticket-42")
	require.Contains(t, record, "memories: 1 deleted")
	require.Equal(t, 2, run(ctx, []string{"teams", "erase", teamB}, b.getenv, strings.NewReader(""), io.Discard, io.Discard), "--by is required")
}

// The install flow refuses a redirect whose state is forged, expired or
// another browser's, before any code is exchanged.
func TestOAuthRedirectRefusesABadState(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	page := get(t, browser, "http://"+addr+"/slack/install", http.StatusOK)
	link := strings.ReplaceAll(addLink.FindStringSubmatch(page)[1], "&amp;", "&")
	state := regexp.MustCompile(`state=([^&]+)`).FindStringSubmatch(link)[1]
	redirect := "http://" + addr + "/slack/oauth_redirect?code=code-x&state="
	// Another browser (no cookie), a forged signature, no state.
	get(t, &http.Client{Timeout: 10 * time.Second}, redirect+state, http.StatusBadRequest)
	get(t, browser, redirect+state[:len(state)-2]+"AA", http.StatusBadRequest)
	get(t, browser, redirect, http.StatusBadRequest)
	require.Empty(t, b.slack.Calls("oauth.v2.access"), "no code was exchanged")
	// A redirect spends the browser's state, even a refused one.
	get(t, browser, redirect+state, http.StatusBadRequest)
	require.Empty(t, b.slack.Calls("oauth.v2.access"), "no code was exchanged")
	// The control: a fresh state in its browser gets to the exchange
	// (which Slack refuses: the code is made up).
	page = get(t, browser, "http://"+addr+"/slack/install", http.StatusOK)
	link = strings.ReplaceAll(addLink.FindStringSubmatch(page)[1], "&amp;", "&")
	state = regexp.MustCompile(`state=([^&]+)`).FindStringSubmatch(link)[1]
	get(t, browser, redirect+state, http.StatusBadGateway)
	require.Len(t, b.slack.Calls("oauth.v2.access"), 1)
}

// The OAuth settings come together: a client id needs its secret and the
// encryption key, a key must be 32 bytes, and serve then needs no bot token.
func TestManyWorkspacesConfiguration(t *testing.T) {
	t.Parallel()
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, c := range []struct {
		name     string
		env      map[string]string
		problems []string
	}{
		{"client id alone", map[string]string{"SLACK_CLIENT_ID": "1.2"}, []string{"SLACK_CLIENT_SECRET is not set", "MNEMO_ENCRYPTION_KEY is not set"}},
		{"a short key", map[string]string{"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s", "MNEMO_ENCRYPTION_KEY": "c2hvcnQ="}, []string{"MNEMO_ENCRYPTION_KEY is not a key: key \"k1\" is not 32 bytes"}},
		{"an admin of one workspace", map[string]string{"MNEMO_ADMINS": "T0AAAA:U0ADA,T0BBBB:bob"}, []string{`MNEMO_ADMINS has "T0BBBB:bob"`}},
		{"complete, no bot token", map[string]string{"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s", "MNEMO_ENCRYPTION_KEY": "k1:" + key}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"SLACK_APP_TOKEN": "xapp-1", "DATABASE_URL": "postgres://u@h:5432/d", "MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_MODEL": "m", "MNEMO_LLM_API_KEY": "k"}
			for k, v := range c.env {
				env[k] = v
			}
			cfg, err := LoadConfig(func(k string) string { return env[k] }, "serve")
			if c.problems == nil {
				require.NoError(t, err)
				require.True(t, cfg.MultiWorkspace())
				require.Equal(t, 30*24*time.Hour, cfg.RetentionUninstalled())
				return
			}
			require.Error(t, err)
			for _, p := range c.problems {
				require.Contains(t, err.Error(), p)
			}
		})
	}
}

// A delivery whose installation can't be read (its table locked, as a
// long migration or a stuck transaction would) is refused: not acked and
// not taken in, and Slack's redelivery is answered once the table is
// free. The lookup had no deadline: the delivery waited on the lock,
// neither acked nor refused, with every retry of it another goroutine
// waiting beside it. That the refusal comes within Slack's ack budget is
// slackapp's admission test, on an injected clock; here the wait is
// generous, so a loaded machine does not fail it.
func TestADeliveryWhoseInstallationCantBeReadIsRefusedAndRedelivered(t *testing.T) {
	t.Parallel()
	b, addr := startMultiBot(t)
	installThroughOAuth(t, b, addr, teamA)
	ctx := context.Background()
	tx, err := b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "LOCK TABLE installations IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)

	const dm, eventID = "D0ALICE", "Ev0LOCKEDINSTALL"
	ts := b.nextTS()
	ev := map[string]any{"type": "message", "channel_type": "im", "user": alice, "text": "hello", "ts": ts, "channel": dm, "event_ts": ts}
	first := b.slack.SendEvent(ev, fakeslack.EventOptions{Team: teamA, EventID: eventID})
	refused := func() bool {
		for _, l := range strings.Split(b.logs.String(), "\n") {
			if strings.Contains(l, "installation could not be read; delivery not acked") && strings.Contains(l, `"envelope_id":"`+first+`"`) {
				return true
			}
		}
		return false
	}
	require.Eventually(t, refused, 30*time.Second, 20*time.Millisecond, "the delivery is refused while the table is locked")
	require.False(t, b.slack.Acked(first), "a refused delivery was acked")
	require.Equal(t, 0, b.arrivals(ts), "a refused delivery reached the inbox")

	// Slack delivers the unacked event again (the fake's Redeliver would,
	// after a wait that must outlast the refusal; here it comes once the
	// table is free, whatever the refusal took).
	require.NoError(t, tx.Rollback(ctx))
	retry := b.slack.SendEvent(ev, fakeslack.EventOptions{Team: teamA, EventID: eventID, RetryAttempt: 1})
	b.slack.WaitAck(retry, 30*time.Second)
	got := b.slack.WaitPosted(1, 30*time.Second, func(m fakeslack.Message) bool {
		return m.Team == teamA && m.Channel == dm && m.ThreadTS == ts && !m.Ephemeral && !m.Updated
	})
	require.NotEmpty(t, got[0].Text, "Slack's redelivery is answered")
	require.False(t, b.slack.Acked(first), "the refused envelope stays unacked")
}
