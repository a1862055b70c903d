-- +goose Up
-- Recall's index in fewer bytes (issue 32): a partition is named by a
-- 4-byte number in the postings and the statistics, instead of its text
-- (<team>/c/<channel>, <team>/t/<source key>…, 24 characters on average in
-- make bench's corpus), which every posting and every statistic repeated
-- in its row and again in its key. memory_part_stats, one row per
-- partition, keeps the text and gives the number; a partition keeps its
-- number while it holds a memory, and an emptied one's row (and number)
-- goes, as before. The ranking is unchanged.
--
-- The index is rebuilt from memories when its definition
-- (db/definitions/30_recall_index.sql) is applied after this migration.
DROP TABLE memory_postings, memory_term_stats, memory_part_stats;
-- part's number is drawn only for a partition that has none (the index's
-- trigger reads the existing one first), so the numbers last as long as
-- 2^31 partitions made, and memory_index_rebuild starts them again at 1.
CREATE TABLE memory_part_stats (
    part text PRIMARY KEY,
    id   integer NOT NULL UNIQUE,
    docs integer NOT NULL
);
CREATE SEQUENCE memory_part_ids AS integer OWNED BY memory_part_stats.id;
CREATE TABLE memory_postings (
    at          timestamptz NOT NULL,
    observed_at timestamptz NOT NULL,
    thread      bigint NOT NULL,
    id          uuid NOT NULL,
    impact      real NOT NULL,
    part        integer NOT NULL,
    term        text NOT NULL,
    PRIMARY KEY (part, term, impact, at, id)
);
CREATE INDEX memory_postings_thread ON memory_postings (thread, term, observed_at, id) INCLUDE (impact);
CREATE TABLE memory_term_stats (
    part integer NOT NULL,
    df   integer NOT NULL,
    term text NOT NULL,
    PRIMARY KEY (part, term)
);

-- +goose Down
DROP TABLE memory_postings, memory_term_stats, memory_part_stats;
CREATE TABLE memory_part_stats (
    part text PRIMARY KEY,
    docs integer NOT NULL
);
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
CREATE TABLE memory_term_stats (
    part text NOT NULL,
    term text NOT NULL,
    df   integer NOT NULL,
    PRIMARY KEY (part, term)
);
