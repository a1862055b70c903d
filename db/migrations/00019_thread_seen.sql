-- +goose Up
-- Recall's thread windows count only the memories the asker may see
-- (db/definitions/40_recall_rank.sql): the walk along a thread evaluates
-- memory_visible on each memory it passes. This index is the thread's
-- order with every column memory_visible reads, so the walk, and thread
-- context's walk to a match's neighbours, read the index alone.
CREATE INDEX memories_thread_seen ON memories (team_id, source_key, observed_at, id)
    INCLUDE (scope, subject_type, subject_id, channel_id, visibility, sensitive, kind, expires_at)
    WHERE archived_at IS NULL;
DROP INDEX memories_thread_order;

-- +goose Down
CREATE INDEX memories_thread_order ON memories (team_id, source_key, observed_at, id) WHERE archived_at IS NULL;
DROP INDEX memories_thread_seen;
