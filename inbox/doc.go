// Package inbox is mnemo's durable inbox: every Slack post that may need a
// turn is written here, in mnemo's own database, before its envelope is
// acked. The ack waits for one statement: an INSERT into inbox_arrivals,
// committed durably on its own, keyed by post (team, channel, ts), so
// Slack's retries, the message+app_mention pair and a second replica's copy
// are one row and are reported as duplicates. A mover on every replica then
// takes each arrival into River, as the post's job, in one transaction
// with marking it moved, so it moves once even when two replicas race, and
// an arrival left by a process that died before moving it is moved by the
// next start or another replica's sweep. The job is unique by post too,
// the last guard once a moved arrival is forgotten (after a day); River
// runs it at least once, and the turn runner posts its reply at most once.
//
// Turns of one thread run one at a time, on any replica: a job takes the
// thread's lease (db.Leases), through its handler, in the same round trip
// as the handler's record of the post (Handler.Accept, Claim), renews it
// while it works, and a job whose thread is busy snoozes. No database lock is held across a model or Slack
// call. A process that dies leaves a lease that expires; any replica hands
// its job back to the queue with River's own rescue, long before River's
// time-based rescuer would. After its last attempt a post's author is told
// that it failed.
//
// The package owns the process's one River client: passive learning's jobs
// share it (Options.Register). It imports db and threads, and River.
package inbox
