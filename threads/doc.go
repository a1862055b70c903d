// Package threads owns what identifies a Slack thread: strict parsing of
// Slack message timestamps, the thread's sourceKey
// (slack:<team>:<channel>:<root_ts>), and the per-thread session log that
// gives every turn its conversation so far.
package threads
