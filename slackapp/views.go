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
	if m.ActorID != "" && m.ActorID != m.SubjectID {
		who = " from <@" + m.ActorID + ">"
	}
	return fmt.Sprintf("%s · %s%s %s, %s", m.Kind, how, who, where, memory.Age(m.ObservedAt, now))
}

func memoryBlock(m memory.Memory, now time.Time, withForget bool) slack.Block {
	text := fmt.Sprintf("*%s*\n`%s` · %s · %s", escape(m.Content), m.ShortID(), m.Scope, origin(m, now))
	if m.ArchivedAt != nil {
		text += fmt.Sprintf("\n_archived: %s_", m.ArchivedReason)
	}
	var acc *slack.Accessory
	if withForget && m.ArchivedAt == nil {
		btn := slack.NewButtonBlockElement(ActionForget, m.ID.String(), plain("Forget"))
		btn.Style = slack.StyleDanger
		acc = slack.NewAccessory(btn)
	}
	return slack.NewSectionBlock(mrkdwn(text), nil, acc)
}

// escape keeps people's words from being read as Slack markup.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// HomeView is the App Home tab: what mnemo remembers about the viewer.
func HomeView(ms []memory.Memory, total int64, offset int, learningOn bool, now time.Time) slack.HomeTabViewRequest {
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("What mnemo remembers about you")),
	}
	status := "on"
	if !learningOn {
		status = "off"
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("%d memories · passive learning in our DM is %s · mnemo learns what you ask it to remember and what you state in conversations with it", total, status))))
	blocks = append(blocks, slack.NewDividerBlock())
	if len(ms) == 0 && offset == 0 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("Nothing yet. Ask me to remember something, like _\"remember that I prefer terse PR summaries\"_."), nil, nil))
	}
	for i, m := range ms {
		if i == HomePageSize {
			break
		}
		blocks = append(blocks, memoryBlock(m, now, true))
	}
	if nav := pager(ActionHomePage, offset, HomePageSize, len(ms) > HomePageSize, func(o int) string { return fmt.Sprint(o) }); nav != nil {
		blocks = append(blocks, nav)
	}
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}, CallbackID: "mnemo_home"}
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
