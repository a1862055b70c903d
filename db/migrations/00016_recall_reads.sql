-- +goose Up
-- Recall reads fewer table rows. See docs/memory.md, "Reading and recall".
--
-- Thread evidence read every memory of a window (up to 65 around a match,
-- in each of 12 threads) from the table to find the few that match the
-- query: at a million memories, most of recall's time. Now each thread
-- keeps its own postings (memory_thread_postings): per word, the memories
-- of the thread that hold it, in the order they were said, with the
-- word's weight. The window's bounds come from the thread's index, its
-- matches from these postings, and only the matches are read from the
-- table, for the visibility rule. The ranking is unchanged.
--
-- The typo correction of short queries looked for the nearest words in a
-- trigram index over every partition's statistics, where each word is
-- repeated once per partition that holds it (2.5 million entries for 646
-- words in make bench's million memories): 6 ms a word. It now looks in
-- the team's vocabulary (memory_vocab, each word once, with how many
-- partitions hold it) and keeps only words that a partition the asker can
-- see holds: the same corrections, drawn from the same words.

-- A thread's key in memory_thread_postings: its team and source key,
-- hashed to 8 bytes to keep the postings small. Two threads that hash
-- alike would share postings; recall reads each match's row and checks
-- its thread, so a collision costs a read, never a wrong answer.
-- +goose StatementBegin
CREATE FUNCTION memory_thread(team text, source_key text)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT hashtextextended(team || '/' || source_key, 0)
$$;
-- +goose StatementEnd

-- at is the memory's observed_at: a thread's order (memories_thread_order).
CREATE TABLE memory_thread_postings (
    thread bigint NOT NULL,
    term   text NOT NULL,
    at     timestamptz NOT NULL,
    id     uuid NOT NULL,
    impact real NOT NULL,
    PRIMARY KEY (thread, term, at, id) INCLUDE (impact)
);

-- parts counts the partitions that hold the word (memory_term_stats'
-- rows): a word leaves the vocabulary with its last memory.
CREATE TABLE memory_vocab (
    team  text NOT NULL,
    term  text NOT NULL,
    parts integer NOT NULL,
    PRIMARY KEY (team, term)
);
CREATE INDEX memory_vocab_trgm ON memory_vocab USING gin (team, (term || '') gin_trgm_ops);
-- The words whose count fell to zero, for the trigger to delete.
CREATE INDEX memory_vocab_gone ON memory_vocab (team, term) WHERE parts <= 0;

DROP INDEX memory_term_stats_trgm;

-- memory_index_sync keeps the postings, the thread postings, the
-- statistics and the vocabulary in step with memories, in the writing
-- statement's transaction (a statement-level trigger, so a bulk COPY is
-- indexed set-wise). Only rows whose partition, thread, text, order or
-- activity changed are re-indexed: an update of anything else (an
-- embedding, a reason) costs a comparison. Statistics change by deltas
-- applied in sorted order, partition first, so two writers of one
-- partition queue on its row instead of deadlocking; the vocabulary is
-- written the same way, team first.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_index_sync() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    part CONSTANT text := 'memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive)';
    changed CONSTANT text := '(o.archived_at IS NULL) <> (n.archived_at IS NULL) OR o.search IS DISTINCT FROM n.search OR o.created_at IS DISTINCT FROM n.created_at'
        || ' OR o.observed_at IS DISTINCT FROM n.observed_at OR o.team_id IS DISTINCT FROM n.team_id OR o.source_key IS DISTINCT FROM n.source_key OR '
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
                SELECT %2$s AS part, r.id, r.created_at AS at, memory_thread(r.team_id, r.source_key) AS thread,
                       r.observed_at, t.term, t.impact
                FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t
            ), d AS (
                DELETE FROM memory_postings p USING x
                WHERE p.part = x.part AND p.term = x.term AND p.impact = x.impact AND p.at = x.at AND p.id = x.id
            ), dt AS (
                DELETE FROM memory_thread_postings p USING x
                WHERE p.thread = x.thread AND p.term = x.term AND p.at = x.observed_at AND p.id = x.id
            )
            INSERT INTO memory_term_stats AS s (part, term, df)
            SELECT part, term, -count(*) FROM x GROUP BY part, term ORDER BY part, term
            ON CONFLICT (part, term) DO UPDATE SET df = s.df + excluded.df$q$, gone, part);
        -- A word no memory of the partition holds any more leaves it, and
        -- the team's vocabulary counts one partition fewer.
        EXECUTE format($q$
            WITH g AS (
                DELETE FROM memory_term_stats s
                USING (SELECT DISTINCT %2$s AS part, t.term FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t) c
                WHERE s.part = c.part AND s.term = c.term AND s.df <= 0
                RETURNING s.part, s.term
            )
            INSERT INTO memory_vocab AS v (team, term, parts)
            SELECT split_part(g.part, '/', 1), g.term, -count(*) FROM g GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (team, term) DO UPDATE SET parts = v.parts + excluded.parts$q$, gone, part);
        DELETE FROM memory_vocab v WHERE v.parts <= 0;
        EXECUTE format($q$
            DELETE FROM memory_part_stats s USING (SELECT DISTINCT %2$s AS part FROM (%1$s) r) c
            WHERE s.part = c.part AND s.docs <= 0$q$, gone, part);
    END IF;
    IF came IS NOT NULL THEN
        EXECUTE format($q$
            INSERT INTO memory_part_stats AS s (part, docs)
            SELECT %2$s, count(*) FROM (%1$s) r GROUP BY 1 ORDER BY 1
            ON CONFLICT (part) DO UPDATE SET docs = s.docs + excluded.docs$q$, came, part);
        -- A partition's first memory with a word adds the partition to the
        -- word's count in the vocabulary (xmax = 0: the upsert inserted).
        EXECUTE format($q$
            WITH x AS (
                SELECT %2$s AS part, r.id, r.created_at AS at, memory_thread(r.team_id, r.source_key) AS thread,
                       r.observed_at, t.term, t.impact
                FROM (%1$s) r CROSS JOIN LATERAL memory_terms(r.search) t
            ), ins AS (
                INSERT INTO memory_postings (part, term, impact, at, id)
                SELECT part, term, impact, at, id FROM x
                ON CONFLICT DO NOTHING
            ), tins AS (
                INSERT INTO memory_thread_postings (thread, term, at, id, impact)
                SELECT thread, term, observed_at, id, impact FROM x
                ON CONFLICT DO NOTHING
            ), st AS (
                INSERT INTO memory_term_stats AS s (part, term, df)
                SELECT part, term, count(*) FROM x GROUP BY part, term ORDER BY part, term
                ON CONFLICT (part, term) DO UPDATE SET df = s.df + excluded.df
                RETURNING s.part, s.term, s.xmax = 0 AS fresh
            )
            INSERT INTO memory_vocab AS v (team, term, parts)
            SELECT split_part(st.part, '/', 1), st.term, count(*) FROM st WHERE st.fresh GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (team, term) DO UPDATE SET parts = v.parts + excluded.parts$q$, came, part);
    END IF;
    RETURN NULL;
END
$fn$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_index_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_thread_postings, memory_term_stats, memory_part_stats, memory_vocab;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- memory_index_rebuild builds the postings, statistics and vocabulary anew
-- from memories, set-wise: for migrations and for bulk loads that write
-- memories with the triggers disabled (bench's corpora). Like any bulk
-- load, it fills the postings before building their keys.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_index_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_thread_postings, memory_term_stats, memory_part_stats, memory_vocab;
    ALTER TABLE memory_postings DROP CONSTRAINT memory_postings_pkey;
    ALTER TABLE memory_thread_postings DROP CONSTRAINT memory_thread_postings_pkey;
    INSERT INTO memory_part_stats (part, docs)
    SELECT memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive), count(*)
    FROM memories r WHERE r.archived_at IS NULL GROUP BY 1;
    INSERT INTO memory_postings (part, term, impact, at, id)
    SELECT memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive), t.term, t.impact, r.created_at, r.id
    FROM memories r CROSS JOIN LATERAL memory_terms(r.search) t
    WHERE r.archived_at IS NULL;
    INSERT INTO memory_thread_postings (thread, term, at, id, impact)
    SELECT memory_thread(r.team_id, r.source_key), t.term, r.observed_at, r.id, t.impact
    FROM memories r CROSS JOIN LATERAL memory_terms(r.search) t
    WHERE r.archived_at IS NULL;
    ALTER TABLE memory_postings ADD PRIMARY KEY (part, term, impact, at, id);
    ALTER TABLE memory_thread_postings ADD PRIMARY KEY (thread, term, at, id) INCLUDE (impact);
    INSERT INTO memory_term_stats (part, term, df)
    SELECT part, term, count(*) FROM memory_postings GROUP BY part, term;
    INSERT INTO memory_vocab (team, term, parts)
    SELECT split_part(part, '/', 1), term, count(*) FROM memory_term_stats GROUP BY 1, 2;
END
$$;
-- +goose StatementEnd
SELECT memory_index_rebuild();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_bm25(parts text[], terms text[], k integer, max_depth integer,
                            v_team text, v_actor text, v_channel text, v_source_key text,
                            v_private boolean, v_apply boolean)
RETURNS TABLE (id uuid, score float8) LANGUAGE plpgsql STABLE AS $$
DECLARE
    idfs   float8[];
    total  float8;
    n      float8;
    depth  integer := greatest(k * 8, 128);
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
    --
    -- The first round reads as deep as the second used to (8k postings,
    -- at least 128): at make bench's million memories, 93% of questions
    -- needed that second round, and the first only cost time. It scores
    -- the 2k best bounded, as the first round did: scoring 4k, as the
    -- second did, found the same on LoCoMo's development conversations
    -- (bench/RESULTS.md) and took a millisecond more at a million.
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
            SELECT l.id, max(l.at) AS at, sum(l.idf * l.impact) AS lo,
                   (sum(l.idf * l.impact) + (SELECT sum(c.cut) FROM cuts c) - sum(c.cut))::real::float8 AS hi
            FROM lists l JOIN cuts c ON c.term = l.term
            WHERE l.rn <= depth GROUP BY l.id
        ), pick AS (
            -- The pick best bounded, and the k best known (what the lists
            -- read already give them). The bound alone can fill every pick
            -- with memories of one word whose list was read whole: each is
            -- bounded by its own word plus the cut-off weight of every
            -- other, which ties of a common text keep high, while the
            -- memories that hold all the other words rank below them.
            -- Where the depth stops the search, the known best are what
            -- ranks; where the bound ends it, they change nothing.
            (SELECT c.id FROM cand c ORDER BY c.hi DESC, c.at DESC, c.id LIMIT pick)
            UNION
            (SELECT c.id FROM cand c ORDER BY c.lo DESC, c.at DESC, c.id LIMIT k)
        ), scored AS (
            -- Each pick read by its key (LATERAL keeps the planner from
            -- reading the table to join it) and scored on every word.
            -- Rounded to a float4's precision, so that memories of the same
            -- words tie whatever order their terms were summed in, and
            -- recency breaks the tie.
            SELECT m.id, m.created_at, (sum(t.idf * mt.impact) * sum(t.idf) / total)::real::float8 AS score
            FROM pick c
            CROSS JOIN LATERAL (SELECT r.* FROM memories r WHERE r.id = c.id) m
            CROSS JOIN LATERAL memory_term_weights(m.search, terms) mt
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

    -- Thread evidence. A conversation is the unit that answers: the reply
    -- that holds the answer often shares few words with the question, and
    -- the words it does share ("running") may be common in the rest of a
    -- busy channel, while its thread holds the others ("Melanie", "got
    -- into"). So the thread of each of the best 12 matches is read around
    -- its best match (up to 32 memories either side; its postings in that
    -- window, not its rows), and scored as a whole: per
    -- query word, the best weight any of its matching memories gives it,
    -- with the same share-of-the-query factor as a memory. Every memory
    -- of that window that matches a word joins the candidates, scored
    -- exactly, and each candidate gains a quarter of its thread's score
    -- (0.25 was chosen on LoCoMo's development conversations, from 0.15,
    -- 0.25, 0.35, 0.5 and 1: bench/RESULTS.md). This is what keeps a
    -- conversation's recall when 100,000 unrelated memories share its
    -- channel: their words make the conversation's own rare, which
    -- flattens BM25's weights, but they are not in its threads.
    WITH base AS (
        SELECT u.id, u.score, m.team_id, m.source_key, m.observed_at, m.created_at
        FROM unnest(ids, scores) AS u(id, score)
        CROSS JOIN LATERAL (SELECT r.team_id, r.source_key, r.observed_at, r.created_at FROM memories r WHERE r.id = u.id) m
    ), th AS (
        SELECT DISTINCT ON (b.team_id, b.source_key) b.team_id, b.source_key, b.observed_at, b.id
        FROM (SELECT * FROM base ORDER BY base.score DESC, base.created_at DESC, base.id LIMIT 12) b
        ORDER BY b.team_id, b.source_key, b.score DESC, b.id
    ), win AS (
        -- Each window's bounds, from the thread's index alone: the 33rd
        -- memory back from the match (or the thread's first) and the 32nd
        -- after it (or the thread's last).
        SELECT th.team_id, th.source_key, memory_thread(th.team_id, th.source_key) AS thread,
               lo.at AS lo_at, lo.id AS lo_id, hi.at AS hi_at, hi.id AS hi_id
        FROM th
        CROSS JOIN LATERAL (
            SELECT x.observed_at AS at, x.id FROM (
                SELECT r.observed_at, r.id FROM memories r
                WHERE r.team_id = th.team_id AND r.source_key = th.source_key AND r.archived_at IS NULL
                  AND (r.observed_at, r.id) <= (th.observed_at, th.id)
                ORDER BY r.observed_at DESC, r.id DESC LIMIT 33) x
            ORDER BY x.observed_at, x.id LIMIT 1) lo
        CROSS JOIN LATERAL (
            SELECT x.observed_at AS at, x.id FROM (
                (SELECT r.observed_at, r.id FROM memories r
                 WHERE r.team_id = th.team_id AND r.source_key = th.source_key AND r.archived_at IS NULL
                   AND (r.observed_at, r.id) > (th.observed_at, th.id)
                 ORDER BY r.observed_at, r.id LIMIT 32)
                UNION ALL SELECT th.observed_at, th.id) x
            ORDER BY x.observed_at DESC, x.id DESC LIMIT 1) hi
    ), hits AS (
        -- The window's memories that hold a query word, from the thread's
        -- postings, with the word's weight: a window holds at most 65
        -- memories, so the limit only keeps the planner reading each word's
        -- range by its key.
        SELECT w.team_id, w.source_key, p.id, t.term, t.idf, p.impact
        FROM win w
        CROSS JOIN unnest(terms, idfs) AS t(term, idf)
        CROSS JOIN LATERAL (
            SELECT mp.id, mp.impact FROM memory_thread_postings mp
            WHERE mp.thread = w.thread AND mp.term = t.term
              AND (mp.at, mp.id) >= (w.lo_at, w.lo_id) AND (mp.at, mp.id) <= (w.hi_at, w.hi_id)
            ORDER BY mp.at, mp.id LIMIT 65
        ) p
    ), seen AS (
        -- Only the matches are read from the table: those the asker may
        -- see, and of this thread (memory_thread is a hash).
        SELECT m.id, m.created_at, m.team_id, m.source_key
        FROM (SELECT DISTINCT h.id FROM hits h) h
        CROSS JOIN LATERAL (SELECT r.* FROM memories r WHERE r.id = h.id) m
        WHERE memory_visible(m, v_team, v_actor, v_channel, v_source_key, v_private, v_apply)
    ), tm AS (
        SELECT s.id, s.created_at, s.source_key, h.term, h.idf, h.impact
        FROM hits h JOIN seen s ON s.id = h.id AND s.team_id = h.team_id AND s.source_key = h.source_key
    ), ts AS (
        SELECT x.source_key, sum(x.idf * x.imp) * sum(x.idf) / total AS s
        FROM (SELECT tm.source_key, tm.term, max(tm.idf) AS idf, max(tm.impact) AS imp FROM tm GROUP BY 1, 2) x
        GROUP BY x.source_key
    ), ds AS (
        SELECT tm.id, tm.created_at, tm.source_key, (sum(tm.idf * tm.impact) * sum(tm.idf) / total)::real::float8 AS s
        FROM tm GROUP BY tm.id, tm.created_at, tm.source_key
    ), allc AS (
        SELECT ds.id, ds.created_at, ds.source_key, ds.s FROM ds
        UNION ALL
        SELECT b.id, b.created_at, b.source_key, b.score FROM base b WHERE NOT EXISTS (SELECT 1 FROM ds WHERE ds.id = b.id)
    ), topx AS (
        SELECT a.id, a.created_at, (a.s + 0.25 * coalesce(ts.s, 0))::real::float8 AS s
        FROM allc a LEFT JOIN ts ON ts.source_key = a.source_key
        ORDER BY 3 DESC, a.created_at DESC, a.id LIMIT k
    )
    SELECT array_agg(topx.id ORDER BY topx.s DESC, topx.created_at DESC, topx.id),
           array_agg(topx.s ORDER BY topx.s DESC, topx.created_at DESC, topx.id)
    INTO ids, scores FROM topx;

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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_bm25(parts text[], terms text[], k integer, max_depth integer,
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
    query  tsquery;
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
            CROSS JOIN LATERAL memory_term_weights(m.search, terms) mt
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

    query := (SELECT string_agg(quote_literal(x), ' | ')::tsquery FROM unnest(terms) AS x);
    -- Thread evidence. A conversation is the unit that answers: the reply
    -- that holds the answer often shares few words with the question, and
    -- the words it does share ("running") may be common in the rest of a
    -- busy channel, while its thread holds the others ("Melanie", "got
    -- into"). So the thread of each of the best 12 matches is read around
    -- its best match
    -- (up to 32 memories either side, as said), and scored as a whole: per
    -- query word, the best weight any of its matching memories gives it,
    -- with the same share-of-the-query factor as a memory. Every memory
    -- of that window that matches a word joins the candidates, scored
    -- exactly, and each candidate gains a quarter of its thread's score
    -- (0.25 was chosen on LoCoMo's development conversations, from 0.15,
    -- 0.25, 0.35, 0.5 and 1: bench/RESULTS.md). This is what keeps a
    -- conversation's recall when 100,000 unrelated memories share its
    -- channel: their words make the conversation's own rare, which
    -- flattens BM25's weights, but they are not in its threads.
    WITH base AS (
        SELECT u.id, u.score, m.team_id, m.source_key, m.observed_at, m.created_at
        FROM unnest(ids, scores) AS u(id, score)
        CROSS JOIN LATERAL (SELECT r.team_id, r.source_key, r.observed_at, r.created_at FROM memories r WHERE r.id = u.id) m
    ), th AS (
        SELECT DISTINCT ON (b.team_id, b.source_key) b.team_id, b.source_key, b.observed_at, b.id
        FROM (SELECT * FROM base ORDER BY base.score DESC, base.created_at DESC, base.id LIMIT 12) b
        ORDER BY b.team_id, b.source_key, b.score DESC, b.id
    ), win AS (
        -- The window's ids from the thread's index, then each row by its
        -- key, as the picks above are read.
        SELECT th.source_key, m AS r
        FROM th
        CROSS JOIN LATERAL (
            (SELECT r.id FROM memories r
             WHERE r.team_id = th.team_id AND r.source_key = th.source_key AND r.archived_at IS NULL
               AND (r.observed_at, r.id) <= (th.observed_at, th.id)
             ORDER BY r.observed_at DESC, r.id DESC LIMIT 33)
            UNION ALL
            (SELECT r.id FROM memories r
             WHERE r.team_id = th.team_id AND r.source_key = th.source_key AND r.archived_at IS NULL
               AND (r.observed_at, r.id) > (th.observed_at, th.id)
             ORDER BY r.observed_at, r.id LIMIT 32)
        ) w
        CROSS JOIN LATERAL (SELECT r.* FROM memories r WHERE r.id = w.id) m
        WHERE m.search @@ query
          AND memory_visible(m, v_team, v_actor, v_channel, v_source_key, v_private, v_apply)
    ), tm AS (
        SELECT (w.r).id, (w.r).created_at, w.source_key, t.term, t.idf, mt.impact
        FROM win w
        CROSS JOIN LATERAL memory_term_weights((w.r).search, terms) mt
        JOIN unnest(terms, idfs) AS t(term, idf) ON t.term = mt.term
    ), ts AS (
        SELECT x.source_key, sum(x.idf * x.imp) * sum(x.idf) / total AS s
        FROM (SELECT tm.source_key, tm.term, max(tm.idf) AS idf, max(tm.impact) AS imp FROM tm GROUP BY 1, 2) x
        GROUP BY x.source_key
    ), ds AS (
        SELECT tm.id, tm.created_at, tm.source_key, (sum(tm.idf * tm.impact) * sum(tm.idf) / total)::real::float8 AS s
        FROM tm GROUP BY tm.id, tm.created_at, tm.source_key
    ), allc AS (
        SELECT ds.id, ds.created_at, ds.source_key, ds.s FROM ds
        UNION ALL
        SELECT b.id, b.created_at, b.source_key, b.score FROM base b WHERE NOT EXISTS (SELECT 1 FROM ds WHERE ds.id = b.id)
    ), topx AS (
        SELECT a.id, a.created_at, (a.s + 0.25 * coalesce(ts.s, 0))::real::float8 AS s
        FROM allc a LEFT JOIN ts ON ts.source_key = a.source_key
        ORDER BY 3 DESC, a.created_at DESC, a.id LIMIT k
    )
    SELECT array_agg(topx.id ORDER BY topx.s DESC, topx.created_at DESC, topx.id),
           array_agg(topx.s ORDER BY topx.s DESC, topx.created_at DESC, topx.id)
    INTO ids, scores FROM topx;

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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_index_sync() RETURNS trigger LANGUAGE plpgsql AS $fn$
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_index_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_postings, memory_term_stats, memory_part_stats;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION memory_index_rebuild() RETURNS void LANGUAGE plpgsql AS $$
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

DROP TABLE memory_thread_postings, memory_vocab;
DROP FUNCTION memory_thread(text, text);
CREATE INDEX memory_term_stats_trgm ON memory_term_stats USING gin (part, (term || '') gin_trgm_ops);
