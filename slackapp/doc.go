// Package slackapp owns mnemo's Slack surface over Socket Mode: mentions in
// channels, DMs and follow-ups in threads (events.go), the slash command
// (commands.go), interactivity (interactive.go), the App Home (home.go) and
// the users.info lookup that turns a live event into an actor
// (directory.go), the assistant container (assistant.go), streamed answers
// (stream.go) and reply feedback (feedback.go). Every envelope is acked at
// once; the work happens after, through agent.Runner. See docs/chat-flow.md
// and docs/assistant.md.
//
// It must not import learn, evals or a command, nor the database driver.
package slackapp
