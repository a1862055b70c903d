-- +goose Up
-- Recall reads the memories past their expiry that the sweep has not
-- archived yet by the asker's partitions (memories_expired_by_part, which
-- db/definitions/30_recall_index.sql builds beside memory_part, since it
-- is an index on that function), no longer by team: the team's index is
-- no longer read.
DROP INDEX memories_expired_parts;

-- +goose Down
CREATE INDEX memories_expired_parts ON memories (team_id, expires_at)
    INCLUDE (id, scope, subject_type, subject_id, source_key, channel_id, visibility, sensitive)
    WHERE archived_at IS NULL AND expires_at IS NOT NULL;
