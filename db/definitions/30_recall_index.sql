-- requires: 10_recall_terms.sql
--
-- Recall's index: every memory's words in its visibility partition
-- (memory_postings, one row per memory and word), the partitions'
-- statistics (memory_term_stats, memory_part_stats), and its team's
-- vocabulary (memory_vocab), kept in step with memories by triggers, in
-- the writing statement's own transaction: a memory is findable by the
-- next query on any connection, and one forgotten, archived or deleted
-- leaves the statistics at once.
-- See docs/architecture.md, "How recall ranks".
--
-- A repeatable definition (db/migrate.go): re-applied whenever this file
-- or the one it requires (the weights of the postings) changes, and then
-- the index is rebuilt from memories (the last statement below), since
-- its partitions or weights may have changed. The first migrate of a
-- database also builds it this way.

-- The partition a memory belongs to, prefixed with its team (in the
-- postings and statistics, by its number in memory_part_stats). Workspace
-- memories that are public and not sensitive are seen from every channel
-- ('/w'); any other workspace memory only where it was said, by the
-- workspace's own members ('/c/…/w'), apart from the channel's memories
-- ('/c/…'), which a Slack Connect channel's external members see too: so
-- the statistics a guest's ranking reads count only what a guest may see.
-- A thread-only memory about one person is theirs alone ('/u/…').
CREATE OR REPLACE FUNCTION memory_part(team text, scope text, subject_type text, subject_id text,
                                       source_key text, channel_id text, visibility text, sensitive text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT team || CASE scope
        WHEN 'personal' THEN '/p/' || subject_id
        WHEN 'conversation' THEN '/t/' || source_key
            || CASE WHEN subject_type = 'user' THEN '/u/' || subject_id ELSE '' END
        WHEN 'workspace' THEN CASE WHEN visibility = 'public' AND sensitive = '' THEN '/w'
                                   ELSE '/c/' || channel_id || '/w' END
        ELSE '/c/' || channel_id
    END
$$;

-- The memories past their expiry that the sweep has not archived yet, by
-- partition (memory_expired, db/definitions/40_recall_rank.sql). An index
-- on memory_part lives beside memory_part and is built again whenever this
-- file is applied: a changed memory_part would otherwise leave an index of
-- its old values (PostgreSQL does not rebuild an index when a function it
-- is built on is replaced). It holds only the memories with an expiry,
-- and what recall reads of them (their text vector), so that they are
-- read from it alone: with the columns memory_part reads, since the
-- planner reads an expression index only where every column the query
-- names is in it. Every question reads its partitions' expired memories
-- twice (the typo correction's words, and the statistics), and a sweep
-- that falls behind (make bench's corpus keeps 1% of its memories
-- expired) made each read 0.9 ms at a million memories, from the table,
-- against 0.17 ms from the index.
DROP INDEX IF EXISTS memories_expired_by_part;
CREATE INDEX memories_expired_by_part ON memories
    (memory_part(team_id, scope, subject_type, subject_id, source_key, channel_id, visibility, sensitive), expires_at)
    INCLUDE (id, search, team_id, scope, subject_type, subject_id, source_key, channel_id, visibility, sensitive)
    WHERE archived_at IS NULL AND expires_at IS NOT NULL;

-- The partitions actor may see from one place. Each may hold memories the
-- actor may not see here (another person's thread instruction is in its
-- own '/u/' partition, but the asker's own DM memories are in '/p/' even
-- when asked in a public channel): memory_visible has the last word. A
-- viewer of one scope of a team not theirs (v_only, as memory_visible's)
-- reads that scope's partitions: a guest ('channel', an external member
-- of a Slack Connect channel) the channel's own, an organisation's member
-- ('workspace') its workspace memories.
DROP FUNCTION IF EXISTS memory_parts(text, text, text, text);
CREATE OR REPLACE FUNCTION memory_parts(team text, actor text, channel text, source_key text, v_only text DEFAULT '')
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE v_only
        WHEN 'channel' THEN ARRAY[team || '/c/' || channel]
        WHEN 'workspace' THEN array_remove(ARRAY[
            CASE WHEN channel <> '' THEN team || '/c/' || channel || '/w' END,
            team || '/w'
        ], NULL)
        ELSE array_remove(ARRAY[
            team || '/p/' || actor,
            CASE WHEN source_key <> '' THEN team || '/t/' || source_key END,
            CASE WHEN source_key <> '' THEN team || '/t/' || source_key || '/u/' || actor END,
            CASE WHEN channel <> '' THEN team || '/c/' || channel END,
            CASE WHEN channel <> '' THEN team || '/c/' || channel || '/w' END,
            team || '/w'
        ], NULL)
    END
$$;

-- Thread evidence reads a thread's memories from memories itself
-- (memories_thread_seen), not from a key of the postings.
DROP FUNCTION IF EXISTS memory_thread(text, text);

-- The write triggers keep the postings, the statistics and the vocabulary
-- in step with memories, in the writing statement's transaction:
-- statement-level triggers, so that a bulk write is indexed set-wise.
-- memory_index_add indexes the rows an INSERT wrote, memory_index_remove
-- takes out the rows a DELETE removed, and memory_index_change does both
-- for an UPDATE, but only for the rows whose partition, text, order
-- or activity changed: an update of anything else (an embedding, a reason)
-- costs a comparison. Statistics change by deltas applied in sorted order,
-- partition first, so two writers of one partition queue on its row instead
-- of deadlocking; the vocabulary is written the same way, team first.
--
-- The three are written below from one text of each statement (remove and
-- add), each statement twice in a body: as itself, so that PL/pgSQL plans
-- it once per connection and keeps the plan, and as a string it EXECUTEs,
-- planned for the rows at hand. A write of a few rows (a remember, a
-- forget, an archive) runs the kept plans: planning the statements afresh
-- took about 1.5 ms of the 2.3 ms the index cost a remember at a million
-- memories, and 3.3 ms of an update that changed nothing it indexes. A
-- kept plan was made for the rows of the call that first ran it, though
-- (a transition table's size is fixed into its plan), so a write of more
-- than index_kept_plan_rows rows (a sweep, an erasure, an import) plans
-- its own.
DO $do$
DECLARE
    -- The most rows a write may hold for the kept plans to index it.
    index_kept_plan_rows CONSTANT integer := 32;
    part CONSTANT text := 'memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive)';
    changed CONSTANT text := '(o.archived_at IS NULL) <> (n.archived_at IS NULL) OR o.search IS DISTINCT FROM n.search OR o.created_at IS DISTINCT FROM n.created_at'
        || ' OR o.team_id IS DISTINCT FROM n.team_id OR '
        || replace(part, 'r.', 'o.') || ' <> ' || replace(part, 'r.', 'n.');
    -- The rows each trigger indexes: %1$s in the statements below.
    inserted CONSTANT text := 'SELECT n.* FROM memory_index_new n WHERE n.archived_at IS NULL';
    deleted CONSTANT text := 'SELECT o.* FROM memory_index_old o WHERE o.archived_at IS NULL';
    -- An updated row is re-indexed unless its other version has the same
    -- id and nothing that matters changed (an id that changed matches none).
    updated_old CONSTANT text := deleted || ' AND NOT EXISTS (SELECT 1 FROM memory_index_new n WHERE n.id = o.id AND NOT (' || changed || '))';
    updated_new CONSTANT text := inserted || ' AND NOT EXISTS (SELECT 1 FROM memory_index_old o WHERE o.id = n.id AND NOT (' || changed || '))';
    -- Taking the rows %1$s out of the index (%2$s: a row's partition).
    remove CONSTANT text[] := ARRAY[
        $q$INSERT INTO memory_part_stats AS s (part, id, docs)
            SELECT d.part, coalesce((SELECT e.id FROM memory_part_stats e WHERE e.part = d.part), nextval('memory_part_ids')), d.n
            FROM (SELECT %2$s AS part, -count(*) AS n FROM (%1$s) r GROUP BY 1) d ORDER BY d.part
            ON CONFLICT (part) DO UPDATE SET docs = s.docs + excluded.docs$q$,
        $q$WITH x AS (
                SELECT ps.id AS part, r.id, r.created_at AS at, t.term, t.impact
                FROM (%1$s) r JOIN memory_part_stats ps ON ps.part = %2$s
                CROSS JOIN LATERAL memory_terms(r.search) t
            ), d AS (
                DELETE FROM memory_postings p USING x
                WHERE p.part = x.part AND p.term = x.term AND p.impact = x.impact AND p.at = x.at AND p.id = x.id
            )
            INSERT INTO memory_term_stats AS s (part, term, df)
            SELECT part, term, -count(*) FROM x GROUP BY part, term ORDER BY part, term
            ON CONFLICT (part, term) DO UPDATE SET df = s.df + excluded.df$q$,
        -- A word no memory of the partition holds any more leaves it, and
        -- the team's vocabulary counts one partition fewer; a word no
        -- partition holds leaves the vocabulary.
        $q$WITH g AS (
                DELETE FROM memory_term_stats s
                USING (SELECT DISTINCT r.team_id AS team, ps.id AS part, t.term
                       FROM (%1$s) r JOIN memory_part_stats ps ON ps.part = %2$s
                       CROSS JOIN LATERAL memory_terms(r.search) t) c
                WHERE s.part = c.part AND s.term = c.term AND s.df <= 0
                RETURNING c.team, s.term
            )
            INSERT INTO memory_vocab AS v (team, term, parts)
            SELECT g.team, g.term, -count(*) FROM g GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (team, term) DO UPDATE SET parts = v.parts + excluded.parts$q$,
        $q$DELETE FROM memory_vocab v
            USING (SELECT DISTINCT r.team_id AS team, t.term FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t) c
            WHERE v.team = c.team AND v.term = c.term AND v.parts <= 0$q$,
        $q$DELETE FROM memory_part_stats s USING (SELECT DISTINCT %2$s AS part FROM (%1$s) r) c
            WHERE s.part = c.part AND s.docs <= 0$q$];
    -- Adding the rows %1$s to the index. A partition new to the index
    -- draws its number; one that has a row keeps its number (coalesce reads
    -- it first, so the sequence is not drawn for it). A partition's first
    -- memory with a word adds the partition to the word's count in the
    -- vocabulary (xmax = 0: the upsert inserted).
    add CONSTANT text[] := ARRAY[
        $q$INSERT INTO memory_part_stats AS s (part, id, docs)
            SELECT d.part, coalesce((SELECT e.id FROM memory_part_stats e WHERE e.part = d.part), nextval('memory_part_ids')), d.n
            FROM (SELECT %2$s AS part, count(*) AS n FROM (%1$s) r GROUP BY 1) d ORDER BY d.part
            ON CONFLICT (part) DO UPDATE SET docs = s.docs + excluded.docs$q$,
        $q$WITH x AS (
                SELECT r.team_id AS team, ps.id AS part, r.id, r.created_at AS at, t.term, t.impact
                FROM (%1$s) r JOIN memory_part_stats ps ON ps.part = %2$s
                CROSS JOIN LATERAL memory_terms(r.search) t
            ), ins AS (
                INSERT INTO memory_postings (at, id, impact, part, term)
                SELECT at, id, impact, part, term FROM x
                ON CONFLICT DO NOTHING
            ), st AS (
                INSERT INTO memory_term_stats AS s (part, term, df)
                SELECT part, term, count(*) FROM x GROUP BY part, term ORDER BY part, term
                ON CONFLICT (part, term) DO UPDATE SET df = s.df + excluded.df
                RETURNING s.part, s.term, s.xmax = 0 AS fresh
            )
            INSERT INTO memory_vocab AS v (team, term, parts)
            SELECT t.team, st.term, count(*) FROM st JOIN (SELECT DISTINCT x.part, x.team FROM x) t ON t.part = st.part
            WHERE st.fresh GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (team, term) DO UPDATE SET parts = v.parts + excluded.parts$q$];
    -- A trigger's body: its statements kept (%3$s) for a write of a few
    -- rows of the transition table %1$s, else EXECUTEd (%2$s).
    body CONSTANT text := $b$BEGIN
    IF (SELECT count(*) FROM %1$s) > %4$s THEN
        %2$s;
    ELSE
        %3$s;
    END IF;
    RETURN NULL;
END$b$;
    stmts text[];
BEGIN
    stmts := ARRAY(SELECT format(q, inserted, part) FROM unnest(add) q);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION memory_index_add() RETURNS trigger LANGUAGE plpgsql AS %L$f$,
        format(body, 'memory_index_new', (SELECT string_agg(format('EXECUTE %L', q), E';\n        ') FROM unnest(stmts) q),
               array_to_string(stmts, E';\n        '), index_kept_plan_rows));

    stmts := ARRAY(SELECT format(q, deleted, part) FROM unnest(remove) q);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION memory_index_remove() RETURNS trigger LANGUAGE plpgsql AS %L$f$,
        format(body, 'memory_index_old', (SELECT string_agg(format('EXECUTE %L', q), E';\n        ') FROM unnest(stmts) q),
               array_to_string(stmts, E';\n        '), index_kept_plan_rows));

    stmts := ARRAY(SELECT format(q, updated_old, part) FROM unnest(remove) q)
          || ARRAY(SELECT format(q, updated_new, part) FROM unnest(add) q);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION memory_index_change() RETURNS trigger LANGUAGE plpgsql AS %L$f$,
        format(body, 'memory_index_old', (SELECT string_agg(format('EXECUTE %L', q), E';\n        ') FROM unnest(stmts) q),
               array_to_string(stmts, E';\n        '), index_kept_plan_rows));
END
$do$;

CREATE OR REPLACE TRIGGER memory_index_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS memory_index_new
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_add();
CREATE OR REPLACE TRIGGER memory_index_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS memory_index_old NEW TABLE AS memory_index_new
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_change();
CREATE OR REPLACE TRIGGER memory_index_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS memory_index_old
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_remove();
-- The one trigger function the three replace.
DROP FUNCTION IF EXISTS memory_index_sync();

-- TRUNCATE fires no row or statement trigger of INSERT, UPDATE or DELETE.
CREATE OR REPLACE FUNCTION memory_index_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_term_stats, memory_part_stats, memory_vocab;
    RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER memory_index_truncate AFTER TRUNCATE ON memories
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_truncate();

-- memory_index_rebuild builds the postings, statistics and vocabulary anew
-- from memories, set-wise: for migrations and for bulk loads that write
-- memories with the triggers disabled (bench's corpora). Like any bulk
-- load, it fills the postings before building their keys.
CREATE OR REPLACE FUNCTION memory_index_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_term_stats, memory_part_stats, memory_vocab;
    ALTER TABLE memory_postings DROP CONSTRAINT memory_postings_pkey;
    -- The partitions are numbered again from 1, in their order.
    ALTER SEQUENCE memory_part_ids RESTART;
    INSERT INTO memory_part_stats (part, id, docs)
    SELECT x.part, nextval('memory_part_ids'), x.docs FROM (
        SELECT memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive) AS part,
               count(*) AS docs
        FROM memories r WHERE r.archived_at IS NULL GROUP BY 1 ORDER BY 1) x;
    INSERT INTO memory_postings (at, id, impact, part, term)
    SELECT r.created_at, r.id, t.impact, ps.id, t.term
    FROM memories r
    JOIN memory_part_stats ps
      ON ps.part = memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive)
    CROSS JOIN LATERAL memory_terms(r.search) t
    WHERE r.archived_at IS NULL;
    ALTER TABLE memory_postings ADD PRIMARY KEY (part, term, impact, at, id);
    INSERT INTO memory_term_stats (part, term, df)
    SELECT part, term, count(*) FROM memory_postings GROUP BY part, term;
    INSERT INTO memory_vocab (team, term, parts)
    SELECT split_part(ps.part, '/', 1), s.term, count(*)
    FROM memory_term_stats s JOIN memory_part_stats ps ON ps.id = s.part GROUP BY 1, 2;
END
$$;

SELECT memory_index_rebuild();
