-- Per-channel switches set by admins.

-- name: ChannelLearningEnabled :one
-- Learning is on unless an admin turned it off for the channel.
SELECT coalesce((SELECT learning_enabled FROM channel_settings
                 WHERE team_id = @team_id AND channel_id = @channel_id), true)::boolean;

-- name: ChannelLearningSet :exec
INSERT INTO channel_settings (team_id, channel_id, learning_enabled, updated_by)
VALUES (@team_id, @channel_id, @learning_enabled, @updated_by)
ON CONFLICT (team_id, channel_id) DO UPDATE
SET learning_enabled = EXCLUDED.learning_enabled, updated_by = EXCLUDED.updated_by, updated_at = now();

-- name: UserLearningEnabled :one
-- Learning about a person is on unless they turned it off.
SELECT coalesce((SELECT learning_enabled FROM user_settings
                 WHERE team_id = @team_id AND user_id = @user_id), true)::boolean;

-- name: UserLearningSet :exec
INSERT INTO user_settings (team_id, user_id, learning_enabled)
VALUES (@team_id, @user_id, @learning_enabled)
ON CONFLICT (team_id, user_id) DO UPDATE
SET learning_enabled = EXCLUDED.learning_enabled, updated_at = now();
