-- +goose Up
-- The vector leg's exact scan (issue 31) reads the vectors of the asker's
-- partitions by their partition: memory_vectors.part is the memory's
-- (memory_part, db/definitions/30_recall_index.sql), so that the scan
-- reads each vector once, through memory_vectors_part, instead of finding
-- the memories through their own indexes and then each vector by its key
-- (four pages a vector: 12,192 of the 15,298 a scan of 3,048 memories
-- read). memory_visible still decides, on the memory's row, for the
-- nearest only. The job writes it with the vector, a trigger follows a
-- memory's change, and db/definitions/55_vector_public.sql fills it for
-- the vectors already written. The index is of the partition alone: with
-- the dimension and model in it too, the planner read it for the split
-- way's public memories (by dimension and model) instead of their HNSW
-- index.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('memory_vectors') IS NOT NULL THEN
        ALTER TABLE memory_vectors ADD COLUMN part text;
        CREATE INDEX memory_vectors_part ON memory_vectors (part);
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('memory_vectors') IS NOT NULL THEN
        ALTER TABLE memory_vectors DROP COLUMN part;
    END IF;
END
$$;
-- +goose StatementEnd
