-- Queries the eval runner uses to check what a scenario left behind.

-- name: EvalTurnsUnsettled :one
-- Turns still running, or done but not yet through passive learning.
SELECT count(*) FROM turns t
WHERE t.status = 'running'
   OR (t.status = 'done' AND NOT EXISTS (SELECT 1 FROM turn_learning l WHERE l.turn_id = t.id));

-- name: EvalMemoriesInThread :many
-- The ids of one thread's memories of a scope and subject type, active or
-- archived, oldest first.
SELECT id FROM memories
WHERE source_key = @source_key AND scope = @scope AND subject_type = @subject_type
  AND (@subject_id::text = '' OR subject_id = @subject_id::text)
  AND (archived_at IS NOT NULL) = @archived::boolean
ORDER BY created_at;

-- name: EvalThreadRows :one
-- The positive control: how many of the given messages the session log holds
-- under this sourceKey, and how many memories the thread has in any state.
SELECT
    (SELECT count(*) FROM session_messages s WHERE s.source_key = @source_key AND s.ts = ANY(@message_ts::text[]))::bigint AS messages,
    (SELECT count(*) FROM memories m WHERE m.source_key = @source_key)::bigint AS memories;
