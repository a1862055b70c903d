-- name: InboundEventClaim :execrows
-- Claims a Socket Mode event id; zero rows means another delivery took it.
INSERT INTO inbound_events (event_id, envelope_id)
VALUES (@event_id, @envelope_id)
ON CONFLICT (event_id) DO NOTHING;

-- name: TurnClaim :one
-- Claims the turn for one human post; no row means it was already claimed.
INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id)
VALUES (@team_id, @channel_id, @message_ts, @source_key, @actor_id)
ON CONFLICT (team_id, channel_id, message_ts) DO NOTHING
RETURNING *;

-- name: TurnFinish :exec
UPDATE turns
SET status = @status, used_memory_write = @used_memory_write, finished_at = now()
WHERE id = @id;

-- name: TurnGetByID :one
SELECT * FROM turns WHERE id = @id;
