-- The inbox as River keeps it: jobs of the turns queue.

-- name: InboxDepth :one
-- Posts not yet answered, by where they are, and when the oldest arrived
-- (now, when there are none).
SELECT
    count(*) FILTER (WHERE j.state = 'available')::bigint AS available,
    count(*) FILTER (WHERE j.state = 'running')::bigint AS running,
    count(*) FILTER (WHERE j.state IN ('scheduled', 'retryable', 'pending'))::bigint AS waiting,
    coalesce(min(j.created_at), now())::timestamptz AS oldest
FROM river_job j
WHERE j.queue = @queue AND j.state IN ('available', 'running', 'scheduled', 'retryable', 'pending');
