// Package slackapp owns mnemo's Slack surface, over Socket Mode or signed
// HTTP requests (transport.go: each transport adapts what Slack delivered
// into one dispatch and acks through a small interface; http.go: Mount's
// routes, verified before they are parsed): mentions in
// channels, DMs and follow-ups in threads (events.go), the slash command
// (commands.go), interactivity (interactive.go), the App Home (home.go) and
// the users.info lookup that turns a live event into an actor
// (directory.go), the assistant container (assistant.go), streamed answers
// (stream.go) and reply feedback (feedback.go). A post that may need a turn
// is written to the inbox before its envelope is acked (over HTTP, before
// the 200), and not acked when that fails; the inbox then runs it through agent.Runner, with this
// package's Surface (surface.go: reactions, replies marked with the post
// they answer, Web API retries within a time budget). See docs/chat-flow.md
// and docs/assistant.md.
//
// It must not import learn, evals or a command, nor the database driver.
package slackapp
