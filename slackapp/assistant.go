package slackapp

import (
	"context"
	"strings"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// Slack's assistant container: a person opens a thread with mnemo in its
// own pane. The thread is a DM thread, so its messages arrive as message.im
// and are answered like any DM; what the container adds is suggested
// prompts when it opens, a title, and a status line while a turn runs.

// Fixed suggested prompts: what mnemo can do.
var (
	promptRecall   = slack.AssistantThreadsPrompt{Title: "What do you remember about me?", Message: "What do you remember about me?"}
	promptRemember = slack.AssistantThreadsPrompt{Title: "Remember a preference", Message: "Remember that I prefer short answers."}
	promptAbout    = slack.AssistantThreadsPrompt{Title: "What can you do?", Message: "What can you do, and how do I make you forget something?"}
)

// maxTitle keeps a thread's title to one line of the container's list.
const maxTitle = 60

func (a *App) onAssistantThreadStarted(ctx context.Context, d *delivery) {
	a.ack(d)
	e, _ := d.data.(slackevents.EventsAPIEvent)
	m, ok := e.InnerEvent.Data.(*slackevents.AssistantThreadStartedEvent)
	if !ok || m.AssistantThread.ChannelID == "" || m.AssistantThread.ThreadTimeStamp == "" || m.AssistantThread.UserID == "" {
		a.log.Error().Str("envelope_id", d.id).Msg("assistant_thread_started without a thread rejected")
		return
	}
	th := m.AssistantThread
	a.async(ctx, func(ctx context.Context) {
		params := slack.AssistantThreadsSetSuggestedPromptsParameters{ChannelID: th.ChannelID, ThreadTS: th.ThreadTimeStamp, Title: "Ask mnemo, or try:"}
		b, err := a.bot(ctx, e.TeamID)
		if err != nil {
			a.log.Warn().Err(err).Msg("suggested prompts not set")
			return
		}
		params.Prompts = a.suggestedPrompts(ctx, e.TeamID, th.UserID, th.ChannelID)
		if err := b.API.SetAssistantThreadsSuggestedPromptsContext(ctx, params); err != nil {
			a.log.Warn().Err(err).Str("channel", th.ChannelID).Msg("suggested prompts not set")
		}
	})
}

// onAssistantContextChanged notes that the person moved to another channel
// with the container open. mnemo answers from its own memory, not from the
// channel being viewed, so nothing changes.
func (a *App) onAssistantContextChanged(_ context.Context, d *delivery) {
	a.ack(d)
	e, _ := d.data.(slackevents.EventsAPIEvent)
	if m, ok := e.InnerEvent.Data.(*slackevents.AssistantThreadContextChangedEvent); ok {
		a.log.Debug().Str("channel", m.AssistantThread.ChannelID).Str("viewing", m.AssistantThread.Context.ChannelID).Msg("assistant thread context changed")
	}
}

// suggestedPrompts are what mnemo can do, with one prompt made from the
// person's newest memory: shown only to them, in their DM, so only what
// the visibility rule lets them see privately (memory.Store.Mine), and,
// since a prompt pressed becomes a message to the model, as a model may be
// shown it (no sensitive memory said elsewhere).
func (a *App) suggestedPrompts(ctx context.Context, team, user, channel string) []slack.AssistantThreadsPrompt {
	prompts := []slack.AssistantThreadsPrompt{promptRecall, promptRemember}
	actor, err := a.dir.ActorFromEvent(ctx, team, user)
	if err != nil {
		a.log.Warn().Err(err).Msg("actor not enriched")
	}
	v := memory.Viewer{Actor: actor, Place: provenance.Place{Team: team, Channel: channel, Visibility: provenance.DM}, Private: true, Model: true}
	ms, err := a.memory.Mine(ctx, v, memory.MineQuery{Limit: 1})
	if err != nil {
		a.log.Warn().Err(err).Msg("memories for suggested prompts")
	}
	if len(ms) == 0 {
		return append(prompts, promptAbout)
	}
	content := ms[0].Content
	return append(prompts, slack.AssistantThreadsPrompt{Title: clip("Forget “"+content, 40) + "”", Message: "Forget " + content})
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// assistantThread reports whether p is in a thread of a DM, which is where
// the assistant container's threads live; the status line and the title
// apply there only.
func assistantThread(p agent.Post) bool {
	return p.Place.Visibility == provenance.DM && p.Key.Root != p.TS
}

// Status shows a turn's step on the assistant thread's status line
// (agent.StatusReporter). Elsewhere reactions show the turn's phase.
func (s *surface) Status(ctx context.Context, p agent.Post, text string) {
	if !assistantThread(p) {
		return
	}
	err := s.bot.API.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{ChannelID: p.Key.Channel, ThreadTS: string(p.Key.Root), Status: "is " + text})
	if err != nil {
		s.a.log.Debug().Err(err).Msg("assistant status not set")
	}
}

// titleThread names an assistant thread after its first request.
func (a *App) titleThread(ctx context.Context, b install.Bot, p agent.Post) {
	if !assistantThread(p) {
		return
	}
	history, err := a.db.Sessions().History(ctx, p.Key, threads.HistoryLimit)
	if err != nil {
		a.log.Warn().Err(err).Msg("thread title: session log")
		return
	}
	requests := 0
	for _, m := range history {
		if m.Role == threads.RoleUser && m.Authority == provenance.Instruction {
			requests++
		}
	}
	if requests != 1 {
		return
	}
	err = b.API.SetAssistantThreadsTitleContext(ctx, slack.AssistantThreadsSetTitleParameters{ChannelID: p.Key.Channel, ThreadTS: string(p.Key.Root), Title: clip(p.Text, maxTitle)})
	if err != nil {
		a.log.Debug().Err(err).Msg("assistant thread title not set")
	}
}
