// Package agent owns a turn: the Runner takes one post through its whole
// life for every front end (accept: record the turn, backfill and log the
// post; recall and the model loop; keep what it decided to say; post it;
// record it as posted, and hand off to learning), any step of which can be
// run again after a crash without a second reply; and Agent.Run is the model
// loop itself: recall what is relevant, give the model the thread so far and
// the registry's tools, and run the tool-use loop within a step limit and a
// deadline. Front ends pass a Surface for what differs (Slack in slackapp,
// the terminal in package terminal).
// See docs/architecture.md and docs/chat-flow.md.
//
// It must not import slackapp, learn, evals or a command, nor the database
// driver: storage is db's.
package agent
