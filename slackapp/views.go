package slackapp

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Action ids of mnemo's buttons.
const (
	ActionForget       = "mnemo_forget"
	ActionPage         = "mnemo_page"
	ActionHomePage     = "mnemo_home_page"
	ActionPurgeConfirm = "mnemo_purge_confirm"
	ActionPurgeCancel  = "mnemo_purge_cancel"
)

// Page sizes.
const (
	ListPageSize = 5
	HomePageSize = 10
)

func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
}
func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

// origin says where and how a memory was learned, for people (Slack renders
// the channel reference as its name).
func origin(m memory.Memory, now time.Time) string {
	where := "in a DM"
	switch m.Visibility {
	case provenance.Public, provenance.Private:
		where = "in <#" + m.ChannelID + ">"
	}
	how := map[provenance.WrittenBy]string{provenance.ByExplicit: "asked to remember", provenance.ByPassive: "learned from conversation", provenance.ByAdmin: "added by an admin", provenance.ByMCP: "via MCP"}[m.WrittenBy]
	who := ""
	if m.ActorID != "" && (m.Scope != memory.ScopePersonal || m.ActorID != m.SubjectID) {
		who = " from <@" + m.ActorID + ">"
	}
	return fmt.Sprintf("%s · %s%s %s, %s", m.Kind, how, who, where, memory.Age(m.ObservedAt, now))
}

// memoryBlock is a memory as a section, without buttons.
func memoryBlock(m memory.Memory, now time.Time) slack.Block {
	return slack.NewSectionBlock(mrkdwn(memoryText(m, now)), nil, nil)
}

// memoryBlockIn is a memory with its Forget button (unless it is
// archived), made in team: under an org-wide installation Slack names no
// workspace when it is pressed, so the button carries it (madeValue).
func memoryBlockIn(m memory.Memory, now time.Time, team string) slack.Block {
	var acc *slack.Accessory
	if m.ArchivedAt == nil {
		btn := slack.NewButtonBlockElement(ActionForget, madeValue(team, m.ID.String()), plain("Forget"))
		btn.Style = slack.StyleDanger
		acc = slack.NewAccessory(btn)
	}
	return slack.NewSectionBlock(mrkdwn(memoryText(m, now)), nil, acc)
}

// memoryText is a memory's text in its section: what it says, its id,
// scope and origin, and why it was archived.
func memoryText(m memory.Memory, now time.Time) string {
	text := fmt.Sprintf("*%s*\n`%s` · %s · %s", escape(m.Content), m.ShortID(), m.Scope, origin(m, now))
	if m.ArchivedAt != nil {
		text += fmt.Sprintf("\n_archived: %s_", escape(m.ArchivedReason))
	}
	return text
}

// escape keeps people's words from being read as Slack markup.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Home is what the App Home tab shows a person.
type Home struct {
	// Team is the workspace the Home's buttons say they were made for
	// (madeFor): the one it is published in, under an org-wide
	// installation, where Slack names none when they are pressed.
	Team     string
	Personal []Memory // a page of their personal memories (one more means a next page)
	Total    int64    // all their active personal memories
	Offset   int
	// Shared are a page of the channel and workspace memories they wrote,
	// with where (one more means a next page), from SharedOffset. They are
	// shown with the first page of the personal ones (Offset 0).
	Shared       []Memory
	SharedOffset int
	// Notice is said at the top, once: why a Forget pressed on the Home
	// did nothing.
	Notice string
	// LearningHere is passive learning in their DM with mnemo; LearningMe
	// is passive learning about them anywhere.
	LearningHere, LearningMe Setting
}

// Setting is a learning setting as the Home shows it. Its zero value is
// unknown (it could not be read), shown as neither on nor off: a wrong
// one would tell a person mnemo learns, or does not, when it may not.
type Setting int8

// The states of a Setting.
const (
	SettingUnknown Setting = iota
	SettingOn
	SettingOff
)

// settingOf is a setting read as on or off.
func settingOf(on bool) Setting {
	if on {
		return SettingOn
	}
	return SettingOff
}

// Memory is the memory type the views render.
type Memory = memory.Memory

// HomeView is the App Home tab: what mnemo remembers about the viewer, and
// what they wrote for others.
func HomeView(h Home, now time.Time) slack.HomeTabViewRequest {
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("What mnemo remembers about you")),
	}
	// A setting that could not be read is said to be so, and its toggle
	// is not offered: it would be a guess at which way to turn it.
	here, me := "passive learning in our DM could not be read", "learning about you could not be read"
	onOff := map[Setting]string{SettingOn: "on", SettingOff: "off"}
	if s, ok := onOff[h.LearningHere]; ok {
		here = "passive learning in our DM is " + s
	}
	if s, ok := onOff[h.LearningMe]; ok {
		me = "learning about you is " + s + " (`/mnemo learning me on|off`)"
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("%d memories · %s · %s · mnemo learns what you ask it to remember and what you state in conversations with it", h.Total, here, me))))
	if h.Notice != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(":warning: "+escape(h.Notice)), nil, nil))
	}
	blocks = append(blocks, slack.NewDividerBlock())
	if len(h.Personal) == 0 && h.Offset == 0 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("Nothing yet. Ask me to remember something, like _\"remember that I prefer terse PR summaries\"_."), nil, nil))
	}
	for i, m := range h.Personal {
		if i == HomePageSize {
			break
		}
		blocks = append(blocks, memoryBlockIn(m, now, h.Team))
	}
	if nav := pager(ActionHomePage, h.Offset, HomePageSize, len(h.Personal) > HomePageSize, func(o int) string { return madeValue(h.Team, fmt.Sprint(o)) }); nav != nil {
		blocks = append(blocks, nav)
	}
	if (len(h.Shared) > 0 || h.SharedOffset > 0) && h.Offset == 0 {
		blocks = append(blocks, slack.NewDividerBlock(), slack.NewHeaderBlock(plain("What you asked mnemo to remember for others")))
		for i, m := range h.Shared {
			if i == HomePageSize {
				break
			}
			blocks = append(blocks, memoryBlockIn(m, now, h.Team))
		}
		// Its pager names its pages as homePage reads them.
		if nav := pager(ActionHomePage, h.SharedOffset, HomePageSize, len(h.Shared) > HomePageSize, func(o int) string { return madeValue(h.Team, fmt.Sprint(-o)) }); nav != nil {
			nav.(*slack.ActionBlock).BlockID = "mnemo_shared_pager" // a view's block ids are unique
			blocks = append(blocks, nav)
		}
	}
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}, CallbackID: "mnemo_home"}
}

// homePage reads the page a Home pager button names (ActionHomePage
// carries one number): 0 or more is that offset into the personal
// memories, with the first page of the shared ones; below 0, the personal
// memories' first page and the shared ones from -page. A page no pager
// makes (from a crafted or stale value) is read by pageOffset: the first.
func homePage(page int) (offset, sharedOffset int) {
	if page < 0 {
		return 0, pageOffset(-page) // -page is below 0 again for the least int
	}
	return pageOffset(page), 0
}

// maxPageOffset is the furthest offset a pager button may name: far past
// any list a person pages through, and with a page after it still within
// the int4 the database takes an OFFSET as (db converts it, and a larger
// one would wrap around to a negative OFFSET).
const maxPageOffset = 1 << 30

// pageOffset is the offset a pager button names as a list may be read
// from: one below 0 or past maxPageOffset, which no pager makes, is the
// first page's, 0.
func pageOffset(o int) int {
	if o < 0 || o > maxPageOffset {
		return 0
	}
	return o
}

// historyBlocks renders a memory's history for /mnemo history.
func historyBlocks(m memory.Memory, events []memory.Event, now time.Time) []slack.Block {
	blocks := []slack.Block{memoryBlock(m, now)}
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "• %s · %s by %s via %s", e.At.UTC().Format("2006-01-02 15:04"), e.Action, actorRef(e.ActorID), e.Path)
		if e.Reason != "" {
			fmt.Fprintf(&b, ": %s", escape(e.Reason))
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		b.WriteString("No recorded changes.")
	}
	return append(blocks, slack.NewSectionBlock(mrkdwn(b.String()), nil, nil))
}

func pager(action string, offset, size int, more bool, value func(int) string) slack.Block {
	var els []slack.BlockElement
	if offset > 0 {
		els = append(els, slack.NewButtonBlockElement(action, value(max(offset-size, 0)), plain("Previous")))
	}
	if more {
		els = append(els, slack.NewButtonBlockElement(action, value(offset+size), plain("Next")))
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewActionBlock("mnemo_pager", els...)
}
