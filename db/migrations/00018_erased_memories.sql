-- +goose Up
-- Erasure is final (docs/lifecycle.md, "Erasure"). It deletes the memories
-- of the person it erases; restore must then say why one is gone, rather
-- than that it never existed, and must never bring it back.
--
-- What restore needs is the memory's id, not the person: erasure leaves no
-- row that names them (the rows it keeps are attributed to nobody), so a
-- keyed hash of who they were would have nothing to be compared with. A
-- memory's id is random and names nobody; no text, place or person is
-- kept here. A row lives as long as an archived memory would have
-- (MNEMO_RETENTION_FORGOTTEN, from the erasure), and goes with its team's
-- erasure.
CREATE TABLE erased_memories (
    team_id   text NOT NULL,
    id        uuid NOT NULL,
    erased_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, id)
);
-- Retention's batches, oldest first.
CREATE INDEX erased_memories_erased ON erased_memories (erased_at);

-- +goose Down
DROP TABLE erased_memories;
