-- The embedding job's queue (memory_embed_queue, migration 00035), kept
-- by triggers so that every way a memory is written queues it: a new
-- active memory, a restored one, and one whose text (content or cues)
-- changed are queued; an archived one leaves the queue. The job takes a
-- memory out as it stores its embedding (db.StoreEmbeddings). A deleted
-- memory leaves it by its foreign key.
--
-- A repeatable definition (db/migrate.go).

CREATE OR REPLACE FUNCTION memory_embed_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_embed_queue (id, created_at)
    SELECT n.id, n.created_at FROM memory_embed_new n WHERE n.archived_at IS NULL
    ON CONFLICT (id) DO NOTHING;
    RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER memory_embed_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS memory_embed_new
    FOR EACH STATEMENT EXECUTE FUNCTION memory_embed_enqueue();

-- One row's change, only when it matters to the queue: the WHEN clause is
-- evaluated without calling the function, so other updates (a recall's
-- counters, an expiry) cost nothing here.
CREATE OR REPLACE FUNCTION memory_embed_requeue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.archived_at IS NOT NULL THEN
        DELETE FROM memory_embed_queue WHERE id = NEW.id;
    ELSE
        INSERT INTO memory_embed_queue (id, created_at) VALUES (NEW.id, NEW.created_at)
        ON CONFLICT (id) DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER memory_embed_update AFTER UPDATE ON memories
    FOR EACH ROW
    WHEN ((OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL)
          OR (NEW.archived_at IS NULL AND (OLD.content IS DISTINCT FROM NEW.content OR OLD.cues IS DISTINCT FROM NEW.cues)))
    EXECUTE FUNCTION memory_embed_requeue();
