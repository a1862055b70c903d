-- Recall's ranking: memory_bm25 ranks every visible memory that matches a
-- query's words. See docs/architecture.md, "How recall ranks", which
-- quotes the constants below (a test keeps the two in step).
--
-- A repeatable definition (db/migrate.go): re-applied whenever this file
-- changes. Changing the ranking is a diff of this file alone.

-- Thread evidence: each candidate gains this share of its thread's score
-- (chosen on LoCoMo's development conversations, from 0.15, 0.25, 0.35,
-- 0.5 and 1: bench/RESULTS.md).
CREATE OR REPLACE FUNCTION recall_thread_prior() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 0.25 $$;

-- Thread evidence: the threads of this many of the best matches are read
-- as evidence.
CREATE OR REPLACE FUNCTION recall_thread_matches() RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 12 $$;

-- Thread evidence: a thread is read this many memories either side of its
-- best match, as said.
CREATE OR REPLACE FUNCTION recall_thread_window() RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 32 $$;

-- Thread context: the memory said just after a match scores at least this
-- share of the match's score (the answer to a question is often its reply).
CREATE OR REPLACE FUNCTION recall_next_share() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 0.6 $$;

-- Thread context: the memory said just before a match scores at least
-- this share of the match's score.
CREATE OR REPLACE FUNCTION recall_previous_share() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 0.3 $$;

-- The memories of these partitions past their expiry that the expiry
-- sweep has not archived yet (it runs every minute, so they are usually
-- few, and memories_expiry finds them). The index still holds them, and
-- nobody may see them: recall takes them out of the statistics, the lists
-- it reads and the typo correction's words, so that nothing invisible
-- shapes a ranking. They are read by partition (memories_expired_by_part,
-- db/definitions/30_recall_index.sql), so a question costs the expired
-- memories of the asker's partitions, not every one of the team's: a
-- sweep that falls behind slows only the questions whose partitions hold
-- what it has not archived yet. (Each partition's name begins with its
-- team, so the team is not asked for.)
DROP FUNCTION IF EXISTS memory_expired(text[], text);
CREATE OR REPLACE FUNCTION memory_expired(parts text[])
RETURNS TABLE (id uuid, search tsvector) LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT r.id, r.search FROM memories r
    WHERE memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive) = ANY(parts)
      AND r.archived_at IS NULL AND r.expires_at IS NOT NULL AND r.expires_at <= now()
$$;

-- The tsquery of the words joined by op ('&' or '|'), each quoted as a
-- lexeme (quotes and backslashes doubled), so that no word is read as
-- tsquery syntax.
CREATE OR REPLACE FUNCTION recall_words_query(terms text[], op text)
RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT string_agg('''' || replace(replace(x, '\', '\\'), '''', '''''') || '''', ' ' || op || ' ')::tsquery
    FROM unnest(terms) AS x
$$;

DROP FUNCTION IF EXISTS memory_bm25(text[], text[], integer, integer, text, text, text, text, boolean, boolean);
CREATE OR REPLACE FUNCTION memory_bm25(parts text[], terms text[], k integer, max_depth integer,
                            v_team text, v_actor text, v_channel text, v_source_key text,
                            v_private boolean, v_apply boolean, v_only text DEFAULT '')
RETURNS TABLE (id uuid, score float8) LANGUAGE plpgsql STABLE AS $$
DECLARE
    idfs   float8[];
    pids   integer[];
    total  float8;
    n      float8;
    depth  integer := greatest(k * 8, 128);
    pick   integer := k * 2;
    bound  float8;
    kth    float8;
    open_lists integer;
    ids    uuid[];
    scores float8[];
    gone   uuid[];
    gone_df float8[];
    allq   tsquery;
    place_words text[];
    team_words text[];
    anyq   tsquery := recall_words_query(terms, '|');
BEGIN
    IF coalesce(cardinality(terms), 0) = 0 THEN
        RETURN;
    END IF;
    -- The statistics count what the asker may see in these partitions but
    -- the memories past their expiry: those are taken out here, per word.
    -- Each word is matched as a one-word text query (a binary search of the
    -- memory's text vector), among the memories that hold any of them:
    -- turning each expired memory's text vector into an array to look for
    -- the words made this statement 0.40 ms on average at make bench's
    -- million (0.64 ms at p95), against 0.31 (0.43) now.
    WITH e AS MATERIALIZED (
        SELECT x.id, x.search FROM memory_expired(parts) x
    ), hit AS MATERIALIZED (
        SELECT e.search FROM e WHERE e.search @@ anyq
    )
    SELECT (SELECT coalesce(array_agg(e.id), '{}') FROM e),
           ARRAY(SELECT (SELECT count(*) FROM hit WHERE hit.search @@ t.q)::float8
                 FROM unnest(ARRAY(SELECT recall_words_query(ARRAY[w.term], '&')
                                   FROM unnest(terms) WITH ORDINALITY AS w(term, ord) ORDER BY w.ord))
                      WITH ORDINALITY AS t(q, ord)
                 ORDER BY t.ord)
    INTO gone, gone_df;
    -- The partitions' numbers in the postings and statistics (a partition
    -- with no memory has no row, and nothing to read).
    SELECT coalesce(sum(s.docs), 0) - cardinality(gone), array_agg(s.id)
    INTO n, pids FROM memory_part_stats s WHERE s.part = ANY(parts);
    IF n <= 0 THEN
        RETURN;
    END IF;
    -- idf over the partitions the asker can see (BM25's, kept positive).
    SELECT array_agg(ln(1 + (n - d.df + 0.5) / (d.df + 0.5)) ORDER BY t.ord)
    INTO idfs
    FROM unnest(terms) WITH ORDINALITY AS t(term, ord)
    CROSS JOIN LATERAL (SELECT coalesce(sum(s.df), 0)::float8 - gone_df[t.ord] AS df FROM memory_term_stats s
                        WHERE s.part = ANY(pids) AND s.term = t.term) d;

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
            CROSS JOIN unnest(pids) AS p(part)
            CROSS JOIN LATERAL (
                -- In the key's order (weight, then newest), so that ties end no
                -- read late.
                SELECT mp.id, mp.at, mp.impact, row_number() OVER (ORDER BY mp.impact DESC, mp.at DESC, mp.id DESC) AS rn
                FROM memory_postings mp
                WHERE mp.part = p.part AND mp.term = t.term AND mp.id NOT IN (SELECT unnest(gone))
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
            WHERE memory_visible(m, v_team, v_actor, v_channel, v_source_key, v_private, v_apply, v_only)
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

    -- The depth cap ended the search before the bound did: a memory in no
    -- list read could still outrank the k-th. The one that can lose most
    -- is a memory that holds every word of the question, each of them
    -- common where it was said: in every word's list, more shorter
    -- memories weigh the word more than it does, so it is read in none,
    -- though it outranks them all (make bench's write-to-visible misses:
    -- a memory searched for by its own text). So the memories that hold
    -- every word are read and scored too, as many as the last round
    -- picked, in the table's order.
    --
    -- They are read partition by partition, each kind by its own index:
    -- the asker's own and the thread's through their B-trees (few rows),
    -- the channel's and the workspace's public ones through their text
    -- indexes, whose keys are the place and the word
    -- (db/definitions/35_recall_words.sql). One read of the whole text
    -- index (memories_subject_search) would read every match in every team
    -- and channel to keep the few in these partitions: 18,262 rows and
    -- 47 ms at a million memories, for none.
    -- (The team and the channel are filters, not ways in, in the text
    -- indexes' reads, whose keys hold them already: planned for words it
    -- cannot see, the planner ANDed their bitmaps with one of the whole
    -- team's rows, or the channel's: 35,807 rows and 12 ms.)
    IF kth < bound AND cardinality(terms) > 1 THEN
        allq := recall_words_query(terms, '&');
        -- Every word as the two text indexes key it.
        place_words := memory_place_terms(memory_channel_place(v_team, v_channel), terms);
        team_words := memory_place_terms(v_team, terms);
        WITH every AS (
            SELECT x.id FROM (
                -- (Matched on the B-trees' copy of the text, so that only
                -- the matches are read from the table: a person may hold
                -- thousands of memories. Their partition is
                -- team/p/subject_id: memory_part's, for these rows.)
                SELECT r.ctid AS tid, r.id
                FROM (SELECT p.id FROM memories p
                      WHERE p.team_id = v_team AND p.scope = 'personal' AND p.subject_id = v_actor
                        AND p.archived_at IS NULL AND p.created_at > '-infinity' AND p.search @@ allq
                        AND v_team || '/p/' || v_actor = ANY(parts)
                      OFFSET 0) p
                CROSS JOIN LATERAL (SELECT m.ctid, m.id FROM memories m WHERE m.id = p.id) r
                UNION
                SELECT r.ctid, r.id
                FROM (SELECT t.id FROM memories t
                      WHERE t.team_id = v_team AND t.scope = 'conversation' AND t.source_key = v_source_key
                        AND t.archived_at IS NULL AND t.created_at > '-infinity' AND t.search @@ allq
                      OFFSET 0) t
                CROSS JOIN LATERAL (SELECT m.ctid, m.id, m.team_id, m.scope, m.subject_type, m.subject_id, m.source_key,
                                           m.channel_id, m.visibility, m.sensitive FROM memories m WHERE m.id = t.id) r
                WHERE memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive) = ANY(parts)
                UNION
                -- (A text index is read by a bitmap, and so the table in
                -- its order: each of these two stops at the pick first
                -- matches, which are the ones the last ORDER BY keeps,
                -- instead of reading every match from the table: 1,171
                -- rows and 4 ms for 38 at a million, where the words are
                -- common together. So the others' filters are applied
                -- here too, before the LIMIT.)
                (SELECT r.ctid, r.id FROM memories r
                 WHERE r.channel_id || '' = v_channel AND v_channel <> '' AND r.scope IN ('channel', 'workspace')
                   AND r.archived_at IS NULL AND memory_place_words(memory_channel_place(r.team_id, r.channel_id), r.search) @> place_words
                   AND r.team_id || '' = v_team
                   AND memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive) = ANY(parts)
                   AND r.id <> ALL(coalesce(ids, '{}')) AND r.id NOT IN (SELECT unnest(gone))
                 LIMIT pick)
                UNION
                (SELECT r.ctid, r.id FROM memories r
                 WHERE r.scope = 'workspace' AND r.visibility = 'public' AND r.sensitive = ''
                   AND r.archived_at IS NULL AND memory_place_words(r.team_id, r.search) @> team_words
                   AND r.team_id || '' = v_team
                   AND memory_part(r.team_id, r.scope, r.subject_type, r.subject_id, r.source_key, r.channel_id, r.visibility, r.sensitive) = ANY(parts)
                   AND r.id <> ALL(coalesce(ids, '{}')) AND r.id NOT IN (SELECT unnest(gone))
                 LIMIT pick)
            ) x
            WHERE x.id <> ALL(coalesce(ids, '{}')) AND x.id NOT IN (SELECT unnest(gone))
            ORDER BY x.tid
            LIMIT pick
        ), scored AS (
            SELECT m.id, m.created_at, (sum(t.idf * mt.impact) * sum(t.idf) / total)::real::float8 AS score
            FROM every c
            CROSS JOIN LATERAL (SELECT r.* FROM memories r WHERE r.id = c.id) m
            CROSS JOIN LATERAL memory_term_weights(m.search, terms) mt
            JOIN unnest(terms, idfs) AS t(term, idf) ON t.term = mt.term
            WHERE memory_visible(m, v_team, v_actor, v_channel, v_source_key, v_private, v_apply, v_only)
            GROUP BY m.id, m.created_at
        ), top AS (
            SELECT x.id, x.score, x.created_at FROM (
                SELECT s.id, s.score, s.created_at FROM scored s
                UNION ALL
                SELECT u.id, u.score, m.created_at FROM unnest(ids, scores) AS u(id, score)
                CROSS JOIN LATERAL (SELECT r.created_at FROM memories r WHERE r.id = u.id) m
            ) x
            ORDER BY x.score DESC, x.created_at DESC, x.id LIMIT k
        )
        SELECT array_agg(top.id ORDER BY top.score DESC, top.created_at DESC, top.id),
               array_agg(top.score ORDER BY top.score DESC, top.created_at DESC, top.id)
        INTO ids, scores FROM top;
    END IF;

    -- Thread evidence. A conversation is the unit that answers: the reply
    -- that holds the answer often shares few words with the question, and
    -- the words it does share ("running") may be common in the rest of a
    -- busy channel, while its thread holds the others ("Melanie", "got
    -- into"). So the thread of each of the best recall_thread_matches
    -- matches is read around its best match (recall_thread_window memories
    -- either side), and scored as a whole: per query word, the best
    -- weight any of its matching memories gives it, with the same
    -- share-of-the-query factor as a memory. Every memory
    -- of that window that matches a word joins the candidates, scored
    -- exactly, and each candidate gains recall_thread_prior of its thread's
    -- score. This is what keeps a
    -- conversation's recall when 100,000 unrelated memories share its
    -- channel: their words make the conversation's own rare, which
    -- flattens BM25's weights, but they are not in its threads.
    WITH base AS (
        SELECT u.id, u.score, m.team_id, m.source_key, m.observed_at, m.created_at
        FROM unnest(ids, scores) AS u(id, score)
        CROSS JOIN LATERAL (SELECT r.team_id, r.source_key, r.observed_at, r.created_at FROM memories r WHERE r.id = u.id) m
    ), th AS (
        SELECT DISTINCT ON (b.team_id, b.source_key) b.team_id, b.source_key, b.observed_at, b.id
        FROM (SELECT * FROM base ORDER BY base.score DESC, base.created_at DESC, base.id LIMIT recall_thread_matches()) b
        ORDER BY b.team_id, b.source_key, b.score DESC, b.id
    ), tm AS (
        -- Each thread's window: recall_thread_window memories either side
        -- of its best match that the asker may see (the match among the
        -- ones before it), walked in the thread's order from the match, so
        -- that another person's memories in the thread neither count nor
        -- take part. Of those, the ones that hold a query word, each with
        -- the word's weight, read from their text as the picks are scored
        -- (memory_term_weights: the postings' weights). memories_thread_seen
        -- carries what memory_visible reads and the text, so the walks read
        -- the thread's index alone; the overlap with the query's words is
        -- checked before any word is weighed.
        SELECT m.id, m.created_at, m.source_key, t.term, t.idf, mt.impact
        FROM th
        CROSS JOIN LATERAL (
            (SELECT r.id, r.created_at, r.source_key, r.search FROM memories r
             WHERE r.team_id = th.team_id AND r.source_key = th.source_key AND r.archived_at IS NULL
               AND (r.observed_at, r.id) <= (th.observed_at, th.id)
               AND memory_visible(r, v_team, v_actor, v_channel, v_source_key, v_private, v_apply, v_only)
             ORDER BY r.observed_at DESC, r.id DESC LIMIT recall_thread_window() + 1)
            UNION ALL
            (SELECT r.id, r.created_at, r.source_key, r.search FROM memories r
             WHERE r.team_id = th.team_id AND r.source_key = th.source_key AND r.archived_at IS NULL
               AND (r.observed_at, r.id) > (th.observed_at, th.id)
               AND memory_visible(r, v_team, v_actor, v_channel, v_source_key, v_private, v_apply, v_only)
             ORDER BY r.observed_at, r.id LIMIT recall_thread_window())
        ) m
        CROSS JOIN LATERAL memory_term_weights(m.search, terms) mt
        JOIN unnest(terms, idfs) AS t(term, idf) ON t.term = mt.term
        WHERE m.search @@ anyq
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
        SELECT a.id, a.created_at, (a.s + recall_thread_prior() * coalesce(ts.s, 0))::real::float8 AS s
        FROM allc a LEFT JOIN ts ON ts.source_key = a.source_key
        ORDER BY 3 DESC, a.created_at DESC, a.id LIMIT k
    )
    SELECT array_agg(topx.id ORDER BY topx.s DESC, topx.created_at DESC, topx.id),
           array_agg(topx.s ORDER BY topx.s DESC, topx.created_at DESC, topx.id)
    INTO ids, scores FROM topx;

    -- Thread context: the memory said just after a match in the same
    -- thread scores at least recall_next_share of it, the one just before
    -- at least recall_previous_share.
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
            (SELECT p.id, recall_previous_share()::float8 AS w FROM memories p
             WHERE p.team_id = m.team_id AND p.source_key = m.source_key AND p.archived_at IS NULL
               AND (p.observed_at, p.id) < (m.observed_at, m.id)
               AND memory_visible(p, v_team, v_actor, v_channel, v_source_key, v_private, v_apply, v_only)
             ORDER BY p.observed_at DESC, p.id DESC LIMIT 1)
            UNION ALL
            (SELECT p.id, recall_next_share()::float8 FROM memories p
             WHERE p.team_id = m.team_id AND p.source_key = m.source_key AND p.archived_at IS NULL
               AND (p.observed_at, p.id) > (m.observed_at, m.id)
               AND memory_visible(p, v_team, v_actor, v_channel, v_source_key, v_private, v_apply, v_only)
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

