-- name: FeedbackUpsert :exec
INSERT INTO turn_feedback (turn_id, user_id, value, at)
VALUES (@turn_id, @user_id, @value, @at)
ON CONFLICT (turn_id, user_id) DO UPDATE SET value = excluded.value, at = excluded.at;

-- name: FeedbackTurnOfReply :one
-- The turn a bot message in the session log answered.
SELECT turn_id::bigint FROM session_messages
WHERE team_id = @team_id AND channel_id = @channel_id AND ts = @ts AND role = 'assistant' AND turn_id IS NOT NULL
LIMIT 1;

-- name: FeedbackGet :one
SELECT turn_id, user_id, value, at FROM turn_feedback WHERE turn_id = @turn_id AND user_id = @user_id;

-- name: FeedbackCounts :one
SELECT
    count(*) FILTER (WHERE f.value = 'positive')::bigint AS positive,
    count(*) FILTER (WHERE f.value = 'negative')::bigint AS negative
FROM turn_feedback f JOIN turns t ON t.id = f.turn_id
WHERE t.team_id = @team_id;
