-- name: MemoryInsert :one
-- Stores a memory, and with @created its history's first event ('create',
-- by its actor), in one statement; the write triggers
-- (db/definitions/30_recall_index.sql) index it in the same statement, so
-- the next search on any connection finds it.
WITH m AS (
    INSERT INTO memories (
        team_id, scope, subject_type, subject_id, kind, content, normalized, cues,
        source_key, channel_id, visibility, actor_id, actor_name, written_by, message_ts,
        observed_at, expires_at, idempotency_key, sensitive, embedding
    ) VALUES (
        @team_id, @scope, @subject_type, @subject_id, @kind, @content, @normalized, @cues,
        @source_key, @channel_id, @visibility, @actor_id, @actor_name, @written_by, @message_ts,
        @observed_at, sqlc.narg(expires_at), @idempotency_key, @sensitive, sqlc.narg(embedding)::real[]
    )
    ON CONFLICT (idempotency_key) WHERE archived_at IS NULL DO NOTHING
    RETURNING *
), e AS (
    INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason)
    SELECT m.id, m.team_id, 'create', m.actor_id, @created_path::text, @created_reason::text FROM m WHERE @created::boolean
)
SELECT * FROM m;

-- name: MemoryGetByID :one
-- By id within a team: an id from another workspace finds nothing.
SELECT * FROM memories WHERE id = @id AND team_id = @team_id;

-- name: MemoryListByIDPrefix :many
-- A team's memories with ids from @lo to @hi (those that start with one
-- prefix), newest first, read from the primary key.
SELECT * FROM memories
WHERE team_id = @team_id AND id BETWEEN @lo::uuid AND @hi::uuid
ORDER BY created_at DESC
LIMIT 10;

-- name: MemoryFindSimilar :many
-- Active memories of one scope and subject that say the same once
-- normalized, or are lexically close: candidates for dedup and
-- supersession. Candidates are the subject's memories with every word of
-- the new one, and its newest memories with any of them, at most 32 of
-- each, so similarity() is computed on a bounded set, never on every
-- memory of a large subject. Those with every word are read through the
-- text index that holds the subject (memories_subject_search), as many as
-- match: the team and scope are filters (|| ''), so that the planner can't
-- read them from memories_subject instead, which checks every memory of
-- the subject when none holds every word, as a new memory's usually are,
-- and which it picks for any subject whose size it underestimates.
WITH cand AS (
    SELECT DISTINCT ON (id) id, all_words FROM (
    (SELECT m.id, true AS all_words FROM memories m
     WHERE m.team_id || '' = @team_id AND m.scope || '' = @scope AND m.subject_id = @subject_id AND m.archived_at IS NULL
       AND m.search @@ plainto_tsquery('english', @normalized::text)
     LIMIT 32)
    UNION ALL
    (SELECT m.id, false FROM memories m
     WHERE m.team_id = @team_id AND m.scope = @scope AND m.subject_id = @subject_id AND m.archived_at IS NULL
       AND m.search @@ websearch_to_tsquery('english', @any_words::text)
     ORDER BY m.created_at DESC
     LIMIT 32)
    ) c
    ORDER BY id, all_words DESC
)
SELECT sqlc.embed(r), similarity(r.normalized, @normalized::text)::float8 AS sim
FROM cand JOIN memory_rows r ON r.id = cand.id
WHERE r.subject_type = @subject_type
  AND (r.expires_at IS NULL OR r.expires_at > now())
  AND (cand.all_words OR r.normalized = @normalized::text
       OR similarity(r.normalized, @normalized::text) > @min_similarity::float8)
ORDER BY (r.normalized = @normalized::text) DESC, sim DESC, r.created_at DESC
LIMIT @max_candidates;

-- name: MemoryArchive :one
UPDATE memories
SET archived_at = now(), archived_reason = @reason::text, archived_by = @archived_by::text,
    superseded_by = sqlc.narg(superseded_by)
WHERE id = @id AND archived_at IS NULL
RETURNING *;

-- name: MemoryRestore :one
UPDATE memories
SET archived_at = NULL, archived_reason = NULL, archived_by = NULL, superseded_by = NULL
WHERE id = @id AND archived_at IS NOT NULL
RETURNING *;

-- name: MemoryActiveIDs :many
-- Those of @ids that are active and not past their expiry, locked until the
-- transaction ends: a write checks, under its subject's lock, that what it
-- merges or replaces is still there.
SELECT id FROM memories
WHERE team_id = @team_id AND id = ANY(@ids::uuid[]) AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > now())
FOR UPDATE;

-- name: MemoryForRestore :one
-- One of a team's memories, locked, with whether its expiry has passed (by
-- the database's clock, which the sweep reads).
SELECT sqlc.embed(memories), (expires_at IS NOT NULL AND expires_at <= now())::boolean AS expired
FROM memories
WHERE id = @id AND team_id = @team_id
FOR UPDATE;

-- name: MemoryActiveReplacement :one
-- The active memory that replaced @id: the one it was superseded by (or
-- updated into), or, where that was itself replaced, the first active one
-- down the chain, by the database's clock.
WITH RECURSIVE chain(id, depth) AS (
    SELECT m.superseded_by, 1 FROM memories m WHERE m.team_id = @team_id AND m.id = @id AND m.superseded_by IS NOT NULL
    UNION ALL
    SELECT m.superseded_by, c.depth + 1 FROM chain c JOIN memories m ON m.id = c.id AND m.team_id = @team_id
    WHERE m.archived_at IS NOT NULL AND m.superseded_by IS NOT NULL AND c.depth < 64
)
SELECT r.* FROM chain c JOIN memories r ON r.id = c.id
WHERE r.team_id = @team_id AND r.archived_at IS NULL AND (r.expires_at IS NULL OR r.expires_at > now())
ORDER BY c.depth
LIMIT 1;

-- name: MemoryActiveIdentical :one
-- The active memory other than @id with @id's idempotency key: the one
-- that would keep @id from being restored.
SELECT a.* FROM memories m JOIN memories a ON a.idempotency_key = m.idempotency_key
WHERE m.team_id = @team_id AND m.id = @id AND a.team_id = m.team_id AND a.id <> m.id AND a.archived_at IS NULL
LIMIT 1;

-- name: MemoryArchiveExpiredIdentical :execrows
-- Archives, as the sweep does (MemoryArchiveExpired), the active memory
-- with @idempotency_key, or with @id's, whose expiry has passed: so that
-- the same words said again, or restored, are not kept out by one the
-- sweep has not reached yet.
WITH archived AS (
    UPDATE memories u
    SET archived_at = now(), archived_reason = 'expired', archived_by = 'system:expiry'
    WHERE u.team_id = @team_id::text
      AND u.idempotency_key = coalesce(sqlc.narg(idempotency_key)::text,
                                       (SELECT k.idempotency_key FROM memories k WHERE k.team_id = @team_id::text AND k.id = sqlc.narg(id)::uuid))
      AND u.archived_at IS NULL AND u.expires_at IS NOT NULL AND u.expires_at <= now()
    RETURNING u.id, u.team_id
)
INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason)
SELECT a.id, a.team_id, 'archive', 'system:expiry', 'system', 'expired' FROM archived a;

-- name: MemorySearch :many
-- Memories the actor may see in one place that match a query, best first.
--
-- memory_bm25 ranks every visible memory that matches any of the query's
-- words by BM25F (content above cues), each word weighted by how rare it
-- is among the memories of the partitions the asker can see
-- (memory_parts), reading each word's postings best first and stopping
-- when nothing unread can enter its top k. With fuzzy, each word whose
-- stem none of those partitions holds is also searched as the nearest
-- stems they do hold (pg_trgm similarity over the team's vocabulary,
-- keeping only stems a partition the asker can see holds): the typo
-- correction of short queries, drawn only from what the asker can see
-- (not from memories past their expiry that the sweep has not archived).
--
-- The matches are then ordered by their BM25 score, raised a little by
-- closeness of scope (this thread > the asker's own, more when about_actor,
-- a question about themselves > this channel > the workspace), with
-- recency breaking ties: neither can outweigh a rare word. With thread_any
-- (auto-recall) this thread's memories are candidates without a match, and
-- this channel's newest fill the slots the matches leave, ranked below
-- them. Up to reserve of the asker's own preferences are kept whatever
-- their rank (reserved), the matching ones first, best first, then the
-- newest. Every candidate passes memory_visible, the one visibility rule.
WITH parts AS (
    -- The partitions the asker may see, and their numbers in the
    -- statistics (memory_part_stats). A viewer of one scope (@only_scope:
    -- a guest, an external member of a Slack Connect channel reading its
    -- host's memories, or an organisation's member) reads that scope's.
    SELECT x.p, ARRAY(SELECT s.id FROM memory_part_stats s WHERE s.part = ANY(x.p)) AS ids
    FROM (SELECT memory_parts(@team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @only_scope::text) AS p) x
), gone AS MATERIALIZED (
    -- Memories of those partitions past their expiry, not yet swept: their
    -- words are no one's to correct a typo to. (Their words as arrays,
    -- made once: the checks below read them for each word and each
    -- candidate correction, 0.65 ms a read at a million memories when
    -- each read made them again.)
    SELECT tsvector_to_array(e.search) AS lex FROM parts, memory_expired(parts.p) AS e(id, search)
), lex AS (
    SELECT DISTINCT l FROM unnest(tsvector_to_array(to_tsvector('english', @words::text))) AS l
), fixes AS (
    SELECT f.term
    FROM unnest(@fuzzy::text[]) AS q(word)
    CROSS JOIN LATERAL (
        SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', q.word))) AS x LIMIT 1
    ) w
    CROSS JOIN LATERAL (
        SELECT v.term FROM memory_vocab v
        WHERE v.team = @team_id::text AND (v.term || '') % w.x
          AND (SELECT coalesce(sum(s.df), 0) FROM memory_term_stats s, parts WHERE s.part = ANY(parts.ids) AND s.term = v.term)
              > (SELECT count(*) FROM gone WHERE v.term = ANY(gone.lex))
        ORDER BY similarity(v.term, w.x) DESC, v.term
        LIMIT 2
    ) f
    WHERE length(w.x) >= 3
      AND (SELECT coalesce(sum(k.df), 0) FROM memory_term_stats k, parts WHERE k.part = ANY(parts.ids) AND k.term = w.x)
          <= (SELECT count(*) FROM gone WHERE w.x = ANY(gone.lex))
), terms AS (
    SELECT coalesce(array_agg(DISTINCT t.t), '{}')::text[] AS t FROM (SELECT l AS t FROM lex UNION SELECT term FROM fixes) t
), bm AS (
    SELECT b.id, b.score
    FROM parts, terms, memory_bm25(parts.p, terms.t, @depth_k::int, @max_depth::int, @team_id::text, @actor_id::text,
                                   @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean,
                                   @only_scope::text) AS b(id, score)
), cand AS (
    SELECT bm.id, bm.score AS bm, true AS matched, false AS fill, false AS word FROM bm
    UNION ALL
    (SELECT m.id, 0, false, false, false FROM memories m
     WHERE @thread_any::boolean AND m.team_id = @team_id AND m.scope = 'conversation' AND m.source_key = @source_key::text
       AND m.archived_at IS NULL AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @row_limit::int)
    UNION ALL
    (SELECT m.id, 0, false, true, false FROM memories m
     WHERE @thread_any::boolean AND m.team_id = @team_id AND m.channel_id = @channel_id::text AND m.scope IN ('channel', 'workspace')
       AND m.archived_at IS NULL AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @row_limit::int)
    UNION ALL
    (SELECT m.id, 0, false, false, false FROM memories m
     WHERE @reserve::int > 0 AND m.team_id = @team_id AND m.scope = 'personal' AND m.subject_id = @actor_id::text
       AND m.kind = 'preference' AND m.archived_at IS NULL AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @reserve::int)
    UNION ALL
    -- The asker's preferences that share a word with the query, for the
    -- reserved slots, however many shared memories match better: per
    -- word, the 16 of the asker's personal memories it weighs most in,
    -- from their partition's postings (not a scan of all of them).
    (SELECT DISTINCT m.id, 0::float8, false, false, true
     FROM terms
     CROSS JOIN LATERAL unnest(terms.t) AS q(term)
     CROSS JOIN LATERAL (
         SELECT mp.id FROM memory_postings mp
         WHERE mp.part = (SELECT s.id FROM memory_part_stats s
                          WHERE s.part = memory_part(@team_id::text, 'personal', 'user', @actor_id::text, '', '', '', ''))
           AND mp.term = q.term
         ORDER BY mp.impact DESC, mp.at DESC, mp.id DESC LIMIT 16
     ) p
     CROSS JOIN LATERAL (SELECT pm.* FROM memories pm WHERE pm.id = p.id) m
     WHERE @reserve::int > 0 AND m.team_id = @team_id AND m.scope = 'personal' AND m.subject_id = @actor_id::text
       AND m.kind = 'preference'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text))
), one AS (
    SELECT c.id, max(c.bm) AS bm, bool_or(c.matched) AS matched, bool_and(c.fill) AS fill, bool_or(c.word) AS word
    FROM cand c GROUP BY c.id
), ranked AS (
    -- Each candidate read by its key (LIMIT 1 keeps the subquery from
    -- being joined as a table, which the planner reads whole while the
    -- table is small: 3 ms at 10,000 memories).
    SELECT o.id, o.matched, o.word, m.kind, m.scope, m.subject_id, m.created_at,
           (CASE WHEN o.matched THEN o.bm ELSE 1 END
            * (1 + CASE
                   WHEN m.source_key = @source_key::text THEN 0.15
                   WHEN m.scope = 'personal' THEN CASE WHEN @about_actor::boolean THEN 0.2 ELSE 0.1 END
                   WHEN m.channel_id = @channel_id::text THEN 0.05
                   ELSE 0 END
               + 0.02 / (1 + date_part('epoch', now() - m.created_at) / 2592000))
            - CASE WHEN o.matched THEN 0 WHEN o.word THEN 1.25 WHEN o.fill THEN 4 ELSE 2 END)::float8 AS score
    FROM one o CROSS JOIN LATERAL (SELECT om.* FROM memories om WHERE om.id = o.id LIMIT 1) m
), prefs AS (
    SELECT r.id, row_number() OVER (ORDER BY (r.matched OR r.word) DESC, r.score DESC, r.created_at DESC) AS n
    FROM ranked r
    WHERE r.kind = 'preference' AND r.scope = 'personal' AND r.subject_id = @actor_id::text
), top AS (
    SELECT r.id, r.score, r.matched, coalesce(p.n <= @reserve::int, false)::boolean AS reserved
    FROM ranked r LEFT JOIN prefs p ON p.id = r.id
    WHERE r.matched OR @thread_any::boolean OR p.n <= @reserve::int
    ORDER BY reserved DESC, r.score DESC, r.created_at DESC
    LIMIT @row_limit::int
)
SELECT sqlc.embed(r), top.score, top.matched, top.reserved
FROM top JOIN memory_rows r ON r.id = top.id
ORDER BY top.reserved DESC, top.score DESC, r.created_at DESC;

-- name: MemoryRecent :many
-- Memories actor_id may see in one place, closest and newest first: each
-- partition the asker can see read newest first from its index and cut at
-- max_results, then ranked by closeness of scope and recency.
WITH cand AS (
    (SELECT m.id, m.created_at, 0.3 AS closeness FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'personal' AND m.subject_id = @actor_id::text AND m.archived_at IS NULL
       AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @max_results::int)
    UNION ALL
    (SELECT m.id, m.created_at, 0.4 FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'conversation' AND m.source_key = @source_key::text AND m.archived_at IS NULL
       AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @max_results::int)
    UNION ALL
    (SELECT m.id, m.created_at, 0.2 FROM memories m
     WHERE m.team_id = @team_id AND m.channel_id = @channel_id::text AND m.scope IN ('channel', 'workspace') AND m.archived_at IS NULL
       AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @max_results::int)
    UNION ALL
    (SELECT m.id, m.created_at, 0.1 FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'workspace' AND m.visibility = 'public' AND m.sensitive = '' AND m.archived_at IS NULL
       AND m.channel_id <> @channel_id::text AND m.created_at > '-infinity'
       AND memory_visible(m, @team_id::text, @actor_id::text, @channel_id::text, @source_key::text, @private_viewer::boolean, @apply::boolean, @only_scope::text)
     ORDER BY m.created_at DESC LIMIT @max_results::int)
), top AS (
    SELECT c.id, (c.closeness + 0.2 / (1 + date_part('epoch', now() - c.created_at) / 2592000))::float8 AS score
    FROM cand c
    ORDER BY score DESC, c.created_at DESC
    LIMIT @max_results
)
SELECT sqlc.embed(r), top.score
FROM top JOIN memory_rows r ON r.id = top.id
ORDER BY top.score DESC, r.created_at DESC;

-- name: MemoryEmbeddings :many
-- The stored embeddings of some memories (null when not computed yet).
SELECT id, embedding FROM memories WHERE id = ANY(@ids::uuid[]);

-- name: MemorySetEmbedding :batchexec
-- An embedding as real[], on a server without pgvector (the reranker's),
-- with its model and dimension.
WITH done AS (DELETE FROM memory_embed_queue WHERE memory_embed_queue.id = @id)
UPDATE memories SET embedding = @embedding::real[], embedding_model = @model::text, embedding_dim = @dim::int
WHERE memories.id = @id;

-- name: MemoryListForAdmin :many
-- Memories for operators and admin views, newest first. A query matches
-- the text, or fuzzily (word_similarity above the transaction's
-- pg_trgm.word_similarity_threshold, through the trigram index). A page
-- starts after the memory (after_created_at, after_id), in that order.
-- Without @include_archived, a memory past its expiry is gone, as it is
-- to memory_visible, before the sweep archives it.
SELECT * FROM memories
WHERE (sqlc.narg(team_id)::text IS NULL OR team_id = sqlc.narg(team_id))
  AND (sqlc.narg(subject_id)::text IS NULL OR (scope = 'personal' AND subject_id = sqlc.narg(subject_id)))
  AND (sqlc.narg(channel_id)::text IS NULL OR channel_id = sqlc.narg(channel_id))
  AND (sqlc.narg(source_key)::text IS NULL OR source_key = sqlc.narg(source_key))
  AND (@include_archived::boolean OR archived_at IS NULL)
  AND (@include_archived::boolean OR expires_at IS NULL OR expires_at > now())
  AND (sqlc.narg(after_created_at)::timestamptz IS NULL OR created_at < sqlc.narg(after_created_at)
       OR (created_at = sqlc.narg(after_created_at) AND id > sqlc.narg(after_id)::uuid))
  AND (@query::text = '' OR search @@ websearch_to_tsquery('english', @query::text)
       OR @query::text <% content)
ORDER BY created_at DESC, id
LIMIT @max_results OFFSET @skip;

-- name: MemoryArchiveExpired :execrows
-- Archives memories past their expiry, each with its history event.
WITH archived AS (
    UPDATE memories
    SET archived_at = now(), archived_reason = 'expired', archived_by = 'system:expiry'
    WHERE archived_at IS NULL AND expires_at IS NOT NULL AND expires_at <= now()
    RETURNING id, team_id
)
INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason)
SELECT a.id, a.team_id, 'archive', 'system:expiry', 'system', 'expired' FROM archived a;

-- name: MemoryEventInsert :exec
INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason, related_id)
VALUES (@memory_id, @team_id, @action, @actor_id, @path, @reason, sqlc.narg(related_id));

-- name: MemoryEventsByMemory :many
-- A memory's history, oldest first.
SELECT * FROM memory_events WHERE memory_id = @memory_id ORDER BY id;

-- name: MemoryListBySubject :many
-- A person's personal memories, or the shared memories they wrote
-- (@authored), newest first: the App Home and self-service export.
-- Without @include_archived, a memory past its expiry is gone, as it is
-- to memory_visible (and to MemoryCountPersonal, the Home's count),
-- before the sweep archives it.
SELECT * FROM memories
WHERE team_id = @team_id
  AND ((NOT @authored::boolean AND scope = 'personal' AND subject_id = @user_id)
       OR (@authored::boolean AND scope <> 'personal' AND actor_id = @user_id))
  AND (@include_archived::boolean OR archived_at IS NULL)
  AND (@include_archived::boolean OR expires_at IS NULL OR expires_at > now())
ORDER BY created_at DESC, id
LIMIT @max_results OFFSET @skip;

-- name: MemoryCountPersonal :one
SELECT count(*) FROM memories
WHERE team_id = @team_id AND scope = 'personal' AND subject_id = @subject_id AND archived_at IS NULL
  AND (expires_at IS NULL OR expires_at > now());

-- name: MemorySubjectLock :exec
-- Serializes writers of one subject for the rest of the transaction, so two
-- concurrent identical writes can't both miss each other's row.
SELECT pg_advisory_xact_lock(hashtext(@lock_key::text));

-- name: MemoryHoldErasure :exec
-- Holds off, for the rest of the transaction, the erasures that would
-- delete what a memory write writes: that of each team it is said in or
-- stored under, and of each person it is by or about. EraseHoldTeam and
-- EraseHoldPerson take the same locks, exclusively. So the write commits
-- wholly before an erasure, which then sees and deletes it, or wholly
-- after one (which then took its record, MemoryWriteEnd, and a turn's what
-- it came from, MemoryTurnSourceKept). A person's is keyed by their user
-- id alone, not by a team: a Grid member has one id in every workspace of
-- the organisation, and their erasure in one of them deletes the
-- organisation's memories of theirs written from any other. Taken in one
-- statement, in order: the teams', then the people's, each as the arrays
-- have them (Memories.HoldErasure sorts them). Locks of two keys: apart
-- from the subject locks, which take one.
SELECT count(pg_advisory_xact_lock_shared(l.kind, hashtext(l.key))) FROM (
    SELECT hashtext('erasure team') AS kind, t.key FROM unnest(@teams::text[]) AS t(key)
    UNION ALL
    SELECT hashtext('erasure person'), p.key FROM unnest(@people::text[]) AS p(key)
) l;

-- name: MemoryWriteBegin :one
-- Records a memory write under way, before its review: an erasure of its
-- person or of its team deletes the record (EraseMemoryWrites,
-- EraseTeamMemoryWrites) when it would delete what the write is to store.
-- Under the erasure locks MemoryHoldErasure takes, so an erasure commits
-- wholly before the record or takes its lock after it: the teams' tried
-- first (no row while a team's erasure runs, which may last minutes and
-- could miss a record inserted after its delete of them: the write is
-- refused, ErrErasing), then the people's, waited for. It first deletes
-- the records a process that died mid-write left, older than any write
-- lasts, skipping any another statement holds (nothing waits here): every
-- team's past their time, as retention deletes, none read for anyone.
WITH teams AS (
    SELECT bool_and(pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(t.key))) AS held
    FROM unnest(@teams::text[]) AS t(key)
), held AS (
    SELECT count(pg_advisory_xact_lock_shared(hashtext('erasure person'), hashtext(p.key))) AS n
    FROM unnest(@people::text[]) AS p(key), teams
    WHERE teams.held
), pruned AS (
    DELETE FROM memory_writes
    WHERE id IN (
        SELECT w.id FROM memory_writes w
        WHERE w.began_at < now() - make_interval(secs => @left_after_secs::float8)
        ORDER BY w.began_at
        LIMIT 100
        FOR UPDATE SKIP LOCKED
    )
)
INSERT INTO memory_writes (team_id, stored_team, author_id, subject_id)
SELECT @team_id, @stored_team, @author_id, @subject_id FROM held, teams
WHERE teams.held
RETURNING id;

-- name: MemoryWriteKept :one
-- Whether a write's record is still there: after MemoryHoldErasure, an
-- erasure that committed after the write began has deleted it.
SELECT EXISTS (SELECT 1 FROM memory_writes WHERE id = @id AND team_id = @team_id);

-- name: MemoryWriteEnd :execrows
-- A write ends, stored or not: its record goes. No row: an erasure took it
-- (after MemoryHoldErasure, one that committed after the write began).
DELETE FROM memory_writes WHERE id = @id AND team_id = @team_id;

-- name: MemoryTurnSourceKept :one
-- Whether a turn's write still has what it came from: its turn, and the
-- message of the turn's thread that led to it, said by the write's author.
-- A person's erasure deletes their DMs' turns and log and leaves their
-- messages elsewhere nobody's, so after it neither is found.
SELECT EXISTS (
    SELECT 1 FROM turns t
    JOIN session_messages s ON s.source_key = t.source_key
    WHERE t.id = @turn_id AND t.team_id = @team_id::text
      AND s.ts = @message_ts::text AND s.actor_id = @actor_id::text
) AS kept;

-- name: MemoryEmbedPending :many
-- Memories the background embedding job has to embed (memory_embed_queue,
-- which holds active memories only), newest first: what was just said is
-- searchable by meaning soonest.
SELECT m.id, m.content, m.cues
FROM memory_embed_queue q JOIN memories m ON m.id = q.id
WHERE m.archived_at IS NULL
ORDER BY q.created_at DESC
LIMIT @max_rows;

-- name: MemoryEmbedQueueLength :one
SELECT count(*) FROM memory_embed_queue;

-- name: MemoryEmbedRequeueOtherModels :execrows
-- Without pgvector: queues the active memories whose real[] embedding is
-- missing or of another model than @model (the job does it once as it
-- starts, so that changing MNEMO_EMBEDDING_MODEL re-embeds every memory).
INSERT INTO memory_embed_queue (id, created_at)
SELECT m.id, m.created_at FROM memories m
WHERE m.archived_at IS NULL AND m.embedding_model IS DISTINCT FROM @model::text
ON CONFLICT (id) DO NOTHING;

-- name: MemoryEmbeddingStatus :one
-- How far the background job is: active memories, and those embedded by
-- @model.
SELECT count(*) AS active,
       count(*) FILTER (WHERE embedding_model = @model::text) AS embedded
FROM memories
WHERE archived_at IS NULL;

-- name: MemoryEmbeddingModels :many
-- The models active memories are embedded by, with how many each.
SELECT embedding_model::text AS model, embedding_dim::int AS dim, count(*) AS memories
FROM memories
WHERE archived_at IS NULL AND embedding_model IS NOT NULL
GROUP BY 1, 2
ORDER BY 3 DESC;
