-- +goose Up
-- The vector leg's split way (issue 31): whether a vector is of one of its
-- workspace's public memories, the ones most askers of a large workspace
-- mostly see, so that an HNSW index of those alone can be walked
-- (db.EnsureVectorIndex makes it beside each dimension's). NULL for every
-- other memory. memory_public_team (db/definitions/55_vector_public.sql)
-- says it, from memory_part, the one definition of a memory's partition;
-- the job writes it with the vector, a trigger follows a memory's change,
-- and that definition fills it for the vectors already written.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('memory_vectors') IS NOT NULL THEN
        ALTER TABLE memory_vectors ADD COLUMN public_team text;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('memory_vectors') IS NOT NULL THEN
        ALTER TABLE memory_vectors DROP COLUMN public_team;
    END IF;
END
$$;
-- +goose StatementEnd
