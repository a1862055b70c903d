// Package inbox is mnemo's durable inbox: every Slack post that may need a
// turn is written here, as a River job in mnemo's own database, before its
// envelope is acked. A job is unique by post (team, channel, ts), so Slack's
// retries, the message+app_mention pair and a second replica's copy are one
// job; River runs it at least once, and the turn runner posts its reply at
// most once.
//
// Turns of one thread run one at a time, on any replica: a job takes the
// thread's lease (db.Leases) and renews it while it works, and a job whose
// thread is busy snoozes. No database lock is held across a model or Slack
// call. A process that dies leaves a lease that expires; any replica hands
// its job back to the queue with River's own rescue, long before River's
// time-based rescuer would. After its last attempt a post's author is told
// that it failed.
//
// The package owns the process's one River client: passive learning's jobs
// share it (Options.Register). It imports db and threads, and River.
package inbox
