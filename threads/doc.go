// Package threads owns what identifies a Slack thread: strict parsing of
// Slack message timestamps, the thread's sourceKey
// (slack:<team>:<channel>:<root_ts>), and the vocabulary of a thread's
// messages. The session log that stores them is db.Sessions.
//
// It must not import any mnemo package but provenance, nor a database or
// Slack client.
package threads
