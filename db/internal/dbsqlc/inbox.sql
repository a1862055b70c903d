-- The inbox: posts arrived but not yet moved into River (inbox_arrivals),
-- and jobs of the turns queue as River keeps them.

-- name: InboxArrive :one
-- One statement, autocommit, on the ack path: arrived is false when the
-- post is already there (waiting, or moved within the last day). It holds
-- off its team's erasure until it commits, as a memory write does
-- (MemoryHoldErasure), and while one runs it writes nothing (held is false):
-- the erasure may have deleted the inbox already.
WITH hold AS (
    SELECT pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team::text)) AS held
), arrived AS (
    INSERT INTO inbox_arrivals (team, channel, ts, args)
    SELECT @team, @channel, @ts, @args
    FROM hold WHERE hold.held
    ON CONFLICT DO NOTHING
    RETURNING 1
)
SELECT (SELECT held FROM hold)::boolean AS held, EXISTS (SELECT 1 FROM arrived)::boolean AS arrived;

-- name: InboxTakeArrival :one
-- Claims the oldest arrival no other transaction holds and marks it moved;
-- the caller inserts its job in the same transaction, and a rollback puts
-- it back. more says whether others waited beside it (the statement's
-- snapshot still shows this one unmoved), so the mover need not ask again
-- to learn there are none.
UPDATE inbox_arrivals a SET moved_at = now()
WHERE (a.team, a.channel, a.ts) = (
    SELECT w.team, w.channel, w.ts FROM inbox_arrivals w
    WHERE w.moved_at IS NULL
    ORDER BY w.arrived_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
) AND a.moved_at IS NULL
RETURNING a.team, a.channel, a.ts, a.args, a.arrived_at,
    EXISTS (
        SELECT 1 FROM inbox_arrivals o
        WHERE o.moved_at IS NULL AND (o.team, o.channel, o.ts) <> (a.team, a.channel, a.ts)
    ) AS more;

-- name: InboxPruneMoved :execrows
-- Forgets arrivals moved more than @keep_seconds ago, at most @max_rows.
DELETE FROM inbox_arrivals
WHERE (team, channel, ts) IN (
    SELECT p.team, p.channel, p.ts FROM inbox_arrivals p
    WHERE p.moved_at < now() - make_interval(secs => @keep_seconds::float8)
    LIMIT @max_rows::int
);

-- name: InboxArrivals :one
-- Arrivals not yet moved into River, and the age of the oldest in seconds
-- by the database's clock (0 when there are none).
SELECT
    count(*)::bigint AS waiting,
    coalesce(extract(epoch FROM now() - min(a.arrived_at)), 0)::float8 AS oldest_age_seconds
FROM inbox_arrivals a
WHERE a.moved_at IS NULL;

-- name: InboxDepth :one
-- Posts not yet answered, by where they are: arrived (not yet moved into
-- River) and the queue's states; and when the oldest arrived (now, when
-- there are none).
WITH arrived AS (
    SELECT count(*)::bigint AS n, min(a.arrived_at) AS oldest
    FROM inbox_arrivals a
    WHERE a.moved_at IS NULL
), queued AS (
    SELECT
        count(*) FILTER (WHERE j.state = 'available')::bigint AS available,
        count(*) FILTER (WHERE j.state = 'running')::bigint AS running,
        count(*) FILTER (WHERE j.state IN ('scheduled', 'retryable', 'pending'))::bigint AS waiting,
        min(j.created_at) AS oldest
    FROM river_job j
    WHERE j.queue = @queue AND j.state IN ('available', 'running', 'scheduled', 'retryable', 'pending')
)
SELECT
    arrived.n AS arrived,
    queued.available,
    queued.running,
    queued.waiting,
    coalesce(least(arrived.oldest, queued.oldest), now())::timestamptz AS oldest
FROM arrived, queued;
