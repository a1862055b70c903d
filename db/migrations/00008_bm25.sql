-- +goose Up
-- Recall ranks every visible memory that matches, by BM25. See
-- docs/memory.md, "Reading and recall".
--
-- Every memory belongs to exactly one visibility partition (memory_part),
-- and a question sees a handful of them: the asker's personal memories,
-- this thread's, this channel's and the team's public workspace memories.
-- For each partition and word the index keeps the memories that contain
-- the word, ordered by how much the word weighs in them (memory_postings),
-- and how many memories of the partition contain it (memory_term_stats).
-- Recall sums the statistics of the partitions the asker can see, so a
-- word is weighted by how rare it is in what they can see, reads each
-- word's postings best first, and stops as soon as nothing unread can
-- enter the top k (memory_bm25). Triggers keep all of it in step with
-- memories in the writing statement's own transaction: a memory is
-- findable by the next query on any connection, and one forgotten,
-- archived or deleted leaves the statistics at once.

-- The functions and triggers that partition, index and rank memories
-- are repeatable definitions (db/definitions/), applied after the
-- versioned migrations; the first migrate builds the index from the
-- memories there are (30_recall_index.sql).

-- A thread's memories in the order they were said: recall's thread context.
CREATE INDEX memories_thread_order ON memories (team_id, source_key, observed_at, id) WHERE archived_at IS NULL;

-- Postings of one weight are read newest first (at, the memory's
-- created_at): recency breaks ties, and a new memory is read before the
-- hundred older ones it ties with.
CREATE TABLE memory_postings (
    part   text NOT NULL,
    term   text NOT NULL,
    impact real NOT NULL,
    at     timestamptz NOT NULL,
    id     uuid NOT NULL,
    PRIMARY KEY (part, term, impact, at, id)
);

CREATE TABLE memory_term_stats (
    part text NOT NULL,
    term text NOT NULL,
    df   integer NOT NULL,
    PRIMARY KEY (part, term)
);
-- The typo correction of short queries looks for the nearest words among
-- the partitions the asker can see, never among all of the team's.
-- The trigram index is on an expression equal to term, so that it serves
-- only the similarity search (%), never a lookup of one word, which the
-- primary key answers in a fraction of the time.
CREATE INDEX memory_term_stats_trgm ON memory_term_stats USING gin (part, (term || '') gin_trgm_ops);

CREATE TABLE memory_part_stats (
    part text PRIMARY KEY,
    docs integer NOT NULL
);

-- The typo correction reads the statistics now (memory_term_stats).
DROP TABLE memory_words;

-- +goose Down
DROP TABLE memory_postings, memory_term_stats, memory_part_stats;
DROP INDEX memories_thread_order;
CREATE TABLE memory_words (
    team_id text NOT NULL,
    word    text NOT NULL,
    PRIMARY KEY (team_id, word)
);
CREATE INDEX memory_words_trgm ON memory_words USING gin (word gin_trgm_ops);
INSERT INTO memory_words (team_id, word)
SELECT DISTINCT m.team_id, w
FROM memories m, regexp_split_to_table(lower(m.content || ' ' || m.cues), '[^[:alnum:]]+') AS w
WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
ON CONFLICT DO NOTHING;
