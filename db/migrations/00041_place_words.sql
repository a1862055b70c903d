-- +goose Up
-- The all-words pass reads its channel's and its team's words from
-- memories_words_place and memories_words_workspace
-- (db/definitions/35_recall_words.sql), keyed by place and word, which
-- the definitions build after this migration. The indexes they replace
-- kept the channel as a column of its own (the whole channel's list was
-- intersected with its words') and the team not at all.
DROP INDEX memories_search_place;
DROP INDEX memories_search_workspace;

-- +goose Down
-- Down drops recall's definitions first (DB.MigrateDownTo), and with
-- memory_place_words the indexes built on it.
CREATE INDEX memories_search_place ON memories USING gin (channel_id, search) WITH (fastupdate = off)
    WHERE scope IN ('channel', 'workspace') AND archived_at IS NULL;
CREATE INDEX memories_search_workspace ON memories USING gin (search) WITH (fastupdate = off)
    WHERE scope = 'workspace' AND visibility = 'public' AND sensitive = '' AND archived_at IS NULL;
