-- Where a memory's vector is found (memory_vectors, with pgvector): its
-- partition (memory_vectors.part, memory_part's), by which the vector
-- leg's exact scan reads the asker's partitions' vectors, and whether it
-- is one of its workspace's public memories (public_team: its team, or
-- NULL), which the split way's HNSW index holds (memory.VectorWayFor).
-- Only ways in: memory_visible still decides what the asker sees, on the
-- memory's row.
--
-- A repeatable definition (db/migrate.go).
-- requires: 30_recall_index.sql
CREATE OR REPLACE FUNCTION memory_part_of(m memories) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT memory_part(m.team_id, m.scope, m.subject_type, m.subject_id, m.source_key,
                       m.channel_id, m.visibility, m.sensitive)
$$;

CREATE OR REPLACE FUNCTION memory_public_team(m memories) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN memory_part_of(m) = m.team_id || '/w' THEN m.team_id END
$$;

-- With pgvector: a memory that changes partition (a scope, a visibility,
-- a sensitivity…) carries the change to its vector (the WHEN clause costs
-- other updates nothing); and the vectors written before this definition,
-- or before memory_part last changed, are brought in step (only those
-- that differ are written: once, on the upgrade that added part, every
-- vector, which rewrites the HNSW indexes' entries too).
DO $do$
BEGIN
    IF to_regclass('memory_vectors') IS NULL THEN
        RETURN;
    END IF;
    DROP TRIGGER IF EXISTS memory_vector_public ON memories;
    DROP FUNCTION IF EXISTS memory_vector_public();
    CREATE OR REPLACE FUNCTION memory_vector_part() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
        UPDATE memory_vectors SET part = memory_part_of(NEW), public_team = memory_public_team(NEW)
        WHERE id = NEW.id AND (part IS DISTINCT FROM memory_part_of(NEW)
                               OR public_team IS DISTINCT FROM memory_public_team(NEW));
        RETURN NULL;
    END
    $f$;
    CREATE OR REPLACE TRIGGER memory_vector_part AFTER UPDATE ON memories
        FOR EACH ROW
        WHEN (memory_part_of(OLD) IS DISTINCT FROM memory_part_of(NEW))
        EXECUTE FUNCTION memory_vector_part();
    UPDATE memory_vectors v SET part = memory_part_of(m), public_team = memory_public_team(m)
    FROM memories m
    WHERE m.id = v.id AND (v.part IS DISTINCT FROM memory_part_of(m) OR v.public_team IS DISTINCT FROM memory_public_team(m));
END
$do$;
