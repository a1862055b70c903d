-- +goose Up
-- Recall takes the memories past their expiry that the sweep has not
-- archived yet out of its statistics (memory_expired,
-- db/definitions/40_recall_rank.sql). It looks for them by team, and
-- decides which partition each is in from this index alone: only those in
-- the asker's partitions are read from the table.
CREATE INDEX memories_expired_parts ON memories (team_id, expires_at)
    INCLUDE (id, scope, subject_type, subject_id, source_key, channel_id, visibility, sensitive)
    WHERE archived_at IS NULL AND expires_at IS NOT NULL;

-- +goose Down
DROP INDEX memories_expired_parts;
