package slackapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/lifecycle"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/usage"
)

// reply is an ephemeral answer to a command or button.
type reply struct {
	text    string
	blocks  []slack.Block
	replace bool
}

func textReply(format string, args ...any) reply { return reply{text: fmt.Sprintf(format, args...)} }

const helpText = `*mnemo* remembers what you ask it to and what it learns in conversation.
• ` + "`%[1]s help`" + ` this list
• ` + "`%[1]s memories [@user|#channel] [query]`" + ` what mnemo remembers (yours, or as an admin anyone's or a channel's)
• ` + "`%[1]s forget <id>`" + ` forget one memory
• ` + "`%[1]s history <id>`" + ` how a memory was created, changed and archived
• ` + "`%[1]s export`" + ` send your own memories to your DM as JSON
• ` + "`%[1]s learning me on|off`" + ` whether mnemo learns about you from conversations
• ` + "`%[1]s restore <id>`" + ` bring an archived memory back (admin)
• ` + "`%[1]s export @user`" + ` send that person's memories to your DM as JSON (admin)
• ` + "`%[1]s purge @user`" + ` erase that person from mnemo, with a receipt, after a confirmation (admin)
• ` + "`%[1]s learning on|off`" + ` passive learning in this channel (admin)
• ` + "`%[1]s stats`" + ` your model usage; an admin also sees the workspace's counts of memories, writes and turns, and how long data is kept`

var (
	userRef    = regexp.MustCompile(`^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$`)
	channelRef = regexp.MustCompile(`^<#([CGD][A-Z0-9]+)(?:\|[^>]*)?>$`)
)

func (a *App) onSlashCommand(ctx context.Context, d *delivery) {
	a.ack(d)
	cmd, ok := d.data.(slack.SlashCommand)
	if !ok {
		return
	}
	a.async(ctx, func(ctx context.Context) {
		actor, mustPlace, err := a.actorAt(ctx, cmd.TeamID, cmd.ChannelID, cmd.UserID)
		if err != nil && mustPlace {
			a.log.Warn().Err(err).Msg("command where another organisation's people can be, from a person users.info can't place; refused")
			a.respond(ctx, cmd.TeamID, cmd.ResponseURL, cmd.ChannelID, cmd.UserID, textReply("I can't tell which organisation you belong to right now; please try again in a moment."))
			return
		} else if err != nil {
			a.log.Warn().Err(err).Msg("actor not enriched")
		}
		r := a.runCommand(ctx, actor, cmd)
		a.respond(ctx, cmd.TeamID, cmd.ResponseURL, cmd.ChannelID, cmd.UserID, r)
	})
}

// actorAt is the person who ran a command or pressed a button in channel
// of team, by the live payload's user id. A person of another
// organisation is an external member wherever they are, in a Slack Connect
// channel or in a DM with the bot (Directory.ActorFromEvent): their
// memories are their own workspace's, by users.info, whatever workspace
// the payload names (a button press names the host's). mustPlace says
// whether a person of another organisation can be there, so that one
// users.info can't place must be refused rather than taken for the
// host's member: a Slack Connect channel (conversations.info) or a DM.
func (a *App) actorAt(ctx context.Context, team, channel, user string) (actor provenance.Actor, mustPlace bool, err error) {
	mustPlace = strings.HasPrefix(channel, "D")
	if !mustPlace && channel != "" {
		if b, err := a.bot(ctx, team); err == nil {
			mustPlace = a.channelInfo(ctx, b, channel, "").shared
		}
	}
	actor, err = a.dir.ActorFromEvent(ctx, team, user)
	return actor, mustPlace, err
}

// command is one /mnemo subcommand: who may run it and what it does.
type command struct {
	admin string // what only an admin may do with it, or "" for everyone
	run   func(a *App, ctx context.Context, c invocation) reply
}

// invocation is one run of a subcommand: who, where, and the arguments.
// Answers are ephemeral, so the viewer is private: only the actor sees them.
type invocation struct {
	actor  provenance.Actor
	cmd    slack.SlashCommand
	viewer memory.Viewer
	args   []string
}

// commands is the slash command's whole surface, one entry per subcommand.
// memories and forget check their own permissions: everyone may use them
// on their own memories.
var commands = map[string]command{
	"help":     {run: func(a *App, _ context.Context, _ invocation) reply { return textReply(helpText, a.command) }},
	"memories": {run: (*App).cmdMemories},
	"list":     {run: (*App).cmdMemories},
	"forget":   {run: (*App).cmdForget},
	"history":  {run: (*App).cmdHistory},
	"export":   {run: (*App).cmdExport},
	"learning": {run: (*App).cmdLearning},
	"restore":  {admin: "restore memories", run: (*App).cmdRestore},
	"purge":    {admin: "purge memories", run: (*App).cmdPurge},
	"stats":    {run: (*App).cmdStats}, // an admin's shows the workspace, anyone else's their own usage
}

// runCommand runs one /mnemo subcommand for actor.
func (a *App) runCommand(ctx context.Context, actor provenance.Actor, cmd slack.SlashCommand) reply {
	args := strings.Fields(cmd.Text)
	sub := "help"
	if len(args) > 0 {
		sub, args = strings.ToLower(args[0]), args[1:]
	}
	c, ok := commands[sub]
	if !ok {
		return textReply("I don't know `%s`. Try `%s help`.", sub, a.command)
	}
	if c.admin != "" && !actor.IsAdmin {
		return notAdmin(c.admin)
	}
	place := provenance.Place{Team: cmd.TeamID, Channel: cmd.ChannelID, Visibility: provenance.VisibilityOf("", cmd.ChannelID)}
	if len(a.orgMemories) > 0 {
		if b, err := a.bot(ctx, cmd.TeamID); err == nil {
			place.Org = a.orgOf(b)
		}
	}
	return c.run(a, ctx, invocation{actor: actor, cmd: cmd, viewer: memory.Viewer{Actor: actor, Place: place, Private: true}, args: args})
}

func notAdmin(what string) reply {
	return textReply("Only an admin can %s: admins are listed in MNEMO_ADMINS or are workspace admins or owners.", what)
}

func (a *App) cmdMemories(ctx context.Context, c invocation) reply {
	f := memory.Filter{Team: memory.HomeOf(c.actor, c.viewer.Place).Team, SubjectUser: c.actor.ID}
	var query []string
	for _, arg := range c.args {
		if m := userRef.FindStringSubmatch(arg); m != nil {
			f.SubjectUser = m[1]
		} else if m := channelRef.FindStringSubmatch(arg); m != nil {
			f.SubjectUser, f.Channel = "", m[1]
		} else {
			// Slack escapes &, < and > in a command's text: the words are
			// searched as typed. A mention is read before, so typed text
			// that looks like one (&lt;@U…&gt;) is searched, not obeyed.
			query = append(query, slackUnescape.Replace(arg))
		}
	}
	f.Query = strings.Join(query, " ")
	if r := []rune(f.Query); len(r) > maxListQuery {
		f.Query = string(r[:maxListQuery]) // it rides in the Next button's value, which Slack caps
	}
	v := c.viewer
	if f.SubjectUser != c.actor.ID {
		if !c.actor.IsAdmin {
			return notAdmin("see someone else's or a channel's memories")
		}
		v.Oversight = true
	}
	return a.memoriesPage(ctx, v, f, 0)
}

// auditListing records an admin's listing of someone else's or a
// channel's memories (oversight), before any of it is shown, as the
// command line's `memories search` does: the target is the person or the
// channel, as erasure finds it.
func (a *App) auditListing(ctx context.Context, v memory.Viewer, f memory.Filter, offset int) {
	if !v.Oversight {
		return
	}
	target := f.SubjectUser
	if target == "" {
		target = f.Channel
	}
	detail := "/mnemo memories"
	if offset > 0 {
		detail = fmt.Sprintf("/mnemo memories, from %d", offset)
	}
	a.audit(ctx, v.Actor, db.AuditSearch, target, detail)
}

func (a *App) cmdForget(ctx context.Context, c invocation) reply {
	if len(c.args) != 1 {
		return textReply("Usage: `%s forget <id>` (the id shown by `%s memories`).", a.command, a.command)
	}
	v := c.viewer
	v.Oversight = c.actor.IsAdmin // an admin may forget anyone's memory
	return a.forget(ctx, v, c.args[0], memory.PathSlash)
}

func (a *App) cmdHistory(ctx context.Context, c invocation) reply {
	if len(c.args) != 1 {
		return textReply("Usage: `%s history <id>`.", a.command)
	}
	v := c.viewer
	v.Oversight = c.actor.IsAdmin
	m, events, err := a.memory.History(ctx, v, c.args[0])
	if err != nil {
		return textReply("No single memory you can see has the id %q; `%s memories` shows ids.", c.args[0], a.command)
	}
	// A memory the admin sees only through oversight is audited, as the
	// Inspect shortcut counts what it shows so.
	if own := c.viewer; v.Oversight && !memory.Visible(own, m, memory.Show) {
		a.audit(ctx, c.actor, db.AuditHistory, m.ID.String(), "/mnemo history")
	}
	return reply{text: "History of " + m.ShortID(), blocks: historyBlocks(m, events, time.Now())}
}

func (a *App) cmdRestore(ctx context.Context, c invocation) reply {
	if len(c.args) != 1 {
		return textReply("Usage: `%s restore <id>`.", a.command)
	}
	v := c.viewer
	v.Oversight = true
	m, err := a.memory.Restore(ctx, v, c.args[0], memory.PathSlash)
	var erased *memory.ErasedError
	if errors.As(err, &erased) {
		return textReply("%s", erased.Sentence())
	}
	if err != nil {
		return textReply("Couldn't restore it: %v.", err)
	}
	a.audit(ctx, c.actor, db.AuditRestore, m.ID.String(), "") // the id, never the text
	return textReply("Restored `%s`: %s", m.ShortID(), escape(m.Content))
}

func (a *App) cmdExport(ctx context.Context, c invocation) reply {
	user := firstUser(c.args)
	switch {
	case len(c.args) == 0:
		return a.exportMine(ctx, c.viewer)
	case user == "":
		return textReply("Usage: `%s export` for your own memories, or `%s export @user` (admin).", a.command, a.command)
	case user == c.actor.ID:
		return a.exportMine(ctx, c.viewer)
	case !c.actor.IsAdmin:
		return notAdmin("export someone else's memories")
	}
	v := c.viewer
	v.Oversight = true
	// The file goes to the admin's DM, so nothing is read as said here: a
	// sensitive memory said in this channel stays in it.
	v.Place = provenance.Place{Team: v.Place.Team, Org: v.Place.Org}
	ms, err := a.memory.List(ctx, v, memory.Filter{Team: c.cmd.TeamID, SubjectUser: user, IncludeArchived: true, Limit: 10000})
	if err != nil {
		return textReply("Couldn't read their memories: %v.", err)
	}
	return a.sendExport(ctx, c.cmd.TeamID, c.actor, user, ms)
}

func (a *App) cmdLearning(ctx context.Context, c invocation) reply {
	if len(c.args) == 2 && c.args[0] == "me" && (c.args[1] == "on" || c.args[1] == "off") {
		if err := a.db.Settings().SetUserLearning(ctx, c.cmd.TeamID, c.actor.ID, c.args[1] == "on"); err != nil {
			return settingFailed(err)
		}
		a.queueHome(c.cmd.TeamID, c.actor.ID)
		if c.args[1] == "off" {
			return textReply("Passive learning about you is now off: mnemo won't learn from what you say in conversations. It still remembers what you ask it to.")
		}
		return textReply("Passive learning about you is now on.")
	}
	if len(c.args) != 1 || (c.args[0] != "on" && c.args[0] != "off") {
		return textReply("Usage: `%s learning on|off` (this channel, admin) or `%s learning me on|off` (you).", a.command, a.command)
	}
	if !c.actor.IsAdmin {
		return notAdmin("turn learning on or off in a channel")
	}
	if err := a.db.Settings().SetLearning(ctx, c.cmd.TeamID, c.cmd.ChannelID, c.args[0] == "on", c.actor.ID); err != nil {
		return settingFailed(err)
	}
	action := db.AuditLearningOff
	if c.args[0] == "on" {
		action = db.AuditLearningOn
	}
	a.audit(ctx, c.actor, action, c.cmd.ChannelID, "")
	return textReply("Passive learning is now %s in <#%s>.", c.args[0], c.cmd.ChannelID)
}

// settingFailed answers a setting not changed: while the workspace's
// erasure runs nothing of it is kept (db.ErrErasing).
func settingFailed(err error) reply {
	if errors.Is(err, db.ErrErasing) {
		return textReply("Couldn't change it: this workspace's data is being erased.")
	}
	return textReply("Couldn't change it: %v.", err)
}

func (a *App) cmdStats(ctx context.Context, c invocation) reply {
	report, err := usage.Report(ctx, a.db, a.prices, usage.ReportRequest{Team: c.cmd.TeamID, Person: c.actor.ID, All: c.actor.IsAdmin, Now: a.now()})
	if err != nil {
		return textReply("Couldn't read usage: %v.", err)
	}
	if !c.actor.IsAdmin {
		return textReply("*mnemo stats*\n%s(Only an admin sees the workspace's stats.)", report)
	}
	s, err := a.db.Audit().Stats(ctx, c.cmd.TeamID)
	if err != nil {
		return textReply("Couldn't read stats: %v.", err)
	}
	return textReply("*mnemo stats*\n• memories: %d active, %d archived\n• recall: %s\n• writes: %d asked, %d learned\n• turns: %d (%d failed)%s\n%s\n%s",
		s.ActiveMemories, s.ArchivedMemories, a.memory.RecallMode(), s.ExplicitWrites, s.PassiveWrites, s.Turns, s.FailedTurns, a.feedbackStats(ctx, c.cmd.TeamID), a.retentionStats(), report)
}

// retentionStats says how long mnemo keeps what (MNEMO_RETENTION_*).
func (a *App) retentionStats() string {
	var b strings.Builder
	b.WriteString("*kept*")
	for _, st := range a.keep.Settings() {
		fmt.Fprintf(&b, "\n• %s: %s", st.What, lifecycle.FormatKeep(st.Keep))
	}
	return b.String()
}

func firstUser(args []string) string {
	for _, arg := range args {
		if m := userRef.FindStringSubmatch(arg); m != nil {
			return m[1]
		}
	}
	return ""
}

// maxListQuery bounds a /mnemo memories query.
const maxListQuery = 200

// pageState is what a "Next" button carries.
type pageState struct {
	// Team is the workspace the list was made in: under an org-wide
	// installation, Slack names none when Next is pressed.
	Team    string `json:"t,omitempty"`
	User    string `json:"u,omitempty"`
	Channel string `json:"c,omitempty"`
	Query   string `json:"q,omitempty"`
	Offset  int    `json:"o"`
}

func (a *App) memoriesPage(ctx context.Context, v memory.Viewer, f memory.Filter, offset int) reply {
	f.Limit, f.Offset = ListPageSize+1, offset
	a.auditListing(ctx, v, f, offset)
	ms, err := a.memory.List(ctx, v, f)
	if err != nil {
		return textReply("Couldn't list memories: %v.", err)
	}
	whose := "you"
	switch {
	case f.Channel != "":
		whose = "<#" + f.Channel + ">"
	case f.SubjectUser != "":
		whose = "<@" + f.SubjectUser + ">"
	}
	head := fmt.Sprintf("What mnemo remembers about %s", whose)
	if f.Query != "" {
		head += fmt.Sprintf(" matching “%s”", escape(f.Query))
	}
	if len(ms) == 0 {
		return reply{text: head + ": nothing" + map[bool]string{true: " more.", false: "."}[offset > 0], replace: offset > 0}
	}
	now := time.Now()
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn("*"+head+"*"), nil, nil)}
	for i, m := range ms {
		if i == ListPageSize {
			break
		}
		blocks = append(blocks, memoryBlockIn(m, now, v.Place.Team))
	}
	st := pageState{Team: v.Place.Team, User: f.SubjectUser, Channel: f.Channel, Query: f.Query}
	if nav := pager(ActionPage, offset, ListPageSize, len(ms) > ListPageSize, func(o int) string {
		st.Offset = o
		b, _ := json.Marshal(st)
		return string(b)
	}); nav != nil {
		blocks = append(blocks, nav)
	}
	return reply{text: head, blocks: blocks, replace: offset > 0}
}

func (a *App) forget(ctx context.Context, v memory.Viewer, ref string, path memory.Path) reply {
	actor := v.Actor
	ms, err := a.memory.Resolve(ctx, v, ref)
	if err != nil || len(ms) != 1 {
		return textReply("No single memory you can see has the id %q; `%s memories` shows ids.", ref, a.command)
	}
	m := ms[0]
	if m.ArchivedAt != nil {
		return textReply("`%s` is already forgotten.", m.ShortID())
	}
	out, err := a.memory.ForgetMemory(ctx, v, m, "forgotten with "+a.command, path)
	switch {
	case err != nil:
		return textReply("Couldn't forget it: %v.", err)
	case out.Refusal != "":
		return textReply("You can't forget `%s`: %s.", m.ShortID(), out.Refusal)
	}
	if actor.ID != m.SubjectID || m.Scope != memory.ScopePersonal {
		a.audit(ctx, actor, db.AuditForget, m.ID.String(), "") // the id, never the forgotten text
	}
	return textReply("Forgotten `%s`: %s", m.ShortID(), escape(m.Content))
}

// exportMine sends v's own memories, personal and those they wrote for
// others, to their DM.
func (a *App) exportMine(ctx context.Context, v memory.Viewer) reply {
	var all []memory.Memory
	for _, authored := range []bool{false, true} {
		ms, err := a.memory.Mine(ctx, v, memory.MineQuery{Authored: authored, IncludeArchived: true, Limit: 10000})
		if err != nil {
			return textReply("Couldn't read your memories: %v.", err)
		}
		all = append(all, ms...)
	}
	// Sent by the installation of the workspace asked in, which an
	// external member's own may not be.
	team := v.Place.Team
	if team == "" {
		team = v.Actor.Team
	}
	return a.sendExport(ctx, team, v.Actor, v.Actor.ID, all)
}

// sendExport uploads memories as JSON to actor's DM, with team's bot.
func (a *App) sendExport(ctx context.Context, team string, actor provenance.Actor, user string, ms []memory.Memory) reply {
	type item struct {
		ID, Content, Kind, Scope, SourceKey, Visibility, ActorID, WrittenBy string
		ObservedAt, CreatedAt                                               time.Time
		ExpiresAt, ArchivedAt                                               *time.Time
		ArchivedReason                                                      string `json:",omitempty"`
	}
	out := make([]item, 0, len(ms))
	for _, m := range ms {
		out = append(out, item{m.ID.String(), m.Content, string(m.Kind), string(m.Scope), m.SourceKey, string(m.Visibility), m.ActorID, string(m.WrittenBy), m.ObservedAt, m.CreatedAt, m.ExpiresAt, m.ArchivedAt, m.ArchivedReason})
	}
	body, _ := json.MarshalIndent(map[string]any{"user": user, "team": team, "exportedAt": time.Now().UTC(), "memories": out}, "", "  ")
	b, err := a.bot(ctx, team)
	if err != nil {
		return textReply("Couldn't reach Slack: %v.", err)
	}
	dm, _, _, err := b.API.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{actor.ID}, ReturnIM: true})
	if err != nil {
		return textReply("Couldn't open a DM with you: %v.", err)
	}
	name := fmt.Sprintf("mnemo-memories-%s.json", user)
	if _, err := b.API.UploadFileContext(ctx, slack.UploadFileParameters{Channel: dm.ID, Filename: name, Title: name, Content: string(body), FileSize: len(body)}); err != nil {
		return textReply("Couldn't send the file: %v.", err)
	}
	if user != actor.ID {
		a.audit(ctx, actor, db.AuditExport, user, fmt.Sprintf("%d memories", len(out)))
		return textReply("Sent %d memories of <@%s> to your DM as %s.", len(out), user, name)
	}
	return textReply("Sent your %d memories to your DM as %s.", len(out), name)
}

func (a *App) audit(ctx context.Context, actor provenance.Actor, action db.AuditAction, target, detail string) {
	if err := a.db.Audit().Record(ctx, db.AuditEntry{Team: actor.Team, ActorID: actor.ID, Action: action, Target: target, Detail: detail}); err != nil {
		a.log.Error().Err(err).Str("action", string(action)).Msg("audit record failed")
	}
}

// webhookClient posts to response URLs, each post within Slack's own
// timeout for a Web API call. It follows no redirect: the URL posted to
// is the one responseURLAllowed allowed, and a 3xx fails the post (the
// answer is then ephemeral), where following it would go anywhere.
var webhookClient = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// withoutURL is err with the URL it failed on left out: a response URL is
// a credential (anyone holding it may answer the person for 30 minutes).
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s response_url: %w", ue.Op, ue.Err)
	}
	return err
}

// slackHooksHost is where Slack's response URLs point
// (https://hooks.slack.com/commands/…, /actions/…, /app/…).
const slackHooksHost = "hooks.slack.com"

// responseURLAllowed reports whether an answer may be posted to a response
// URL: https://hooks.slack.com/…, or the scheme and host of apiBase, the
// Web API base the bots were made with (SLACK_API_URL: a proxy's, a test
// server's). The payload is signed, so this is defence in depth: a URL
// that is not Slack's would have mnemo post the answer, which may quote
// memories, anywhere it names, the operator's own network included.
func responseURLAllowed(raw, apiBase string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Host == "" {
		return false
	}
	if u.Scheme == "https" && strings.EqualFold(u.Host, slackHooksHost) {
		return true
	}
	base, err := url.Parse(apiBase)
	if err != nil || base.Host == "" {
		return false
	}
	// GovSlack's Web API (slack-gov.com) sends its response URLs from its
	// own hooks host.
	if gov := strings.ToLower(base.Hostname()); u.Scheme == "https" && strings.EqualFold(u.Host, govHooksHost) && (gov == "slack-gov.com" || strings.HasSuffix(gov, ".slack-gov.com")) {
		return true
	}
	return u.Scheme == base.Scheme && strings.EqualFold(u.Host, base.Host)
}

// govHooksHost is GovSlack's slackHooksHost, allowed when SLACK_API_URL
// is GovSlack's.
const govHooksHost = "hooks.slack-gov.com"

// respond sends an ephemeral answer through the response URL, or to the
// user in the channel when there is none, when it is not Slack's (see
// responseURLAllowed) or when the post to it fails.
func (a *App) respond(ctx context.Context, team, responseURL, channel, user string, r reply) {
	if responseURL != "" && a.postResponse(ctx, responseURL, r) {
		return
	}
	opts := []slack.MsgOption{slack.MsgOptionText(r.text, false)}
	if len(r.blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(r.blocks...))
	}
	b, err := a.bot(ctx, team)
	if err != nil {
		a.log.Error().Err(err).Msg("ephemeral answer failed")
		return
	}
	if _, err := b.API.PostEphemeralContext(ctx, channel, user, opts...); err != nil {
		a.log.Error().Err(err).Msg("ephemeral answer failed")
	}
}

// postResponse posts r to a response URL that is Slack's
// (responseURLAllowed), and reports whether it did; when not, it says why
// in the log, without the URL's path (a credential).
func (a *App) postResponse(ctx context.Context, responseURL string, r reply) bool {
	if !responseURLAllowed(responseURL, a.slackAPIURL) {
		host := ""
		if u, err := url.Parse(responseURL); err == nil {
			host = u.Host
		}
		a.log.Warn().Str("host", host).Msg("response_url refused: not Slack's; answering ephemerally")
		return false
	}
	msg := &slack.WebhookMessage{Text: r.text, ResponseType: slack.ResponseTypeEphemeral, ReplaceOriginal: r.replace}
	if len(r.blocks) > 0 {
		msg.Blocks = &slack.Blocks{BlockSet: r.blocks}
	}
	if err := slack.PostWebhookCustomHTTPContext(ctx, responseURL, webhookClient, msg); err != nil {
		a.log.Warn().Err(withoutURL(err)).Msg("response_url failed; answering ephemerally")
		return false
	}
	return true
}
