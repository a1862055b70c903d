-- name: MemoryInsert :one
-- Stores a memory and, in the same statement, its words for the typo
-- correction of short queries (MemoryWordFixes): visible to the next search
-- at once, like the row.
WITH ins AS (
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
), words AS (
    INSERT INTO memory_words (team_id, word)
    SELECT DISTINCT ins.team_id, w
    FROM ins, regexp_split_to_table(lower(ins.content || ' ' || ins.cues), '[^[:alnum:]]+') AS w
    WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
    ON CONFLICT DO NOTHING
)
SELECT * FROM ins;

-- name: MemoryGetByID :one
SELECT * FROM memories WHERE id = @id;

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
-- memory of a large subject.
WITH cand AS (
    SELECT DISTINCT ON (id) id, all_words FROM (
    (SELECT m.id, true AS all_words FROM memories m
     WHERE m.team_id = @team_id AND m.scope = @scope AND m.subject_id = @subject_id AND m.archived_at IS NULL
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

-- name: MemorySearch :many
-- Memories the actor may see in one place that match a query, best first.
--
-- The WHERE clauses mirror memory.Visible, the one visibility rule, as one
-- branch per scope (memory's tests check that the two agree): the asker's
-- personal memories, this thread's, this channel's (channel and workspace
-- scope), and public workspace memories said elsewhere. private_viewer is
-- set when only the actor will see the answer, apply when the memories
-- shape the bot's answer rather than being shown.
--
-- Cost grows with the matches read, not with the rows visible. The query's
-- words (in words) are split into common lexemes (common, from the
-- planner's statistics: see db.Memories.Search) and rare ones. In the large
-- branches (this channel, the public workspace) a common lexeme is looked
-- for among the branch's newest scan memories, read from a B-tree that
-- carries the text vector (no table access), keeping the newest pool that
-- match; a rare one is looked up in a GIN index, up to pool matches. The
-- small branches (the asker's own memories, this thread's) are read newest
-- first from their B-trees. ts_match_vq is the @@ operator called as a
-- function, which no index can take: where it is used, the B-tree read is
-- meant. Every plan suits every query, so the statement is planned once
-- per connection (see db.recallSettings).
--
-- Only those candidates are ranked: text match (ts_rank: content A, cues
-- B), closeness of scope (this thread > the asker's own > this channel >
-- the workspace; the asker's own that match first when about_actor, a
-- question about themselves) and recency. With thread_any (auto-recall),
-- this thread's memories are candidates without a match, and this
-- channel's newest fill the slots the matches leave (ranked below them). Up to
-- reserve of the asker's own preferences are kept whatever their rank
-- (reserved), the most relevant first, then the newest.
WITH lex AS (
    SELECT DISTINCT l FROM unnest(tsvector_to_array(to_tsvector('english', @words::text))) AS l
), q AS (
    SELECT coalesce(string_agg(quote_literal(l), ' | '), '')::tsquery AS any_q,
           coalesce(string_agg(quote_literal(l), ' | ') FILTER (WHERE l = ANY(@common::text[])), '')::tsquery AS common_q,
           coalesce(string_agg(quote_literal(l), ' | ') FILTER (WHERE l <> ALL(@common::text[])), '')::tsquery AS rare_q
    FROM lex
), cand AS (
    (SELECT m.id, m.created_at, m.kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.3 END AS closeness, false AS fill
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'personal' AND m.subject_id = @actor_id::text AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND (m.channel_id = @channel_id::text
            OR (m.sensitive <> '' AND @private_viewer::boolean AND NOT @apply::boolean)
            OR (m.sensitive = '' AND (m.visibility = 'public' OR @private_viewer::boolean
                                      OR (@apply::boolean AND m.kind = 'preference'))))
       AND ts_match_vq(m.search, (SELECT q.any_q FROM q))
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @pool::int)
    UNION ALL
    (SELECT m.id, m.created_at, m.kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.3 END AS closeness, false AS fill
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'personal' AND m.subject_id = @actor_id::text AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND (m.channel_id = @channel_id::text
            OR (m.sensitive <> '' AND @private_viewer::boolean AND NOT @apply::boolean)
            OR (m.sensitive = '' AND (m.visibility = 'public' OR @private_viewer::boolean
                                      OR (@apply::boolean AND m.kind = 'preference'))))
       AND m.kind = 'preference'
       AND @reserve::int > 0
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @reserve::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, 0.4 AS closeness, false AS fill
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'conversation' AND m.source_key = @source_key::text AND m.archived_at IS NULL
       AND (m.subject_type <> 'user' OR m.subject_id = @actor_id::text)
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND (@thread_any::boolean OR ts_match_vq(m.search, (SELECT q.any_q FROM q)))
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @pool::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.2 END AS closeness, true AS fill
     FROM memories m
     WHERE m.team_id = @team_id AND m.channel_id = @channel_id::text AND m.scope IN ('channel', 'workspace') AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND @thread_any::boolean
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @row_limit::int)
    UNION ALL
    (SELECT x.* FROM (
         SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.2 END AS closeness, false AS fill
         FROM memories m
         WHERE m.team_id = @team_id AND m.channel_id = @channel_id::text AND m.scope IN ('channel', 'workspace') AND m.archived_at IS NULL
           AND (m.expires_at IS NULL OR m.expires_at > now())
           AND (SELECT numnode(q.common_q) FROM q) > 0
           AND m.created_at > '-infinity'
         ORDER BY m.created_at DESC LIMIT @scan::int
     ) x
     WHERE ts_match_vq(x.search, (SELECT q.common_q FROM q))
     LIMIT @pool::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.2 END AS closeness, false AS fill
     FROM memories m
     WHERE m.team_id = @team_id AND m.channel_id = @channel_id::text AND m.scope IN ('channel', 'workspace') AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND m.search @@ (SELECT q.rare_q FROM q)
     LIMIT @pool::int)
    UNION ALL
    (SELECT x.* FROM (
         SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.1 END AS closeness, false AS fill
         FROM memories m
         WHERE m.team_id = @team_id AND m.scope = 'workspace' AND m.visibility = 'public' AND m.sensitive = '' AND m.archived_at IS NULL
           AND m.channel_id <> @channel_id::text AND (m.expires_at IS NULL OR m.expires_at > now())
           AND (SELECT numnode(q.common_q) FROM q) > 0
           AND m.created_at > '-infinity'
         ORDER BY m.created_at DESC LIMIT @scan::int
     ) x
     WHERE ts_match_vq(x.search, (SELECT q.common_q FROM q))
     LIMIT @pool::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.1 END AS closeness, false AS fill
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'workspace' AND m.visibility = 'public' AND m.sensitive = '' AND m.archived_at IS NULL
       AND m.channel_id <> @channel_id::text AND (m.expires_at IS NULL OR m.expires_at > now())
       AND m.search @@ (SELECT q.rare_q FROM q)
     LIMIT @pool::int)
), scored AS (
    SELECT DISTINCT ON (c.id) c.id, c.created_at, c.kind, c.closeness, c.fill,
           c.search @@ q.any_q AS matched, ts_rank(c.search, q.any_q) AS rank
    FROM cand c, q
    ORDER BY c.id, c.fill
), ranked AS (
    SELECT s.id, s.matched, s.kind,
           (s.rank + s.closeness + 0.2 / (1 + date_part('epoch', now() - s.created_at) / 2592000)
            + CASE WHEN @about_actor::boolean AND s.kind <> '' AND s.matched THEN 0.2 ELSE 0 END
            - CASE WHEN s.fill AND NOT s.matched THEN 1 ELSE 0 END)::float8 AS score,
           row_number() OVER (PARTITION BY s.kind = 'preference' ORDER BY s.matched DESC, s.rank DESC, s.created_at DESC) AS pref_rank
    FROM scored s
), top AS (
    SELECT r.id, r.score, r.matched::boolean AS matched, (r.kind = 'preference' AND r.pref_rank <= @reserve::int)::boolean AS reserved
    FROM ranked r
    WHERE r.matched OR @thread_any::boolean OR (r.kind = 'preference' AND r.pref_rank <= @reserve::int)
    ORDER BY reserved DESC, r.score DESC
    LIMIT @row_limit::int
)
SELECT sqlc.embed(r), top.score, top.matched, top.reserved
FROM top JOIN memory_rows r ON r.id = top.id
ORDER BY top.reserved DESC, top.score DESC, r.created_at DESC;

-- name: MemoryCommonLexemes :many
-- The lexemes in more than min_freq of memories (see MemorySearch).
SELECT l::text FROM memory_common_lexemes(@min_freq::real) AS l;

-- name: MemoryRecent :many
-- Memories actor_id may see in one place, closest and newest first: the
-- same branches as MemorySearch, each read newest first from its index and
-- cut at max_results, then ranked by closeness of scope and recency.
WITH cand AS (
    (SELECT m.id, m.created_at, m.kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.3 END AS closeness
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'personal' AND m.subject_id = @actor_id::text AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND (m.channel_id = @channel_id::text
            OR (m.sensitive <> '' AND @private_viewer::boolean AND NOT @apply::boolean)
            OR (m.sensitive = '' AND (m.visibility = 'public' OR @private_viewer::boolean
                                      OR (@apply::boolean AND m.kind = 'preference'))))
       AND true
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @max_results::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, 0.4 AS closeness
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'conversation' AND m.source_key = @source_key::text AND m.archived_at IS NULL
       AND (m.subject_type <> 'user' OR m.subject_id = @actor_id::text)
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND true
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @max_results::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.2 END AS closeness
     FROM memories m
     WHERE m.team_id = @team_id AND m.channel_id = @channel_id::text AND m.scope IN ('channel', 'workspace') AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND true
       AND m.created_at > '-infinity'
     ORDER BY m.created_at DESC LIMIT @max_results::int)
    UNION ALL
    (SELECT m.id, m.created_at, ''::text AS kind, m.search, CASE WHEN m.source_key = @source_key::text THEN 0.4 ELSE 0.1 END AS closeness
     FROM memories m
     WHERE m.team_id = @team_id AND m.scope = 'workspace' AND m.visibility = 'public' AND m.sensitive = '' AND m.archived_at IS NULL
       AND m.channel_id <> @channel_id::text AND (m.expires_at IS NULL OR m.expires_at > now())
       AND true
       AND m.created_at > '-infinity'
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

-- name: MemoryWordFixes :many
-- For each of words the workspace has never used, the nearest words it has
-- used (pg_trgm similarity, through the trigram index): the typo
-- correction of short queries.
SELECT q.word::text AS typo, f.word AS fix
FROM unnest(@words::text[]) AS q(word)
CROSS JOIN LATERAL (
    SELECT d.word FROM memory_words d
    WHERE d.team_id = @team_id AND d.word % q.word
    ORDER BY similarity(d.word, q.word) DESC, d.word
    LIMIT 2
) f
WHERE NOT EXISTS (SELECT 1 FROM memory_words k WHERE k.team_id = @team_id AND k.word = q.word);

-- name: MemoryEmbeddings :many
-- The stored embeddings of some memories (null when not computed yet).
SELECT id, embedding FROM memories WHERE id = ANY(@ids::uuid[]);

-- name: MemorySetEmbedding :batchexec
UPDATE memories SET embedding = @embedding::real[] WHERE id = @id;

-- name: MemoryListForAdmin :many
-- Memories for operators and admin views, newest first. A query matches
-- the text, or fuzzily (word_similarity above the transaction's
-- pg_trgm.word_similarity_threshold, through the trigram index).
SELECT * FROM memories
WHERE (sqlc.narg(team_id)::text IS NULL OR team_id = sqlc.narg(team_id))
  AND (sqlc.narg(subject_id)::text IS NULL OR (scope = 'personal' AND subject_id = sqlc.narg(subject_id)))
  AND (sqlc.narg(channel_id)::text IS NULL OR channel_id = sqlc.narg(channel_id))
  AND (sqlc.narg(source_key)::text IS NULL OR source_key = sqlc.narg(source_key))
  AND (@include_archived::boolean OR archived_at IS NULL)
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

-- name: MemoryArchivePersonal :execrows
-- Archives every active personal memory of one person (a data-removal
-- request), each with its history event.
WITH archived AS (
    UPDATE memories m
    SET archived_at = now(), archived_reason = @reason::text, archived_by = @archived_by::text
    WHERE m.team_id = @team_id::text AND m.scope = 'personal' AND m.subject_id = @subject_id::text AND m.archived_at IS NULL
    RETURNING m.id, m.team_id
)
INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason)
SELECT a.id, a.team_id, 'purge', @archived_by::text, @path::text, @reason::text FROM archived a;

-- name: MemoryEventInsert :exec
INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason, related_id)
VALUES (@memory_id, @team_id, @action, @actor_id, @path, @reason, sqlc.narg(related_id));

-- name: MemoryEventsByMemory :many
-- A memory's history, oldest first.
SELECT * FROM memory_events WHERE memory_id = @memory_id ORDER BY id;

-- name: MemoryListBySubject :many
-- A person's personal memories, or the shared memories they wrote
-- (@authored), newest first: the App Home and self-service export.
SELECT * FROM memories
WHERE team_id = @team_id
  AND ((NOT @authored::boolean AND scope = 'personal' AND subject_id = @user_id)
       OR (@authored::boolean AND scope <> 'personal' AND actor_id = @user_id))
  AND (@include_archived::boolean OR archived_at IS NULL)
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
