-- +goose Up
-- Recall ranks every visible memory that matches, by BM25. See
-- docs/memory.md, "Reading and recall".
--
-- Every memory belongs to exactly one visibility partition (memory_part),
-- and a question sees a handful of them: the asker's personal memories,
-- this thread's, this channel's and the team's public workspace memories.
-- For each partition and word the index keeps the memories that contain
-- the word, ordered by how much the word weighs in them (memory_postings),
-- and how many memories of the partition contain it (memory_term_stats).
-- Recall sums the statistics of the partitions the asker can see, so a
-- word is weighted by how rare it is in what they can see, reads each
-- word's postings best first, and stops as soon as nothing unread can
-- enter the top k (memory_bm25). Triggers keep all of it in step with
-- memories in the writing statement's own transaction: a memory is
-- findable by the next query on any connection, and one forgotten,
-- archived or deleted leaves the statistics at once.

-- The partition a memory belongs to, prefixed with its team. Workspace
-- memories that are public and not sensitive are seen from every channel
-- ('/w'); any other workspace memory only where it was said.
-- A thread-only memory about one person is theirs alone ('/u/…').
-- +goose StatementBegin
CREATE FUNCTION memory_part(team text, scope text, subject_type text, subject_id text,
                            source_key text, channel_id text, visibility text, sensitive text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT team || CASE scope
        WHEN 'personal' THEN '/p/' || subject_id
        WHEN 'conversation' THEN '/t/' || source_key
            || CASE WHEN subject_type = 'user' THEN '/u/' || subject_id ELSE '' END
        WHEN 'workspace' THEN CASE WHEN visibility = 'public' AND sensitive = '' THEN '/w'
                                   ELSE '/c/' || channel_id END
        ELSE '/c/' || channel_id
    END
$$;
-- +goose StatementEnd

-- The partitions actor may see from one place. Each may hold memories the
-- actor may not see here (another person's thread instruction is in its
-- own '/u/' partition, but the asker's own DM memories are in '/p/' even
-- when asked in a public channel): memory_visible has the last word.
-- +goose StatementBegin
CREATE FUNCTION memory_parts(team text, actor text, channel text, source_key text)
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_remove(ARRAY[
        team || '/p/' || actor,
        CASE WHEN source_key <> '' THEN team || '/t/' || source_key END,
        CASE WHEN source_key <> '' THEN team || '/t/' || source_key || '/u/' || actor END,
        CASE WHEN channel <> '' THEN team || '/c/' || channel END,
        team || '/w'
    ], NULL)
$$;
-- +goose StatementEnd

-- The one visibility rule in SQL: memory.Visible (memory/visibility.go)
-- for an active memory, minus the admin's oversight, which only lists.
-- Every read that shows memories to a person or the model filters with it
-- (memory's tests check that the two agree).
-- +goose StatementBegin
CREATE FUNCTION memory_visible(m memories, v_team text, v_actor text, v_channel text, v_source_key text,
                               v_private boolean, v_apply boolean)
RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT m.team_id = v_team AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND CASE m.scope
           WHEN 'personal' THEN m.subject_id = v_actor
               AND ((v_channel <> '' AND m.channel_id = v_channel)
                    OR (m.sensitive <> '' AND v_private AND NOT v_apply)
                    OR (m.sensitive = '' AND (m.visibility = 'public' OR v_private
                                              OR (v_apply AND m.kind = 'preference'))))
           WHEN 'conversation' THEN m.source_key = v_source_key
               AND (m.subject_type <> 'user' OR m.subject_id = v_actor)
           WHEN 'channel' THEN v_channel <> '' AND m.channel_id = v_channel
           WHEN 'workspace' THEN (v_channel <> '' AND m.channel_id = v_channel)
               OR (m.sensitive = '' AND m.visibility = 'public')
           ELSE false
       END
$$;
-- +goose StatementEnd

-- BM25F's term weight of each word of a text vector, without the idf:
-- tf (content positions, plus half of the cues') saturated by k1 = 1.2 and
-- normalized by length with b = 0.75 against a typical memory of 12
-- distinct words. The typical length is a constant rather than each
-- partition's mean so that a posting's weight is fixed when it is written,
-- which lets recall read postings best first and stop early.
-- +goose StatementBegin
CREATE FUNCTION memory_terms(v tsvector)
RETURNS TABLE (term text, impact real) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT x.lexeme, (x.tf * 2.2 / (x.tf + 1.2 * (0.25 + 0.75 * greatest(x.dl, 1) / 12)))::real
    FROM (
        SELECT e.lexeme,
               cardinality(array_positions(e.weights, 'A')) + 0.5 * (cardinality(e.weights) - cardinality(array_positions(e.weights, 'A'))) AS tf,
               sum(CASE WHEN 'A' = ANY(e.weights) THEN 1 ELSE 0.5 END) OVER () AS dl
        FROM unnest(v) AS e
    ) x
    WHERE x.tf > 0
$$;
-- +goose StatementEnd

-- A thread's memories in the order they were said: recall's thread context.
CREATE INDEX memories_thread_order ON memories (team_id, source_key, observed_at, id) WHERE archived_at IS NULL;

-- Postings of one weight are read newest first (at, the memory's
-- created_at): recency breaks ties, and a new memory is read before the
-- hundred older ones it ties with.
CREATE TABLE memory_postings (
    part   text NOT NULL,
    term   text NOT NULL,
    impact real NOT NULL,
    at     timestamptz NOT NULL,
    id     uuid NOT NULL,
    PRIMARY KEY (part, term, impact, at, id)
);

CREATE TABLE memory_term_stats (
    part text NOT NULL,
    term text NOT NULL,
    df   integer NOT NULL,
    PRIMARY KEY (part, term)
);
-- The typo correction of short queries looks for the nearest words among
-- the partitions the asker can see, never among all of the team's.
-- The trigram index is on an expression equal to term, so that it serves
-- only the similarity search (%), never a lookup of one word, which the
-- primary key answers in a fraction of the time.
CREATE INDEX memory_term_stats_trgm ON memory_term_stats USING gin (part, (term || '') gin_trgm_ops);

CREATE TABLE memory_part_stats (
    part text PRIMARY KEY,
    docs integer NOT NULL
);

-- memory_index_sync keeps the postings and statistics in step with
-- memories, in the writing statement's transaction (a statement-level
-- trigger, so a bulk COPY is indexed set-wise). Only rows whose partition,
-- text or activity changed are re-indexed: an update of anything else (an
-- embedding, a reason) costs a comparison. Statistics change by deltas
-- applied in sorted order, partition first, so two writers of one
-- partition queue on its row instead of deadlocking.
-- +goose StatementBegin
CREATE FUNCTION memory_index_sync() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    part CONSTANT text := 'memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive)';
    changed CONSTANT text := '(o.archived_at IS NULL) <> (n.archived_at IS NULL) OR o.search IS DISTINCT FROM n.search OR o.created_at IS DISTINCT FROM n.created_at OR '
        || replace('memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive)', 'r.', 'o.')
        || ' <> ' || replace('memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive)', 'r.', 'n.');
    gone text;
    came text;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        gone := 'SELECT o.* FROM memory_index_old o WHERE o.archived_at IS NULL';
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        came := 'SELECT n.* FROM memory_index_new n WHERE n.archived_at IS NULL';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- A row is re-indexed unless its other version has the same id and
        -- nothing that matters changed (an id that changed matches none).
        gone := gone || ' AND NOT EXISTS (SELECT 1 FROM memory_index_new n WHERE n.id = o.id AND NOT (' || changed || '))';
        came := came || ' AND NOT EXISTS (SELECT 1 FROM memory_index_old o WHERE o.id = n.id AND NOT (' || changed || '))';
    END IF;
    IF gone IS NOT NULL THEN
        EXECUTE format($q$
            INSERT INTO memory_part_stats AS s (part, docs)
            SELECT %2$s, -count(*) FROM (%1$s) r GROUP BY 1 ORDER BY 1
            ON CONFLICT (part) DO UPDATE SET docs = s.docs + excluded.docs$q$, gone, part);
        EXECUTE format($q$
            WITH x AS (
                SELECT %2$s AS part, r.id, r.created_at AS at, t.term, t.impact
                FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t
            ), d AS (
                DELETE FROM memory_postings p USING x
                WHERE p.part = x.part AND p.term = x.term AND p.impact = x.impact AND p.at = x.at AND p.id = x.id
            )
            INSERT INTO memory_term_stats AS s (part, term, df)
            SELECT part, term, -count(*) FROM x GROUP BY part, term ORDER BY part, term
            ON CONFLICT (part, term) DO UPDATE SET df = s.df + excluded.df$q$, gone, part);
        -- A word no memory of the partition holds any more leaves it.
        EXECUTE format($q$
            DELETE FROM memory_term_stats s
            USING (SELECT DISTINCT %2$s AS part, t.term FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t) c
            WHERE s.part = c.part AND s.term = c.term AND s.df <= 0$q$, gone, part);
        EXECUTE format($q$
            DELETE FROM memory_part_stats s USING (SELECT DISTINCT %2$s AS part FROM (%1$s) r) c
            WHERE s.part = c.part AND s.docs <= 0$q$, gone, part);
    END IF;
    IF came IS NOT NULL THEN
        EXECUTE format($q$
            INSERT INTO memory_part_stats AS s (part, docs)
            SELECT %2$s, count(*) FROM (%1$s) r GROUP BY 1 ORDER BY 1
            ON CONFLICT (part) DO UPDATE SET docs = s.docs + excluded.docs$q$, came, part);
        EXECUTE format($q$
            WITH x AS (
                SELECT %2$s AS part, r.id, r.created_at AS at, t.term, t.impact
                FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t
            ), ins AS (
                INSERT INTO memory_postings (part, term, impact, at, id)
                SELECT part, term, impact, at, id FROM x
                ON CONFLICT DO NOTHING
            )
            INSERT INTO memory_term_stats AS s (part, term, df)
            SELECT part, term, count(*) FROM x GROUP BY part, term ORDER BY part, term
            ON CONFLICT (part, term) DO UPDATE SET df = s.df + excluded.df$q$, came, part);
    END IF;
    RETURN NULL;
END
$fn$;
-- +goose StatementEnd

CREATE TRIGGER memory_index_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS memory_index_new
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_sync();
CREATE TRIGGER memory_index_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS memory_index_old NEW TABLE AS memory_index_new
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_sync();
CREATE TRIGGER memory_index_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS memory_index_old
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_sync();

-- TRUNCATE fires no row or statement trigger of INSERT, UPDATE or DELETE.
-- +goose StatementBegin
CREATE FUNCTION memory_index_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_term_stats, memory_part_stats;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER memory_index_truncate AFTER TRUNCATE ON memories
    FOR EACH STATEMENT EXECUTE FUNCTION memory_index_truncate();

-- memory_index_rebuild builds the postings and statistics anew from
-- memories, set-wise: for this migration and for bulk loads that write
-- memories with the triggers disabled (bench's corpora). Like any bulk
-- load, it fills the postings before building their key.
-- +goose StatementBegin
CREATE FUNCTION memory_index_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_term_stats, memory_part_stats;
    ALTER TABLE memory_postings DROP CONSTRAINT memory_postings_pkey;
    INSERT INTO memory_part_stats (part, docs)
    SELECT memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive), count(*)
    FROM memories r WHERE r.archived_at IS NULL GROUP BY 1;
    INSERT INTO memory_postings (part, term, impact, at, id)
    SELECT memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive), t.term, t.impact, r.created_at, r.id
    FROM memories r CROSS JOIN LATERAL memory_terms(r.search) t
    WHERE r.archived_at IS NULL;
    ALTER TABLE memory_postings ADD PRIMARY KEY (part, term, impact, at, id);
    INSERT INTO memory_term_stats (part, term, df)
    SELECT part, term, count(*) FROM memory_postings GROUP BY part, term;
END
$$;
-- +goose StatementEnd
SELECT memory_index_rebuild();

-- The typo correction reads the statistics now (memory_term_stats).
DROP TABLE memory_words;

-- +goose StatementBegin
CREATE FUNCTION memory_bm25(parts text[], terms text[], k integer, max_depth integer,
                            v_team text, v_actor text, v_channel text, v_source_key text,
                            v_private boolean, v_apply boolean)
RETURNS TABLE (id uuid, score float8) LANGUAGE plpgsql STABLE AS $$
DECLARE
    idfs   float8[];
    total  float8;
    n      float8;
    depth  integer := greatest(k * 2, 32);
    pick   integer := k * 2;
    bound  float8;
    kth    float8;
    open_lists integer;
    ids    uuid[];
    scores float8[];
BEGIN
    IF coalesce(cardinality(terms), 0) = 0 THEN
        RETURN;
    END IF;
    SELECT coalesce(sum(s.docs), 0) INTO n FROM memory_part_stats s WHERE s.part = ANY(parts);
    IF n <= 0 THEN
        RETURN;
    END IF;
    -- idf over the partitions the asker can see (BM25's, kept positive).
    SELECT array_agg(ln(1 + (n - coalesce(d.df, 0) + 0.5) / (coalesce(d.df, 0) + 0.5)) ORDER BY t.ord)
    INTO idfs
    FROM unnest(terms) WITH ORDINALITY AS t(term, ord)
    LEFT JOIN LATERAL (SELECT sum(s.df)::float8 AS df FROM memory_term_stats s
                       WHERE s.part = ANY(parts) AND s.term = t.term) d ON true;

    -- A match is weighted by the share of the query's weight it matches.
    SELECT greatest(sum(x), 1e-9) INTO total FROM unnest(idfs) AS x;

    -- Each round reads every word's postings in every partition to depth,
    -- best first, and bounds each memory seen: what it scored in the lists
    -- it was read from, plus, for each word whose list it was not read
    -- from, the weight at which that list was cut off (0 where the whole
    -- list was read). Only the pick best bounded are scored exactly, by
    -- key. The round ends the search when the k-th exact score is at least
    -- every bound left: a memory seen but not picked, and one not seen at
    -- all (every list's cut-off weight
    -- summed); a pick is scored exactly, so it needs no bound, and one
    -- the asker may not see is no answer. Otherwise the next round reads
    -- four times deeper and scores twice as many.
    LOOP
        WITH lists AS (
            SELECT t.term, t.idf, p.part, x.id, x.at, x.impact, x.rn
            FROM unnest(terms, idfs) AS t(term, idf)
            CROSS JOIN unnest(parts) AS p(part)
            CROSS JOIN LATERAL (
                -- In the key's order (weight, then newest), so that ties end no
                -- read late.
                SELECT mp.id, mp.at, mp.impact, row_number() OVER (ORDER BY mp.impact DESC, mp.at DESC, mp.id DESC) AS rn
                FROM memory_postings mp
                WHERE mp.part = p.part AND mp.term = t.term
                ORDER BY mp.impact DESC, mp.at DESC, mp.id DESC
                LIMIT depth + 1
            ) x
        ), edges AS (
            SELECT l.term, l.part, max(l.rn) > depth AS open,
                   max(l.idf) * min(l.impact) FILTER (WHERE l.rn <= depth) AS cut
            FROM lists l GROUP BY l.term, l.part
        ), cuts AS (
            SELECT e.term, max(CASE WHEN e.open THEN e.cut ELSE 0 END) AS cut, bool_or(e.open) AS open
            FROM edges e GROUP BY e.term
        ), cand AS (
            SELECT l.id, max(l.at) AS at,
                   (sum(l.idf * l.impact) + (SELECT sum(c.cut) FROM cuts c) - sum(c.cut))::real::float8 AS hi
            FROM lists l JOIN cuts c ON c.term = l.term
            WHERE l.rn <= depth GROUP BY l.id
        ), pick AS (
            SELECT c.id, c.hi FROM cand c ORDER BY c.hi DESC, c.at DESC, c.id LIMIT pick
        ), scored AS (
            -- Each pick read by its key (LATERAL keeps the planner from
            -- reading the table to join it) and scored on every word.
            -- Rounded to a float4's precision, so that memories of the same
            -- words tie whatever order their terms were summed in, and
            -- recency breaks the tie.
            SELECT m.id, m.created_at, (sum(t.idf * mt.impact) * sum(t.idf) / total)::real::float8 AS score
            FROM pick c
            CROSS JOIN LATERAL (SELECT r.* FROM memories r WHERE r.id = c.id) m
            CROSS JOIN LATERAL memory_terms(m.search) mt
            JOIN unnest(terms, idfs) AS t(term, idf) ON t.term = mt.term
            WHERE memory_visible(m, v_team, v_actor, v_channel, v_source_key, v_private, v_apply)
            GROUP BY m.id, m.created_at
        ), top AS (
            -- Recency breaks ties.
            SELECT s.id, s.score, s.created_at FROM scored s ORDER BY s.score DESC, s.created_at DESC, s.id LIMIT k
        )
        SELECT (SELECT array_agg(top.id ORDER BY top.score DESC, top.created_at DESC, top.id) FROM top),
               (SELECT array_agg(top.score ORDER BY top.score DESC, top.created_at DESC, top.id) FROM top),
               greatest((SELECT coalesce(sum(c.cut), 0) FROM cuts c),
                        (SELECT coalesce(max(c.hi), 0) FROM cand c WHERE c.id NOT IN (SELECT pick.id FROM pick))),
               (SELECT count(*) FROM cuts c WHERE c.open)
        INTO ids, scores, bound, open_lists;

        kth := CASE WHEN coalesce(cardinality(scores), 0) >= k THEN scores[k] ELSE 0 END;
        EXIT WHEN kth >= bound OR depth >= max_depth;
        depth := depth * 4;
        pick := pick * 2;
    END LOOP;

    -- Thread context: the memory said just after a match in the same
    -- thread scores at least 0.6 of it, the one just before at least 0.3.
    -- In a conversation the answer is often the reply to what matches the
    -- question ("How long have you been married?" / "5 years already!").
    -- A memory keeps the best of its own score and these, so matches in
    -- one thread do not lift each other. Only neighbours the asker may
    -- see take part, in either direction.
    RETURN QUERY
    WITH base AS (
        SELECT u.id, u.score, u.pos FROM unnest(ids, scores) WITH ORDINALITY AS u(id, score, pos)
    ), nb AS (
        SELECT b.score * n.w AS score, n.id, b.pos + 0.5 AS pos
        FROM base b
        CROSS JOIN LATERAL (SELECT r.* FROM memories r WHERE r.id = b.id) m
        CROSS JOIN LATERAL (
            (SELECT p.id, 0.3::float8 AS w FROM memories p
             WHERE p.team_id = m.team_id AND p.source_key = m.source_key AND p.archived_at IS NULL
               AND (p.observed_at, p.id) < (m.observed_at, m.id)
               AND memory_visible(p, v_team, v_actor, v_channel, v_source_key, v_private, v_apply)
             ORDER BY p.observed_at DESC, p.id DESC LIMIT 1)
            UNION ALL
            (SELECT p.id, 0.6::float8 FROM memories p
             WHERE p.team_id = m.team_id AND p.source_key = m.source_key AND p.archived_at IS NULL
               AND (p.observed_at, p.id) > (m.observed_at, m.id)
               AND memory_visible(p, v_team, v_actor, v_channel, v_source_key, v_private, v_apply)
             ORDER BY p.observed_at, p.id LIMIT 1)
        ) n
    )
    SELECT x.id, max(x.score)::float8 AS score
    FROM (SELECT base.id, base.score, base.pos FROM base UNION ALL SELECT nb.id, nb.score, nb.pos FROM nb) x
    GROUP BY x.id
    ORDER BY 2 DESC, min(x.pos)
    LIMIT k;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER memory_index_insert ON memories;
DROP TRIGGER memory_index_update ON memories;
DROP TRIGGER memory_index_delete ON memories;
DROP TRIGGER memory_index_truncate ON memories;
DROP FUNCTION memory_index_truncate();
DROP FUNCTION memory_bm25(text[], text[], integer, integer, text, text, text, text, boolean, boolean);
DROP FUNCTION memory_index_rebuild();
DROP FUNCTION memory_index_sync();
DROP TABLE memory_postings, memory_term_stats, memory_part_stats;
DROP FUNCTION memory_terms(tsvector);
DROP FUNCTION memory_visible(memories, text, text, text, text, boolean, boolean);
DROP FUNCTION memory_parts(text, text, text, text);
DROP FUNCTION memory_part(text, text, text, text, text, text, text, text);
DROP INDEX memories_thread_order;
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
