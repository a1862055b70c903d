-- +goose Up
-- What the background embedding job has left to do (issue 31), kept out of
-- memories' own row. The job used to record each embedding's model and
-- dimension in memories (embedding_model, which an index held), so every
-- embedding written updated the memory's row: never a HOT update, a new
-- version of the row in every one of memories' indexes, much as the
-- remember itself costs, and remember p50 grew by a third while the job
-- ran. Now a memory that needs embedding is a row of memory_embed_queue
-- (put there by the triggers of db/definitions/50_embed_queue.sql as it is
-- written, restored or its text changes; taken out as its embedding is
-- stored or it is archived), and with pgvector its model and dimension
-- are memory_vectors' (without it, memories' real[] keeps them as before).
-- The queue holds ids only, no text, and goes with the memory's deletion.
CREATE TABLE memory_embed_queue (
    id         uuid PRIMARY KEY REFERENCES memories (id) ON UPDATE CASCADE ON DELETE CASCADE,
    created_at timestamptz NOT NULL
);
-- Newest first: what was just said is searchable by meaning soonest.
CREATE INDEX memory_embed_queue_created ON memory_embed_queue (created_at DESC);

-- It starts empty: the job's first run in a process queues every active
-- memory with no embedding of the configured model (db.Requeue), and
-- serve with no embedding model keeps the queue empty (nothing reads it).

DROP INDEX memories_embedding_model;

-- +goose Down
CREATE INDEX memories_embedding_model ON memories (embedding_model, created_at DESC) WHERE archived_at IS NULL;
DROP TABLE memory_embed_queue;
