package slackapp

import (
	"github.com/slack-go/slack/socketmode"
)

func (a *App) onAppHomeOpened(evt *socketmode.Event, _ *socketmode.Client) {
	a.ack(evt)
}

func (a *App) onSlashCommand(evt *socketmode.Event, _ *socketmode.Client) {
	a.ack(evt)
}

func (a *App) onInteractive(evt *socketmode.Event, _ *socketmode.Client) {
	a.ack(evt)
}
