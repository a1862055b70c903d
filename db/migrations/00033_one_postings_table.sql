-- +goose Up
-- Recall's index in fewer bytes (issue 32): one postings table instead of
-- two. memory_thread_postings held the same rows as memory_postings, one
-- per memory and word, each with its own heap and B-tree (1,491 of the
-- index's 4,051 bytes per memory in make bench's 100k corpus). Now each
-- posting is one row with both keys: its partition's (best first, the
-- primary key) and its thread's (in the order the thread was said,
-- memory_postings_thread), and reads of either stay index-only. The
-- ranking is unchanged: the same rows are read in the same order.
--
-- The columns are ordered widest alignment first, so the row carries no
-- padding. The index is rebuilt from memories when its definition
-- (db/definitions/30_recall_index.sql) is applied after this migration.
DROP TABLE memory_thread_postings;
DROP TABLE memory_postings;
-- at is the memory's created_at (recency breaks a partition's ties),
-- observed_at its thread's order (memories_thread_seen), thread its
-- thread's key (memory_thread).
CREATE TABLE memory_postings (
    at          timestamptz NOT NULL,
    observed_at timestamptz NOT NULL,
    thread      bigint NOT NULL,
    id          uuid NOT NULL,
    impact      real NOT NULL,
    part        text NOT NULL,
    term        text NOT NULL,
    PRIMARY KEY (part, term, impact, at, id)
);
CREATE INDEX memory_postings_thread ON memory_postings (thread, term, observed_at, id) INCLUDE (impact);

-- +goose Down
DROP TABLE memory_postings;
CREATE TABLE memory_postings (
    part   text NOT NULL,
    term   text NOT NULL,
    impact real NOT NULL,
    at     timestamptz NOT NULL,
    id     uuid NOT NULL,
    PRIMARY KEY (part, term, impact, at, id)
);
CREATE TABLE memory_thread_postings (
    thread bigint NOT NULL,
    term   text NOT NULL,
    at     timestamptz NOT NULL,
    id     uuid NOT NULL,
    impact real NOT NULL,
    PRIMARY KEY (thread, term, at, id) INCLUDE (impact)
);
