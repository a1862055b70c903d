-- +goose Up
-- Recall reads fewer table rows. See docs/memory.md, "Reading and recall".
--
-- Thread evidence read every memory of a window (up to 65 around a match,
-- in each of 12 threads) from the table to find the few that match the
-- query: at a million memories, most of recall's time. Now each thread
-- keeps its own postings (memory_thread_postings): per word, the memories
-- of the thread that hold it, in the order they were said, with the
-- word's weight. The window's bounds come from the thread's index, its
-- matches from these postings, and only the matches are read from the
-- table, for the visibility rule. The ranking is unchanged.
--
-- The typo correction of short queries looked for the nearest words in a
-- trigram index over every partition's statistics, where each word is
-- repeated once per partition that holds it (2.5 million entries for 646
-- words in make bench's million memories): 6 ms a word. It now looks in
-- the team's vocabulary (memory_vocab, each word once, with how many
-- partitions hold it) and keeps only words that a partition the asker can
-- see holds: the same corrections, drawn from the same words.

-- The functions and triggers that fill these tables are repeatable
-- definitions (db/definitions/30_recall_index.sql), which build them from
-- the memories there are when they are first applied.

-- at is the memory's observed_at: a thread's order (memories_thread_order).
CREATE TABLE memory_thread_postings (
    thread bigint NOT NULL,
    term   text NOT NULL,
    at     timestamptz NOT NULL,
    id     uuid NOT NULL,
    impact real NOT NULL,
    PRIMARY KEY (thread, term, at, id) INCLUDE (impact)
);

-- parts counts the partitions that hold the word (memory_term_stats'
-- rows): a word leaves the vocabulary with its last memory.
CREATE TABLE memory_vocab (
    team  text NOT NULL,
    term  text NOT NULL,
    parts integer NOT NULL,
    PRIMARY KEY (team, term)
);
CREATE INDEX memory_vocab_trgm ON memory_vocab USING gin (team, (term || '') gin_trgm_ops);
-- The words whose count fell to zero, for the trigger to delete.
CREATE INDEX memory_vocab_gone ON memory_vocab (team, term) WHERE parts <= 0;

DROP INDEX memory_term_stats_trgm;

-- +goose Down
DROP TABLE memory_thread_postings, memory_vocab;
CREATE INDEX memory_term_stats_trgm ON memory_term_stats USING gin (part, (term || '') gin_trgm_ops);
