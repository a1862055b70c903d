-- Per-channel switches set by admins.

-- name: ChannelLearningEnabled :one
-- Learning is on unless an admin turned it off for the channel.
SELECT coalesce((SELECT learning_enabled FROM channel_settings
                 WHERE team_id = @team_id AND channel_id = @channel_id), true)::boolean;

-- name: ChannelLearningSet :execrows
-- It holds off its team's erasure until it commits, as a memory write does
-- (MemoryHoldErasure), and while one runs it writes nothing (no row): the
-- erasure may have deleted the settings already.
INSERT INTO channel_settings (team_id, channel_id, learning_enabled, updated_by)
SELECT @team_id, @channel_id, @learning_enabled, @updated_by
WHERE pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text))
ON CONFLICT (team_id, channel_id) DO UPDATE
SET learning_enabled = EXCLUDED.learning_enabled, updated_by = EXCLUDED.updated_by, updated_at = now();

-- name: UserLearningEnabled :one
-- Learning about a person is on unless they turned it off.
SELECT coalesce((SELECT learning_enabled FROM user_settings
                 WHERE team_id = @team_id AND user_id = @user_id), true)::boolean;

-- name: UserLearningSet :execrows
-- Held off by its team's erasure as ChannelLearningSet is.
INSERT INTO user_settings (team_id, user_id, learning_enabled)
SELECT @team_id, @user_id, @learning_enabled
WHERE pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text))
ON CONFLICT (team_id, user_id) DO UPDATE
SET learning_enabled = EXCLUDED.learning_enabled, updated_at = now();
