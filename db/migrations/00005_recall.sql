-- +goose Up
-- Recall that finds the right memory, and finds it in milliseconds at a
-- million memories. See docs/memory.md, "Reading and recall".

-- btree_gin lets one GIN index hold a channel id beside the text, so a
-- search in a large channel reads only that channel's matches. Like
-- pg_trgm, it ships with PostgreSQL (contrib) and is a trusted extension.
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- Retrieval cues: the words and questions a person would use when a memory
-- is relevant ("timezone, time zone, what time, PT"), written by the review.
-- They are indexed with the content, weighted below it (A for the content,
-- B for the cues): document expansion, with no extra model call at recall.
ALTER TABLE memories ADD COLUMN cues text NOT NULL DEFAULT '';

-- An optional embedding of content and cues, computed in Go when an
-- embedding model is configured. It only reranks a bounded candidate set,
-- so it needs no vector extension and no index.
ALTER TABLE memories ADD COLUMN embedding real[];

-- The text index of a memory: content weighted A, cues B. The recall
-- B-trees below carry it (INCLUDE), and a B-tree row must fit in a third of
-- a page, so a vector over 2,000 bytes is built from a shorter prefix of
-- both texts. Only extreme text reaches that (600 characters of short,
-- distinct non-Latin words); English of the review's maximum length makes
-- about 1,200 bytes.
-- +goose StatementBegin
CREATE FUNCTION memory_search_vector(content text, cues text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    n int := length(content);
    c int := length(cues);
    v tsvector;
BEGIN
    LOOP
        v := setweight(to_tsvector('english', left(content, n)), 'A')
             || setweight(to_tsvector('english', left(cues, c)), 'B');
        IF pg_column_size(v) <= 2000 OR n = 0 THEN
            RETURN v;
        END IF;
        n := n * 3 / 4;
        c := c * 3 / 4;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- A generated column's expression can't be altered before PostgreSQL 17:
-- drop and re-add it (with its index), which rewrites the table once.
ALTER TABLE memories DROP COLUMN search;
ALTER TABLE memories ADD COLUMN search tsvector GENERATED ALWAYS AS (memory_search_vector(content, cues)) STORED;

-- Every GIN index here has fastupdate off: a pending list is scanned
-- linearly by every search until it is merged (up to 4 MB), turning a read
-- of a few pages into a read of thousands. Writers pay the merge instead, a
-- fraction of a millisecond per row, and a write is visible at once.
CREATE INDEX memories_search ON memories USING gin (search) WITH (fastupdate = off);

-- Trigram matching of whole contents reads tens of thousands of candidates
-- at a million rows (common trigrams are everywhere). Typos are matched
-- against the workspace's words instead (memory_words, below).
DROP INDEX memories_trgm;

-- The visibility filter, one branch per scope (MemorySearch, MemoryRecent).
-- Each branch has a B-tree that ends in created_at and carries what the
-- branch filters and ranks on (INCLUDE), so its newest matches are read
-- from the index alone, without the table. The large branches (a channel,
-- the public workspace) also have a GIN index for the rare words, whose
-- matches are few and may be old.
--
-- The B-trees' predicate says created_at > '-infinity', which is always
-- true and which only the newest-first reads state: so a read meant for a
-- GIN index can never be planned as a walk through a whole branch's B-tree
-- instead (the recall statements are planned once for every query, and a
-- planner that guessed a small channel would choose that walk).
CREATE INDEX memories_recall_personal ON memories (team_id, subject_id, created_at)
    INCLUDE (id, kind, channel_id, source_key, visibility, sensitive, expires_at, search)
    WHERE scope = 'personal' AND archived_at IS NULL AND created_at > '-infinity';
CREATE INDEX memories_recall_thread ON memories (team_id, source_key, created_at)
    INCLUDE (id, expires_at, search)
    WHERE scope = 'conversation' AND archived_at IS NULL AND created_at > '-infinity';
CREATE INDEX memories_recall_place ON memories (team_id, channel_id, created_at)
    INCLUDE (id, scope, source_key, expires_at, search)
    WHERE scope IN ('channel', 'workspace') AND archived_at IS NULL AND created_at > '-infinity';
CREATE INDEX memories_search_place ON memories USING gin (channel_id, search) WITH (fastupdate = off)
    WHERE scope IN ('channel', 'workspace') AND archived_at IS NULL;
-- Public workspace memories are visible in every channel of the team.
CREATE INDEX memories_recall_workspace ON memories (team_id, created_at)
    INCLUDE (id, channel_id, source_key, expires_at, search)
    WHERE scope = 'workspace' AND visibility = 'public' AND sensitive = '' AND archived_at IS NULL AND created_at > '-infinity';
CREATE INDEX memories_search_workspace ON memories USING gin (search) WITH (fastupdate = off)
    WHERE scope = 'workspace' AND visibility = 'public' AND sensitive = '' AND archived_at IS NULL;

-- The view memory_rows (a memory as reads return it) is a repeatable
-- definition now: db/definitions/05_memory_rows.sql.

-- A subject's newest memories first (MemoryFindSimilar).
DROP INDEX memories_subject;
CREATE INDEX memories_subject ON memories (team_id, scope, subject_id, created_at) WHERE archived_at IS NULL;

-- The words of a workspace's memories and cues, written with each memory:
-- a short query's unknown word is corrected to the nearest of them by
-- trigram similarity before the text search (the spelling-suggestion table
-- of the pg_trgm documentation).
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

-- +goose Down
DROP TABLE memory_words;
DROP INDEX memories_subject;
CREATE INDEX memories_subject ON memories (team_id, scope, subject_id) WHERE archived_at IS NULL;
DROP INDEX memories_search_workspace;
DROP INDEX memories_recall_workspace;
DROP INDEX memories_search_place;
DROP INDEX memories_recall_place;
DROP INDEX memories_recall_thread;
DROP INDEX memories_recall_personal;
CREATE INDEX memories_trgm ON memories USING gin (content gin_trgm_ops);
ALTER TABLE memories DROP COLUMN search;
ALTER TABLE memories ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED;
CREATE INDEX memories_search ON memories USING gin (search);
DROP FUNCTION memory_search_vector(text, text);
ALTER TABLE memories DROP COLUMN embedding;
ALTER TABLE memories DROP COLUMN cues;
