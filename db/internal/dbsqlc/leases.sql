-- Thread leases: one turn at a time per thread, across replicas.

-- name: ThreadLeaseAcquire :one
-- Takes the thread's lease when nobody holds it (or this job, in this
-- process, already does) and no earlier post of the thread is waiting for it.
INSERT INTO thread_leases (source_key, post_ts, job_id, holder, expires_at)
SELECT @source_key::text, @post_ts::text, @job_id, @holder, now() + make_interval(secs => @ttl_seconds::float8)
WHERE NOT EXISTS (
    SELECT 1 FROM thread_waiters w
    WHERE w.source_key = @source_key::text
      AND w.post_ts::numeric < (@post_ts::text)::numeric
      AND w.seen_at > now() - make_interval(secs => @waiter_fresh_seconds::float8)
)
ON CONFLICT (source_key) DO UPDATE
SET post_ts = EXCLUDED.post_ts, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
WHERE thread_leases.job_id = EXCLUDED.job_id AND thread_leases.holder = EXCLUDED.holder
RETURNING job_id;

-- name: ThreadLeaseRenew :execrows
UPDATE thread_leases SET expires_at = now() + make_interval(secs => @ttl_seconds::float8)
WHERE source_key = @source_key AND job_id = @job_id;

-- name: ThreadLeaseRelease :exec
DELETE FROM thread_leases WHERE source_key = @source_key AND job_id = @job_id;

-- name: ThreadLeaseReapExpired :many
-- Removes leases whose holder stopped renewing them, and returns them so
-- their jobs can be handed back to the queue.
DELETE FROM thread_leases
WHERE source_key IN (
    SELECT l.source_key FROM thread_leases l
    WHERE l.expires_at < now()
    ORDER BY l.expires_at
    LIMIT @max_leases
    FOR UPDATE SKIP LOCKED
)
RETURNING *;

-- name: ThreadWaiterUpsert :exec
INSERT INTO thread_waiters (source_key, post_ts) VALUES (@source_key, @post_ts)
ON CONFLICT (source_key, post_ts) DO UPDATE SET seen_at = now();

-- name: ThreadWaiterDelete :exec
DELETE FROM thread_waiters WHERE source_key = @source_key AND post_ts = @post_ts;

-- name: ThreadWaiterPrune :execrows
-- Waiters that stopped waiting (their post was answered elsewhere, or its
-- job ended) no longer hold back later posts; this drops their rows.
DELETE FROM thread_waiters WHERE seen_at < @before;

-- name: ThreadLeaseAcquireForTurn :exec
-- ThreadLeaseAcquire for a post whose turn is running: a finished turn
-- takes no lease. Part of the batch that takes a post (Turns.Take);
-- none while its team's erasure runs, as TurnOpen.
INSERT INTO thread_leases (source_key, post_ts, job_id, holder, expires_at)
SELECT @source_key::text, @post_ts::text, @job_id, @holder, now() + make_interval(secs => @ttl_seconds::float8)
WHERE NOT EXISTS (
    SELECT 1 FROM thread_waiters w
    WHERE w.source_key = @source_key::text
      AND w.post_ts::numeric < (@post_ts::text)::numeric
      AND w.seen_at > now() - make_interval(secs => @waiter_fresh_seconds::float8)
)
  AND EXISTS (
    SELECT 1 FROM turns t
    WHERE t.team_id = @team_id::text AND t.channel_id = @channel_id::text AND t.message_ts = @post_ts::text AND t.status = 'running'
)
  AND pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text))
ON CONFLICT (source_key) DO UPDATE
SET post_ts = EXCLUDED.post_ts, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
WHERE thread_leases.job_id = EXCLUDED.job_id AND thread_leases.holder = EXCLUDED.holder;

-- name: ThreadWaiterSettle :exec
-- After ThreadLeaseAcquireForTurn: a post that took its thread waits no
-- more; one whose running turn did not take it waits, before later posts.
-- Neither while its team's erasure runs, as TurnOpen (nor a wait for the
-- waiter it deleted).
WITH held AS (
    SELECT EXISTS (
        SELECT 1 FROM thread_leases l
        WHERE l.source_key = @source_key::text AND l.job_id = @job_id AND l.holder = @holder
    ) AS held
), erasing AS (
    SELECT NOT pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text)) AS erasing
), gone AS (
    DELETE FROM thread_waiters w
    WHERE w.source_key = @source_key::text AND w.post_ts = @post_ts::text AND (SELECT held FROM held)
      AND NOT (SELECT erasing FROM erasing)
)
INSERT INTO thread_waiters (source_key, post_ts)
SELECT @source_key::text, @post_ts::text
WHERE NOT (SELECT held FROM held)
  AND EXISTS (
    SELECT 1 FROM turns t
    WHERE t.team_id = @team_id::text AND t.channel_id = @channel_id::text AND t.message_ts = @post_ts::text AND t.status = 'running'
)
  AND NOT (SELECT erasing FROM erasing)
ON CONFLICT (source_key, post_ts) DO UPDATE SET seen_at = now();
