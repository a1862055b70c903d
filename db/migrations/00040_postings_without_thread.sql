-- +goose Up
-- Recall's index in fewer bytes (issue 32): the postings no longer carry
-- a second key per thread. memory_postings_thread held, per thread and
-- word, the thread's memories with that word, for thread evidence's
-- window; it was 730 of the index's 2,721 bytes per memory at make
-- bench's 100k, and a tenth of a remember's index writes. Thread evidence
-- now reads its window's memories from memories_thread_seen, the
-- thread's order with what memory_visible reads, which the window was
-- already walked on: the walk's own rows are the window, and the index
-- now also carries their text (and created_at), so the window's matches
-- are weighed from it without reading the table, as recall scores its
-- picks: the same weights (memory_term_weights), the same rankings, and
-- the thread exactly rather than by a hash. The text costs the index
-- about 190 bytes a memory, against the 900 the postings shed.
--
-- The index is rebuilt from memories when its definition
-- (db/definitions/30_recall_index.sql) is applied after this migration.
DROP INDEX memory_postings_thread;
ALTER TABLE memory_postings DROP COLUMN observed_at, DROP COLUMN thread;
DROP INDEX memories_thread_seen;
CREATE INDEX memories_thread_seen ON memories (team_id, source_key, observed_at, id)
    INCLUDE (scope, subject_type, subject_id, channel_id, visibility, sensitive, kind, expires_at, created_at, search)
    WHERE archived_at IS NULL;

-- +goose Down
-- Down drops recall's definitions first (DB.MigrateDownTo), and the next
-- Migrate applies them again and rebuilds the emptied postings.
DROP INDEX memories_thread_seen;
CREATE INDEX memories_thread_seen ON memories (team_id, source_key, observed_at, id)
    INCLUDE (scope, subject_type, subject_id, channel_id, visibility, sensitive, kind, expires_at)
    WHERE archived_at IS NULL;
TRUNCATE memory_postings;
ALTER TABLE memory_postings ADD COLUMN observed_at timestamptz NOT NULL, ADD COLUMN thread bigint NOT NULL;
CREATE INDEX memory_postings_thread ON memory_postings (thread, term, observed_at, id) INCLUDE (impact);
