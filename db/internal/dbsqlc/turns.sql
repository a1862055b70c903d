-- One turn per human post, and the record of its passive learning.

-- name: TurnClaim :one
-- Claims the turn for one human post; no row means it was already claimed.
INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id, visibility)
VALUES (@team_id, @channel_id, @message_ts, @source_key, @actor_id, @visibility)
ON CONFLICT (team_id, channel_id, message_ts) DO NOTHING
RETURNING *;

-- name: TurnFinish :exec
UPDATE turns
SET status = @status, used_memory_write = @used_memory_write, finished_at = now()
WHERE id = @id;

-- name: TurnGetByID :one
SELECT * FROM turns WHERE id = @id;

-- name: TurnLearningRecord :execrows
-- Records that a turn's extraction decided; zero rows means it already had.
INSERT INTO turn_learning (turn_id, stored, dropped)
VALUES (@turn_id, @stored, @dropped)
ON CONFLICT (turn_id) DO NOTHING;

-- name: TurnLearningGet :one
SELECT * FROM turn_learning WHERE turn_id = @turn_id;

-- name: TurnFailStale :execrows
-- Turns left running by a process that died: past any turn's deadline, they
-- are marked failed so stats and learning don't wait on them.
UPDATE turns SET status = 'failed', finished_at = now()
WHERE status = 'running' AND created_at < @before;
