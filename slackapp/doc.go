// Package slackapp owns mnemo's Slack surface over Socket Mode: mentions in
// channels, DMs and follow-ups in threads, the slash command, interactivity
// and the App Home. Every envelope is acked at once; the work happens after.
// See docs/chat-flow.md.
package slackapp
