package slackapp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// An Enterprise Grid organisation that installed mnemo org-wide, and two
// of its workspaces.
const (
	gridOrg   = "E0ORG"
	gridA     = "T0ORGA"
	gridB     = "T0ORGB"
	gridAlice = "U0ALICE" // her own workspace is A
	gridAda   = "U0ADA"   // an admin in B (MNEMO_ADMINS), whose own workspace is A
	gridChanB = "C0ORGBGEN"
)

// grid is the app served by the organisation's org-wide installation, on
// the fake Slack, not yet running: one bot token for every workspace, as
// install.Clients reads it from the database.
type grid struct {
	t       *testing.T
	fs      *fakeslack.Server
	d       *testdb.DB
	clients *install.Clients
	store   *memory.Store
	app     *App
	logs    *harness.Buffer
}

func newGrid(t *testing.T) *grid {
	t.Helper()
	ctx := context.Background()
	g := &grid{t: t, d: testdb.New(t), fs: fakeslack.New(t), logs: &harness.Buffer{}}
	keys, err := install.ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(t, err)
	sealed, err := keys.Seal(gridOrg, "xoxb-org")
	require.NoError(t, err)
	require.NoError(t, g.d.DB.Installations().Save(ctx, db.Installation{Enterprise: gridOrg, Token: sealed, BotUserID: "U0ORGBOT", InstallerID: gridAda}))
	g.clients = &install.Clients{Store: g.d.DB, Keyring: keys, NewClient: func(token string) *slack.Client {
		return slack.New(token, slack.OptionAPIURL(g.fs.URL))
	}}
	for _, team := range []string{gridA, gridB} { // both seen before, as events would have
		_, err := g.clients.BotIn(ctx, team, gridOrg)
		require.NoError(t, err)
	}
	for _, u := range []fakeslack.User{
		{ID: gridAlice, Name: "Alice", Team: gridA, Enterprise: gridOrg},
		{ID: gridAda, Name: "Ada", Team: gridA, Enterprise: gridOrg},
	} {
		g.fs.AddUser(u)
	}
	socket := slack.New("xoxb-unused", slack.OptionAPIURL(g.fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	g.store = memory.New(g.d.DB, memory.Options{})
	g.app = New(Config{Socket: socketmode.New(socket), Clients: g.clients, DB: g.d.DB, Memory: g.store,
		Directory: NewTeamDirectory(g.clients, []string{gridB + ":" + gridAda}), Logger: zerolog.New(g.logs), SlackAPIURL: g.fs.URL})
	return g
}

func (g *grid) run() {
	g.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.app.Run(ctx) }()
	g.t.Cleanup(func() { cancel(); <-done })
}

// remember stores a memory of alice's in team: personal, in her DM there.
func (g *grid) remember(team, content string) memory.Memory {
	g.t.Helper()
	out, err := g.store.Remember(context.Background(), memory.WriteRequest{
		Actor:   provenance.Actor{Kind: provenance.KindUser, Team: team, ID: gridAlice},
		Place:   provenance.Place{Team: team, Channel: "D0ALICE" + team, SourceKey: "slack:" + team + ":D0ALICE" + team + ":" + g.fs.NextTS(), Visibility: provenance.DM},
		Content: content, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(g.t, err)
	require.Equal(g.t, memory.Stored, out.Status, out.Reason)
	return *out.Memory
}

// active says whether memory m is still active.
func (g *grid) active(m memory.Memory) bool {
	g.t.Helper()
	var archived bool
	require.NoError(g.t, g.d.Pool.QueryRow(context.Background(), `SELECT archived_at IS NOT NULL FROM memories WHERE id = $1`, m.ID).Scan(&archived))
	return !archived
}

// publishes counts the views.publish calls for user's Home.
func (g *grid) publishes(user string) int {
	n := 0
	for _, c := range g.fs.Calls("views.publish") {
		if c.Form.Get("user_id") == user {
			n++
		}
	}
	return n
}

// reply records a turn of alice's in channel of team, and mnemo's reply to
// it, as a turn leaves them; it returns the turn and the reply's ts.
func (g *grid) reply(team, channel string) (int64, string) {
	g.t.Helper()
	ctx := context.Background()
	key := threads.Key{Team: team, Channel: channel, Root: threads.TS(g.fs.NextTS())}
	turn, _, err := g.d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: team, Channel: channel, SourceKey: key.SourceKey(), Visibility: provenance.Public}, MessageTS: string(key.Root), ActorID: gridAlice})
	require.NoError(g.t, err)
	id, ts := turn.ID, g.fs.NextTS()
	bot := provenance.Actor{Kind: provenance.KindBot, Team: team, ID: "U0ORGBOT"}
	_, err = g.d.DB.Sessions().Append(ctx, key, threads.Message{TS: threads.TS(ts), Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: "Noted.", TurnID: &id})
	require.NoError(g.t, err)
	return id, ts
}

// press is a button's press as an org-wide installation's payload has it:
// no team (bolt-python#23), the organisation, and the presser's own
// workspace in user.team_id. named, when not "", is the team the payload
// names instead. More fields (view, channel, container) come in extra.
func (g *grid) press(user, named, action, value string, extra map[string]any) string {
	g.t.Helper()
	typ := "button"
	if action == ActionFeedback {
		typ = "feedback_buttons"
	}
	p := map[string]any{
		"type": "block_actions", "team": nil, "enterprise": map[string]any{"id": gridOrg, "name": "Grid Org"}, "is_enterprise_install": true,
		"user": map[string]any{"id": user, "team_id": gridA}, "api_app_id": fakeslack.AppID, "trigger_id": "trig",
		"actions": []any{map[string]any{"type": typ, "action_id": action, "block_id": "b1", "value": value, "action_ts": "1800000000.000100"}},
	}
	if named != "" {
		p["team"] = map[string]any{"id": named}
	}
	for k, v := range extra {
		p[k] = v
	}
	env := g.fs.SendInteractive(p)
	g.fs.WaitAck(env, 5*time.Second)
	return env
}

// fromHome are a press's fields for a button on the App Home.
var fromHome = map[string]any{"view": map[string]any{"id": "V1", "type": "home"}, "container": map[string]any{"type": "view", "view_id": "V1"}}

// homeButton is the value of the button labelled label in a Home view:
// a pager's, or (label "Forget") the one beside the memory saying near.
func homeButton(t *testing.T, view json.RawMessage, label, near string) string {
	t.Helper()
	type button struct {
		Text  struct{ Text string } `json:"text"`
		Value string                `json:"value"`
	}
	var v struct {
		Blocks []struct {
			Type      string
			Text      struct{ Text string } `json:"text"`
			Accessory button                `json:"accessory"`
			Elements  json.RawMessage       `json:"elements"`
		} `json:"blocks"`
	}
	require.NoError(t, json.Unmarshal(view, &v))
	for _, b := range v.Blocks {
		if b.Accessory.Text.Text == label && strings.Contains(b.Text.Text, near) {
			return b.Accessory.Value
		}
		var els []button
		if b.Type != "actions" || json.Unmarshal(b.Elements, &els) != nil {
			continue
		}
		for _, e := range els {
			if e.Text.Text == label && near == "" {
				return e.Value
			}
		}
	}
	t.Fatalf("no %q button near %q in %s", label, near, view)
	return ""
}

// Under an org-wide installation a press names no workspace, and
// user.team_id is the presser's own. Alice, whose own workspace is A,
// pressed Forget on her App Home in B: mnemo looked for the memory in A
// and said it was no longer there. The Home's Forget buttons now carry
// the workspace of their Home. A press whose payload names another
// workspace than that is refused, and a button made before (a bare id)
// still acts where the press says.
func TestGridHomeForgetActsInTheWorkspaceOfItsHome(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	inA := g.remember(gridA, "Prefers terse PR summaries")
	inB := g.remember(gridB, "Prefers tabs over spaces")
	keep := g.remember(gridB, "Works from Lisbon")
	g.run()
	// The Homes are published in the order their changes came: B's last.
	view := g.fs.WaitView(gridAlice, 10*time.Second, func(v json.RawMessage) bool {
		return strings.Contains(string(v), "Prefers tabs over spaces") && strings.Contains(string(v), "Works from Lisbon")
	})

	g.press(gridAlice, "", ActionForget, homeButton(t, view, "Forget", "Prefers tabs over spaces"), fromHome)
	g.fs.WaitView(gridAlice, 10*time.Second, func(v json.RawMessage) bool {
		return !strings.Contains(string(v), "Prefers tabs over spaces") || strings.Contains(string(v), "didn't forget")
	})
	require.False(t, g.active(inB), "forgotten in B, where its Home was")
	require.True(t, g.active(inA))

	g.press(gridAlice, gridA, ActionForget, homeButton(t, view, "Forget", "Works from Lisbon"), fromHome)
	require.True(t, g.logs.WaitFor("button pressed in another workspace than it was made for; refused", 10*time.Second), g.logs.String())
	require.True(t, g.active(keep), "a press naming A does not forget B's memory")

	// A button made before its value said where (the memory's id alone)
	// acts in the presser's own workspace, as it did.
	n := g.publishes(gridAlice)
	g.press(gridAlice, "", ActionForget, inA.ID.String(), fromHome)
	require.Eventually(t, func() bool { return g.publishes(gridAlice) > n }, 10*time.Second, 10*time.Millisecond, "A's Home is published again")
	require.False(t, g.active(inA))
}

// Home paging under an org-wide installation: Next on Alice's Home in B
// showed her the second page of her Home in A, her own workspace. The
// pager's buttons now carry the workspace of their Home.
func TestGridHomePagingStaysInTheWorkspaceOfItsHome(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	g.remember(gridA, "Prefers terse PR summaries")
	for i := range HomePageSize + 1 {
		g.remember(gridB, fmt.Sprintf("B memory %02d", i))
	}
	g.run()
	view := g.fs.WaitView(gridAlice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "B memory") })
	next := homeButton(t, view, "Next", "")

	g.press(gridAlice, "", ActionHomePage, next, fromHome)
	view = g.fs.WaitView(gridAlice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), `"text":"Previous"`) })
	require.Equal(t, 1, strings.Count(string(view), "B memory"), "the second page of B's Home, its eleventh memory: %s", view)
	require.NotContains(t, string(view), "Prefers terse PR summaries")

	n := g.publishes(gridAlice)
	g.press(gridAlice, gridA, ActionHomePage, next, fromHome)
	require.True(t, g.logs.WaitFor("button pressed in another workspace than it was made for; refused", 10*time.Second), g.logs.String())
	// The refused press published no Home: a later press, Previous back to
	// B's first page, is seen published, and its Home is the only one
	// published since.
	g.press(gridAlice, "", ActionHomePage, homeButton(t, view, "Previous", ""), fromHome)
	g.fs.WaitView(gridAlice, 10*time.Second, func(v json.RawMessage) bool { return strings.Count(string(v), "B memory") == HomePageSize })
	require.Equal(t, n+1, g.publishes(gridAlice), "the refused press published a Home")
}

// Feedback under an org-wide installation was looked up in the presser's
// own workspace, where the reply is not: it was dropped ("feedback on a
// message no turn posted"). The feedback buttons now carry the workspace
// of the reply they are under.
func TestGridFeedbackIsRecordedForTheReplyInItsWorkspace(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	verdicts := make(chan db.Verdict, 4)
	g.app.OnFeedback(func(v db.Verdict) { verdicts <- v })
	turn, ts := g.reply(gridB, gridChanB)
	g.run()
	buttons := feedbackBlockIn(gridB).(*slack.ContextActionsBlock).Elements.ElementSet[0].(*slack.FeedbackButtonsBlockElement)
	on := map[string]any{"channel": map[string]any{"id": gridChanB}, "container": map[string]any{"type": "message", "message_ts": ts, "channel_id": gridChanB}}

	g.press(gridAlice, "", ActionFeedback, buttons.PositiveButton.Value, on)
	select {
	case v := <-verdicts:
		require.Equal(t, db.Positive, v)
	case <-time.After(10 * time.Second):
		t.Fatalf("no feedback stored:\n%s", g.logs.String())
	}

	g.press(gridAlice, gridA, ActionFeedback, buttons.NegativeButton.Value, on)
	require.True(t, g.logs.WaitFor("button pressed in another workspace than it was made for; refused", 10*time.Second), g.logs.String())
	f, err := g.d.DB.Feedback().Get(context.Background(), turn, gridAlice)
	require.NoError(t, err)
	require.Equal(t, db.Positive, f.Value, "the press naming A changed nothing")

	// A button made before its value said where reads as before.
	g.press(gridAda, gridB, ActionFeedback, string(db.Negative), on)
	select {
	case v := <-verdicts:
		require.Equal(t, db.Negative, v)
	case <-time.After(10 * time.Second):
		t.Fatalf("no feedback stored:\n%s", g.logs.String())
	}
}

// The Inspect shortcut under an org-wide installation names no workspace
// either: used on mnemo's reply in B by an admin of B whose own workspace
// is A, it looked for the turn in A, where she is no admin. It now reads
// the reply's workspace from its feedback buttons, but only on this app's
// own messages: anyone can post blocks that look like them.
func TestGridInspectReadsTheWorkspaceOfTheReply(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	turn, ts := g.reply(gridB, gridChanB)
	g.run()
	blocks, err := json.Marshal([]slack.Block{slack.NewSectionBlock(mrkdwn("Noted."), nil, nil), feedbackBlockIn(gridB)})
	require.NoError(t, err)
	inspect := func(named, app, tag string) string {
		p := map[string]any{
			"type": "message_action", "callback_id": ShortcutInspect, "trigger_id": "trig", "team": nil,
			"enterprise": map[string]any{"id": gridOrg}, "is_enterprise_install": true, "api_app_id": fakeslack.AppID,
			"user": map[string]any{"id": gridAda, "team_id": gridA}, "channel": map[string]any{"id": gridChanB},
			"message":      map[string]any{"type": "message", "ts": ts, "bot_id": "B0ORGBOT", "bot_profile": map[string]any{"app_id": app}, "blocks": json.RawMessage(blocks)},
			"response_url": strings.TrimSuffix(g.fs.URL, "/api/") + "/response?envelope=" + tag,
		}
		if named != "" {
			p["team"] = map[string]any{"id": named}
		}
		g.fs.WaitAck(g.fs.SendInteractive(p), 5*time.Second)
		if named != "" {
			return ""
		}
		return g.fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == tag })[0].Text
	}

	got := inspect("", fakeslack.AppID, "ours")
	require.Contains(t, got, fmt.Sprintf("Turn %d in <#%s>", turn, gridChanB))

	require.Contains(t, inspect("", "A0SOMEONEELSE", "theirs"), "not one mnemo answered", "another app's look-alike message says nothing of where: its buttons name B, where the turn is")

	posted := len(g.fs.Posted())
	inspect(gridA, fakeslack.AppID, "named")
	require.True(t, g.logs.WaitFor("button pressed in another workspace than it was made for; refused", 10*time.Second), g.logs.String())
	// The refused Inspect said nothing: a later one is answered, and its
	// answer is the only message posted since.
	require.Contains(t, inspect("", fakeslack.AppID, "after"), fmt.Sprintf("Turn %d in <#%s>", turn, gridChanB))
	since := g.fs.Posted()[posted:]
	require.Len(t, since, 1, "the refused Inspect was answered: %+v", since)
	require.Equal(t, "after", since[0].Envelope)
}

// The Home's pagers name offsets, the shared memories' as negative ones.
// A value no pager makes (stale, or crafted) reached SQL as a negative
// OFFSET: -2147483648 pages the shared memories from 2147483648, which the
// database's int4 reads as -2147483648, and the Home was never published.
// Such a value now shows the first page. The list's Next is read the same.
func TestPagerValuesNoPagerMakesShowTheFirstPage(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	g.remember(gridB, "Prefers tabs over spaces")
	g.run()
	g.fs.WaitView(gridAlice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), "Prefers tabs over spaces") })
	publishes := func() int { return g.publishes(gridAlice) }
	for _, value := range []string{"-2147483648", "2147483648", "-9223372036854775808", "page two", gridB + "/2147483648"} {
		n := publishes()
		g.press(gridAlice, gridB, ActionHomePage, value, fromHome)
		require.Eventually(t, func() bool { return publishes() > n }, 10*time.Second, 10*time.Millisecond, "value %q: the Home is published\n%s", value, g.logs.String())
		view := string(g.fs.WaitView(gridAlice, time.Second, nil))
		require.Contains(t, view, "Prefers tabs over spaces", "value %q: the first page", value)
		require.NotContains(t, view, `"text":"Previous"`, "value %q: the first page", value)
	}

	// The list's Next, with an offset no pager makes.
	for i, offset := range []int{-5, 1 << 31} {
		st, err := json.Marshal(pageState{Team: gridB, User: gridAlice, Offset: offset})
		require.NoError(t, err)
		tag := fmt.Sprint("list", i)
		g.press(gridAlice, gridB, ActionPage, string(st), map[string]any{
			"channel": map[string]any{"id": gridChanB}, "container": map[string]any{"type": "message", "message_ts": "1800000000.000100", "is_ephemeral": true},
			"response_url": strings.TrimSuffix(g.fs.URL, "/api/") + "/response?envelope=" + tag,
		})
		got := g.fs.WaitPosted(1, 10*time.Second, func(m fakeslack.Message) bool { return m.Response && m.Envelope == tag })[0]
		require.Contains(t, got.Text, "What mnemo remembers about <@"+gridAlice+">", "offset %d: the first page", offset)
		require.Contains(t, string(got.Blocks), "Prefers tabs over spaces", "offset %d", offset)
	}
}

// Under an org-wide installation, users.info names a person's own
// workspace; in a Slack Connect channel of B, Carol of A (the same
// organisation) was made an external member: her memories went to A, as
// another organisation's member's would. A member of the organisation is
// no external member of its workspaces; a member of another organisation
// still is, and so is anyone whose organisation can't be known.
func TestGridSameOrganisationMemberIsNoExternalMember(t *testing.T) {
	t.Parallel()
	g := newGrid(t)
	for _, u := range []fakeslack.User{
		{ID: "U0CAROL", Name: "Carol", Team: gridA, Enterprise: gridOrg, IsAdmin: true},
		{ID: "U0XAVIER", Name: "Xavier", Team: "T0EXT", Enterprise: "E0OTHER", IsAdmin: true},
		{ID: "U0YURI", Name: "Yuri", Team: "T0EXT2"},
	} {
		g.fs.AddUser(u)
	}
	ctx := context.Background()
	dir := NewTeamDirectory(g.clients, nil)
	for _, c := range []struct {
		user, team string
	}{{"U0CAROL", gridB}, {"U0XAVIER", "T0EXT"}, {"U0YURI", "T0EXT2"}} {
		a, err := dir.ActorFromEvent(ctx, gridB, c.user)
		require.NoError(t, err)
		require.Equal(t, c.team, a.Team, c.user)
		require.False(t, a.IsAdmin, "%s: an admin of their own workspace is none in B", c.user)
	}

	// A workspace's own installation says nothing of an organisation: the
	// person is placed by their workspace, as before.
	single := NewDirectory(slack.New("xoxb-b", slack.OptionAPIURL(g.fs.URL)), nil)
	a, err := single.ActorFromEvent(ctx, gridB, "U0CAROL")
	require.NoError(t, err)
	require.Equal(t, gridA, a.Team)
}

// A workspace's own installation in an organisation: Slack records the
// organisation with it (oauth.v2.access's enterprise), and a member of the
// organisation whose users.info names another of its workspaces is no
// external member here; someone of another organisation still is.
func TestGridWorkspaceInstallKnowsItsOrganisation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, fs := testdb.New(t), fakeslack.New(t)
	keys, err := install.ParseKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(t, err)
	sealed, err := keys.Seal(gridB, "xoxb-b")
	require.NoError(t, err)
	require.NoError(t, d.DB.Installations().Save(ctx, db.Installation{Team: gridB, Enterprise: gridOrg, Token: sealed, BotUserID: "U0BBOT", InstallerID: gridAda}))
	clients := &install.Clients{Store: d.DB, Keyring: keys, NewClient: func(token string) *slack.Client {
		return slack.New(token, slack.OptionAPIURL(fs.URL))
	}}
	for _, u := range []fakeslack.User{
		{ID: "U0CAROL", Name: "Carol", Team: gridA, Enterprise: gridOrg, IsAdmin: true},
		{ID: "U0XAVIER", Name: "Xavier", Team: "T0EXT", Enterprise: "E0OTHER"},
	} {
		fs.AddUser(u)
	}
	dir := NewTeamDirectory(clients, nil)
	carol, err := dir.ActorFromEvent(ctx, gridB, "U0CAROL")
	require.NoError(t, err)
	require.Equal(t, gridB, carol.Team, "a member of B's organisation is B's here")
	require.False(t, carol.IsAdmin, "an admin of A is none in B")
	xavier, err := dir.ActorFromEvent(ctx, gridB, "U0XAVIER")
	require.NoError(t, err)
	require.Equal(t, "T0EXT", xavier.Team, "another organisation's member is still external")
}
