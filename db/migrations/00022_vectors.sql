-- +goose Up
-- Recall by meaning over every memory (issue 31). See docs/memory.md,
-- "Recall by meaning".
--
-- Embeddings are written in the background (package embedding), never on
-- the write path. Each row says which model and dimension its embedding is
-- of: recall searches only the rows of the configured model, so changing
-- MNEMO_EMBEDDING_MODEL leaves the others lexical-only until the background
-- job has redone them.
ALTER TABLE memories ADD COLUMN embedding_model text, ADD COLUMN embedding_dim integer;

-- What the background job has left to do: active rows of no model, newest
-- first, then those of another (MemoryEmbedPending reads three ranges).
CREATE INDEX memories_embedding_model ON memories (embedding_model, created_at DESC) WHERE archived_at IS NULL;

-- With pgvector (0.8 or later, for iterative index scans), embeddings are
-- stored as halfvec in memory_vectors, one row per memory: half the bytes
-- of real[], and HNSW indexes halfvec up to 4,000 dimensions. A table of
-- its own rather than a column of memories, because the column would exist
-- on some servers only, and the recall queries read memories' rows whole
-- (as memory_visible takes them) under a column list fixed when they are
-- generated. The vector has no fixed dimension, since that is the model's:
-- the HNSW index, one per dimension, is made when the first embedding of
-- that dimension is written (db.EnsureVectorIndex). A server without
-- pgvector keeps embedding real[] in memories, the reranker's.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE TABLE memory_vectors (
            id        uuid PRIMARY KEY REFERENCES memories (id) ON UPDATE CASCADE ON DELETE CASCADE,
            model     text NOT NULL,
            dim       integer NOT NULL,
            embedding halfvec NOT NULL
        );
    ELSE
        RAISE NOTICE 'pgvector is not installed on this server: recall stays lexical';
    END IF;
END
$$;
-- +goose StatementEnd

-- turns show names the leg of recall that found each recalled memory:
-- lexical, vector or both (hybrid recall), '' for lexical-only recall.
ALTER TABLE turn_recalls ADD COLUMN leg text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE turn_recalls DROP COLUMN leg;
DROP TABLE IF EXISTS memory_vectors;
DROP INDEX memories_embedding_model;
ALTER TABLE memories DROP COLUMN embedding_model, DROP COLUMN embedding_dim;
