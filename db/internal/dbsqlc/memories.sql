-- name: MemoryInsert :one
INSERT INTO memories (
    team_id, scope, subject_type, subject_id, kind, content, normalized,
    source_key, channel_id, visibility, actor_id, actor_name, written_by, message_ts,
    observed_at, expires_at, idempotency_key, sensitive
) VALUES (
    @team_id, @scope, @subject_type, @subject_id, @kind, @content, @normalized,
    @source_key, @channel_id, @visibility, @actor_id, @actor_name, @written_by, @message_ts,
    @observed_at, sqlc.narg(expires_at), @idempotency_key, @sensitive
)
ON CONFLICT (idempotency_key) WHERE archived_at IS NULL DO NOTHING
RETURNING *;

-- name: MemoryGetByID :one
SELECT * FROM memories WHERE id = @id;

-- name: MemoryListByIDPrefix :many
SELECT * FROM memories
WHERE team_id = @team_id AND id::text LIKE @prefix::text || '%'
ORDER BY created_at DESC
LIMIT 10;

-- name: MemoryFindSimilar :many
-- Active memories of one scope and subject whose content is the same once
-- normalized, or lexically close: candidates for dedup and supersession.
SELECT sqlc.embed(m), similarity(m.normalized, @normalized::text)::float8 AS sim
FROM memories m
WHERE m.team_id = @team_id AND m.scope = @scope AND m.subject_type = @subject_type
  AND m.subject_id = @subject_id AND m.archived_at IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > now())
  AND (m.normalized = @normalized::text
       OR similarity(m.normalized, @normalized::text) > @min_similarity::float8
       OR m.search @@ plainto_tsquery('english', @normalized::text))
ORDER BY (m.normalized = @normalized::text) DESC, sim DESC
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
-- Memories @actor_id may see in one place, ranked by text match, closeness
-- of scope and recency. The WHERE clause mirrors memory.Visible, the one
-- visibility rule (memory's tests check that the two agree); @private_viewer
-- is set when only the actor will see the answer, @apply when the memories
-- shape the bot's answer rather than being shown. Full-text search always
-- counts; trigram word similarity only for short queries (@fuzzy).
SELECT sqlc.embed(m), (
    CASE WHEN @query::text = '' THEN 0
         ELSE ts_rank(m.search, websearch_to_tsquery('english', @query::text)) * 2
              + CASE WHEN @fuzzy::boolean THEN word_similarity(@query::text, m.content) ELSE 0 END END
    + CASE WHEN m.source_key = @source_key::text THEN 0.4
           WHEN m.channel_id = @channel_id::text AND m.scope <> 'personal' THEN 0.3
           WHEN m.scope = 'personal' THEN 0.2
           ELSE 0.1 END
    + 0.2 / (1 + extract(epoch FROM now() - m.observed_at) / 2592000)
)::float8 AS score
FROM memories m
WHERE m.team_id = @team_id
  AND m.archived_at IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > now())
  AND (
        (m.scope = 'personal' AND m.subject_id = @actor_id::text
            AND (m.channel_id = @channel_id::text
                 OR (m.sensitive <> '' AND @private_viewer::boolean AND NOT @apply::boolean)
                 OR (m.sensitive = '' AND (m.visibility = 'public' OR @private_viewer::boolean
                                           OR (@apply::boolean AND m.kind = 'preference')))))
     OR (m.scope = 'conversation' AND m.source_key = @source_key::text
         AND (m.subject_type <> 'user' OR m.subject_id = @actor_id::text))
     OR (m.scope = 'channel' AND m.channel_id = @channel_id::text)
     OR (m.scope = 'workspace' AND (m.channel_id = @channel_id::text OR (m.sensitive = '' AND m.visibility = 'public')))
  )
  AND (NOT @require_match::boolean OR @query::text = ''
       OR m.search @@ websearch_to_tsquery('english', @query::text)
       OR (@fuzzy::boolean AND word_similarity(@query::text, m.content) > 0.3))
ORDER BY score DESC, m.created_at DESC
LIMIT @max_results;

-- name: MemoryListForAdmin :many
-- Memories for operators and admin views, newest first.
SELECT * FROM memories
WHERE (sqlc.narg(team_id)::text IS NULL OR team_id = sqlc.narg(team_id))
  AND (sqlc.narg(subject_id)::text IS NULL OR (scope = 'personal' AND subject_id = sqlc.narg(subject_id)))
  AND (sqlc.narg(channel_id)::text IS NULL OR channel_id = sqlc.narg(channel_id))
  AND (sqlc.narg(source_key)::text IS NULL OR source_key = sqlc.narg(source_key))
  AND (@include_archived::boolean OR archived_at IS NULL)
  AND (@query::text = '' OR search @@ websearch_to_tsquery('english', @query::text)
       OR word_similarity(@query::text, content) > 0.3)
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
