-- name: SessionMessageAppend :one
-- Appends a message to a thread's log; a message already logged (same ts) is kept as it was.
-- A line of no turn (context) holds off its team's erasure until it
-- commits, as a memory write does (MemoryHoldErasure), and is not logged
-- (no row) while one runs: the erasure may have deleted the log already.
-- A turn's line needs no lock: deleting its turn waits for it.
INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, actor_team, authority, text, turn_id, tools)
SELECT @source_key, @team_id, @channel_id, @ts, @role, @actor_kind, @actor_id, @actor_team, @authority, @text, sqlc.narg(turn_id), @tools
WHERE CASE WHEN sqlc.narg(turn_id)::bigint IS NULL
    THEN pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text)) ELSE true END
ON CONFLICT (source_key, ts) DO UPDATE SET source_key = EXCLUDED.source_key
RETURNING *;

-- name: SessionMessageListByThread :many
-- The last @max_messages messages of a thread, oldest first.
SELECT * FROM (
    SELECT * FROM session_messages
    WHERE source_key = @source_key
    ORDER BY ts DESC, id DESC
    LIMIT @max_messages
) recent
ORDER BY ts, id;

-- name: SessionMessageListForTurn :many
-- The thread's messages up to the last one of the turn, newest @max_messages, oldest first.
SELECT * FROM (
    SELECT s.* FROM session_messages s
    WHERE s.source_key = @source_key
      AND s.id <= (SELECT max(x.id) FROM session_messages x WHERE x.turn_id = @turn_id)
    ORDER BY s.id DESC
    LIMIT @max_messages
) recent
ORDER BY id;

-- name: SessionMessageLastIDBeforeTurn :one
-- The last message of the thread that belongs to an earlier turn, or 0.
SELECT coalesce(max(s.id), 0)::bigint FROM session_messages s
WHERE s.source_key = @source_key AND s.turn_id IS NOT NULL AND s.turn_id < @turn_id;

-- name: SessionMessageRecentInChannel :many
-- A channel's messages since @since outside one thread, newest @max_messages,
-- oldest first: the DM's recent conversation a top-level message continues.
SELECT * FROM (
    SELECT * FROM session_messages
    WHERE team_id = @team_id AND channel_id = @channel_id AND source_key <> @source_key
      AND created_at >= @since
    ORDER BY created_at DESC, id DESC
    LIMIT @max_messages
) recent
ORDER BY created_at, id;

-- name: SessionBackfillNeeded :one
-- Whether a thread's earlier messages must still be read from Slack: no
-- backfill of it completed, and its root is not in the log (a thread the
-- bot saw start has nothing earlier to read).
SELECT (NOT EXISTS (SELECT 1 FROM thread_backfills b WHERE b.source_key = @source_key::text)
    AND NOT EXISTS (SELECT 1 FROM session_messages s WHERE s.source_key = @source_key::text AND s.ts = @root_ts::text))::boolean AS needed;

-- name: SessionBackfill :one
-- Marks a thread's backfill as done and logs the messages read from Slack,
-- in one statement: all of it or none. When an earlier backfill of the
-- thread was done, nothing is logged (marked is false). Messages already
-- logged are kept as they were. It holds off its team's erasure as
-- SessionMessageAppend's context line does, and while one runs it writes
-- nothing (held is false).
WITH hold AS (
    SELECT pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text)) AS held
), mark AS (
    INSERT INTO thread_backfills (source_key, messages)
    SELECT @source_key::text, cardinality(@ts::text[])
    FROM hold WHERE hold.held
    ON CONFLICT (source_key) DO NOTHING
    RETURNING source_key
), logged AS (
    INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, actor_team, authority, text)
    SELECT @source_key::text, @team_id::text, @channel_id::text, (@ts::text[])[i], (@role::text[])[i],
        (@actor_kind::text[])[i], (@actor_id::text[])[i], (@actor_team::text[])[i], (@authority::text[])[i], (@text::text[])[i]
    FROM generate_subscripts(@ts::text[], 1) AS i
    WHERE EXISTS (SELECT 1 FROM mark)
    ON CONFLICT (source_key, ts) DO NOTHING
    RETURNING 1
)
SELECT (SELECT held FROM hold)::boolean AS held, EXISTS (SELECT 1 FROM mark)::boolean AS marked, (SELECT count(*) FROM logged)::int AS logged;

-- name: SessionMessageAppendPost :exec
-- Logs a post with its turn, unless a message with its ts is logged
-- already. Part of the batch that takes a post (Turns.Take), after the turn;
-- nothing while its team's erasure runs, as TurnOpen.
INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, actor_team, authority, text, turn_id, tools)
SELECT @source_key, @team_id, @channel_id, @ts, @role, @actor_kind, @actor_id, @actor_team, @authority, @text, t.id, ''
FROM turns t
WHERE t.team_id = @team_id AND t.channel_id = @channel_id AND t.message_ts = @ts
  AND pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text))
ON CONFLICT (source_key, ts) DO NOTHING;
