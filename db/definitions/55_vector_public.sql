-- Whether a memory is one of its workspace's public ones (its team, or
-- NULL), as memory_vectors.public_team records it for the vector leg's
-- split way (memory.VectorWayFor): its partition is the workspace's
-- (team/w, memory_part's). Only a way in: memory_visible still decides
-- what the asker sees, on the memory's row.
--
-- A repeatable definition (db/migrate.go).
-- requires: 30_recall_index.sql
CREATE OR REPLACE FUNCTION memory_public_team(m memories) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN memory_part(m.team_id, m.scope, m.subject_type, m.subject_id, m.source_key,
                                 m.channel_id, m.visibility, m.sensitive) = m.team_id || '/w'
                THEN m.team_id END
$$;

-- With pgvector: a memory that becomes, or stops being, one of its
-- workspace's public ones carries the change to its vector (the WHEN
-- clause costs other updates nothing); and the vectors written before
-- this definition, or before memory_part last changed, are brought in
-- step (only those that differ are written).
DO $do$
BEGIN
    IF to_regclass('memory_vectors') IS NULL THEN
        RETURN;
    END IF;
    CREATE OR REPLACE FUNCTION memory_vector_public() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
        UPDATE memory_vectors SET public_team = memory_public_team(NEW)
        WHERE id = NEW.id AND public_team IS DISTINCT FROM memory_public_team(NEW);
        RETURN NULL;
    END
    $f$;
    CREATE OR REPLACE TRIGGER memory_vector_public AFTER UPDATE ON memories
        FOR EACH ROW
        WHEN (memory_public_team(OLD) IS DISTINCT FROM memory_public_team(NEW))
        EXECUTE FUNCTION memory_vector_public();
    UPDATE memory_vectors v SET public_team = memory_public_team(m)
    FROM memories m
    WHERE m.id = v.id AND v.public_team IS DISTINCT FROM memory_public_team(m);
END
$do$;
