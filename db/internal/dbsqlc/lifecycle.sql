-- Data's lifecycle: retention (what is past its time, deleted in batches,
-- oldest first, each batch read from an index) and erasure (everything of
-- one person). See docs/lifecycle.md.

-- name: RetentionSessionMessages :execrows
DELETE FROM session_messages
WHERE id IN (
    SELECT s.id FROM session_messages s
    WHERE s.created_at < @before
    ORDER BY s.created_at
    LIMIT @max_rows::int
);

-- name: RetentionTurns :execrows
-- A turn's learning record and feedback go with it (ON DELETE CASCADE).
DELETE FROM turns
WHERE id IN (
    SELECT t.id FROM turns t
    WHERE t.created_at < @before
    ORDER BY t.created_at
    LIMIT @max_rows::int
);

-- name: RetentionMemories :execrows
-- Forgotten, superseded, expired and archived memories, with their history
-- (memory_events, ON DELETE CASCADE).
DELETE FROM memories
WHERE id IN (
    SELECT m.id FROM memories m
    WHERE m.archived_at < @before::timestamptz
    ORDER BY m.archived_at
    LIMIT @max_rows::int
);

-- name: RetentionJobs :execrows
-- River's finished jobs (a post's job keeps its text in args).
DELETE FROM river_job
WHERE id IN (
    SELECT j.id FROM river_job j
    WHERE j.state IN ('completed', 'cancelled', 'discarded') AND j.finalized_at < @before::timestamptz
    LIMIT @max_rows::int
);

-- name: EraseMemoriesAbout :execrows
-- Every memory whose subject is the person, in every scope and state, and
-- every memory they wrote in their DM with mnemo; their history goes with
-- them.
DELETE FROM memories m
WHERE m.team_id = @team_id AND ((m.subject_type = 'user' AND m.subject_id = @user_id::text) OR (m.actor_id = @user_id::text AND m.visibility = 'dm'));

-- name: EraseArchiveAuthored :execrows
-- The shared memories the person wrote, about others, archived (and deleted
-- with the other archived memories when their retention ends), each with
-- its history event.
WITH archived AS (
    UPDATE memories m
    SET archived_at = now(), archived_reason = 'its author was erased', archived_by = ''
    WHERE m.team_id = @team_id AND m.actor_id = @user_id::text AND m.scope <> 'personal' AND m.archived_at IS NULL
    RETURNING m.id, m.team_id
)
INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason)
SELECT a.id, a.team_id, 'archive', @erased_by::text, 'admin', 'its author was erased' FROM archived a;

-- name: EraseAttributeAuthored :execrows
-- What the person wrote and did to the memories that stay is attributed to
-- nobody: the memory reads "a former member" as its author.
UPDATE memories m
SET actor_id = CASE WHEN m.actor_id = @user_id::text THEN '' ELSE m.actor_id END,
    actor_name = CASE WHEN m.actor_id = @user_id::text THEN 'a former member' ELSE m.actor_name END,
    archived_by = CASE WHEN m.archived_by = @user_id::text THEN '' ELSE m.archived_by END
WHERE m.team_id = @team_id AND (m.actor_id = @user_id::text OR m.archived_by = @user_id::text);

-- name: EraseMemoryEventsBy :execrows
-- The person's changes to memories that stay: no actor, no reason (a
-- forget reason is their words).
UPDATE memory_events e SET actor_id = '', reason = ''
WHERE e.team_id = @team_id AND e.actor_id = @user_id::text;

-- name: EraseSessionMessages :execrows
-- The person's messages in the log, and mnemo's answers to them (which
-- quote them), replaced by a tombstone.
UPDATE session_messages s
SET text = @tombstone::text, tools = '', actor_id = CASE WHEN s.actor_id = @user_id::text THEN '' ELSE s.actor_id END
WHERE s.team_id = @team_id
  AND (s.actor_id = @user_id::text
       OR (s.role = 'assistant'
           AND s.turn_id IN (SELECT t.id FROM turns t WHERE t.team_id = @team_id AND t.actor_id = @user_id::text)));

-- name: EraseTurns :execrows
-- The person's turns: the answer kept for a retry is a tombstone, the asker
-- nobody.
UPDATE turns t
SET actor_id = '', pending_text = CASE WHEN t.pending_text IS NULL THEN NULL ELSE @tombstone::text END
WHERE t.team_id = @team_id AND t.actor_id = @user_id::text;

-- name: EraseFeedback :execrows
DELETE FROM turn_feedback f
WHERE f.user_id = @user_id::text
  AND f.turn_id IN (SELECT t.id FROM turns t WHERE t.team_id = @team_id);

-- name: EraseUserSettings :execrows
DELETE FROM user_settings WHERE team_id = @team_id AND user_id = @user_id::text;

-- name: EraseChannelSettings :execrows
UPDATE channel_settings SET updated_by = '' WHERE team_id = @team_id AND updated_by = @user_id::text;

-- name: EraseInboxArrivals :execrows
-- The person's posts in the inbox, moved or waiting: a waiting post of
-- theirs is never answered.
DELETE FROM inbox_arrivals a
WHERE a.team = @team_id AND a.args @> jsonb_build_object('user', @user_id::text);

-- name: EraseJobs :execrows
-- The jobs of the person's posts that are not running (River's own
-- JobDelete refuses a running one).
DELETE FROM river_job j
WHERE j.args @> jsonb_build_object('team', @team_id::text, 'user', @user_id::text) AND j.state <> 'running';

-- name: EraseRunningJobs :execrows
-- A running job of theirs keeps its row until it ends; its text is a
-- tombstone.
UPDATE river_job j
SET args = j.args || jsonb_build_object('user', '', 'text', @tombstone::text)
WHERE j.args @> jsonb_build_object('team', @team_id::text, 'user', @user_id::text) AND j.state = 'running';

-- name: EraseAudit :execrows
-- The admin record: the person as actor or target is nobody, and the
-- detail of an action on a memory erasure deleted is a tombstone.
UPDATE admin_audit a
SET actor_id = CASE WHEN a.actor_id = @user_id::text THEN '' ELSE a.actor_id END,
    target = CASE WHEN a.target = @user_id::text THEN '' ELSE a.target END,
    detail = CASE WHEN a.target = ANY(@memory_ids::text[]) OR a.detail LIKE '%' || @user_id::text || '%' THEN @tombstone::text ELSE a.detail END
WHERE a.team_id = @team_id
  AND (a.actor_id = @user_id::text OR a.target = @user_id::text OR a.target = ANY(@memory_ids::text[])
       OR a.detail LIKE '%' || @user_id::text || '%');

-- name: EraseMemoryIDsAbout :many
SELECT m.id::text FROM memories m
WHERE m.team_id = @team_id AND ((m.subject_type = 'user' AND m.subject_id = @user_id::text) OR (m.actor_id = @user_id::text AND m.visibility = 'dm'));

-- name: EraseCountEventsAbout :one
SELECT count(*) FROM memory_events e
WHERE e.memory_id IN (SELECT m.id FROM memories m
                      WHERE m.team_id = @team_id AND ((m.subject_type = 'user' AND m.subject_id = @user_id::text) OR (m.actor_id = @user_id::text AND m.visibility = 'dm')));

-- Erasure of a whole team (an uninstalled workspace, or `mnemo teams
-- erase`): every row that holds its data is deleted.

-- name: EraseTeamMemories :execrows
-- Their history goes with them (ON DELETE CASCADE), and the recall index's
-- triggers take their words out.
DELETE FROM memories m WHERE m.team_id = @team_id;

-- name: EraseTeamMemoryEvents :execrows
-- History rows left by memories of the team that are gone already.
DELETE FROM memory_events e WHERE e.team_id = @team_id;

-- name: EraseTeamSessionMessages :execrows
DELETE FROM session_messages s WHERE s.team_id = @team_id;

-- name: EraseTeamTurns :execrows
-- Their learning records and feedback go with them (ON DELETE CASCADE).
DELETE FROM turns t WHERE t.team_id = @team_id;

-- name: EraseTeamUsage :execrows
-- The team's model usage (tokens per model call). Its turns' rows go with
-- the turns too (ON DELETE CASCADE); this also takes any left behind.
DELETE FROM model_usage u WHERE u.team_id = @team_id;

-- name: EraseTeamChannelSettings :execrows
DELETE FROM channel_settings c WHERE c.team_id = @team_id;

-- name: EraseTeamUserSettings :execrows
DELETE FROM user_settings u WHERE u.team_id = @team_id;

-- name: EraseTeamInboxArrivals :execrows
DELETE FROM inbox_arrivals a WHERE a.team = @team_id;

-- name: EraseTeamJobs :execrows
-- Running jobs too: their turn finds nothing to answer with, and the
-- installation that would answer is gone.
DELETE FROM river_job j WHERE j.args @> jsonb_build_object('team', @team_id::text);

-- name: EraseTeamLeases :execrows
-- Thread leases and waiters are keyed by source key, slack:<team>:….
WITH w AS (
    DELETE FROM thread_waiters tw WHERE tw.source_key LIKE 'slack:' || @team_id::text || ':%'
)
DELETE FROM thread_leases tl WHERE tl.source_key LIKE 'slack:' || @team_id::text || ':%';

-- name: EraseTeamAudit :execrows
DELETE FROM admin_audit a WHERE a.team_id = @team_id;

-- name: EraseTeamInstallations :execrows
DELETE FROM installations i WHERE i.team_id = @team_id;
