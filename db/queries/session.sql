-- name: SessionMessageAppend :one
-- Appends a message to a thread's log; a message already logged (same ts) is kept as it was.
INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, authority, text, turn_id)
VALUES (@source_key, @team_id, @channel_id, @ts, @role, @actor_kind, @actor_id, @authority, @text, sqlc.narg(turn_id))
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

-- name: SessionMessageCountByThread :one
SELECT count(*) FROM session_messages WHERE source_key = @source_key;
