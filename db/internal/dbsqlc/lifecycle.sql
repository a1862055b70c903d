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

-- name: RetentionErasedMemories :execrows
-- The ids of erased memories, kept as long as an archived memory would
-- have been.
DELETE FROM erased_memories
WHERE (team_id, id) IN (
    SELECT e.team_id, e.id FROM erased_memories e
    WHERE e.erased_at < @before::timestamptz
    ORDER BY e.erased_at
    LIMIT @max_rows::int
);

-- name: EraseHoldPerson :exec
-- Erasure's first statement: it waits for the memory writes by or about the
-- person under way (MemoryHoldErasure), in whichever workspace, and sees
-- what they wrote; those that come after wait for it to commit (and then
-- find their record, or their turn, gone).
SELECT pg_advisory_xact_lock(hashtext('erasure person'), hashtext(@user_id::text));

-- name: EraseMemoryWrites :execrows
-- The records of the memory writes by or about the person that began
-- before the erasure and would be stored where it deletes: said in one of
-- its teams, or stored under one (the team's, its organisation's). Such a
-- write then stores nothing (MemoryWriteEnd, MemoryWriteKept).
DELETE FROM memory_writes
WHERE (author_id = @user_id::text OR subject_id = @user_id::text)
  AND (team_id = ANY(@teams::text[]) OR stored_team = ANY(@teams::text[]));

-- name: EraseHoldTeam :exec
-- A workspace's erasure's first statement, as EraseHoldPerson is a
-- person's: it waits for the memory writes said in the team or stored
-- under it under way (MemoryHoldErasure) and sees what they wrote; those that
-- come after wait for it to commit (a turn's then finds its turn gone).
SELECT pg_advisory_xact_lock(hashtext('erasure team'), hashtext(@team_id::text));

-- name: EraseDMChannels :many
-- The person's DMs with mnemo: a D… channel is one person's with the bot,
-- so everything in one is theirs. Found from their turns, memories, log
-- messages, and posts waiting in the inbox or the job queue.
SELECT t.channel_id::text FROM turns t
WHERE t.team_id = @team_id AND t.actor_id = @user_id::text AND t.visibility = 'dm'
UNION
SELECT m.channel_id FROM memories m
WHERE m.team_id = @team_id AND m.actor_id = @user_id::text AND m.visibility = 'dm'
UNION
SELECT s.channel_id FROM session_messages s
WHERE s.team_id = @team_id AND s.actor_id = @user_id::text AND s.channel_id LIKE 'D%'
UNION
SELECT a.channel FROM inbox_arrivals a
WHERE a.team = @team_id AND a.args @> jsonb_build_object('user', @user_id::text) AND a.channel LIKE 'D%'
UNION
SELECT j.args->>'channel' FROM river_job j
WHERE j.args @> jsonb_build_object('team', @team_id::text, 'user', @user_id::text) AND j.args->>'channel' LIKE 'D%';

-- name: EraseTurnIDs :many
-- The person's turns: those they asked, and every turn in their DMs.
SELECT t.id FROM turns t
WHERE t.team_id = @team_id AND (t.actor_id = @user_id::text OR t.channel_id = ANY(@dm_channels::text[]));

-- name: EraseDoomedMemories :many
-- The memories erasure deletes, with their text (other people's answers
-- that quote one lose the quote): every memory whose subject is the
-- person, in every scope and state; every memory of their DMs; and the
-- shared memories they wrote, archived ones always, active ones unless
-- they are kept (@keep_shared).
SELECT m.id, m.content FROM memories m
WHERE m.team_id = @team_id
  AND ((m.subject_type = 'user' AND m.subject_id = @user_id::text)
       OR m.channel_id = ANY(@dm_channels::text[])
       OR (m.actor_id = @user_id::text AND m.visibility = 'dm')
       OR (m.actor_id = @user_id::text AND m.scope <> 'personal' AND (m.archived_at IS NOT NULL OR NOT @keep_shared::boolean)));

-- name: EraseGuestMemories :many
-- An external member's memories that another workspace's conversations
-- stored under their own team (memory.HomeOf): those about them or
-- written by them whose source key is one of that workspace's
-- (@source_prefix, 'slack:<host>:'). Nothing else of their team's. With
-- their text: the host's answers that quote one lose the quote (a second
-- guest of their organisation in the same thread recalls their thread
-- memories, memory_visible).
SELECT m.id, m.content FROM memories m
WHERE m.team_id = @team_id
  AND ((m.subject_type = 'user' AND m.subject_id = @user_id::text) OR m.actor_id = @user_id::text)
  AND starts_with(m.source_key, @source_prefix::text);

-- name: EraseOrganisationOf :one
-- The organisation whose org-wide installation served the team, the last
-- it was served by (installation_teams), or '': its org-scope memories
-- (MNEMO_ORG_MEMORIES) are stored under the enterprise id, not the team's.
-- A workspace served by an installation of its own writes none, but may
-- have written some before it had one, so the record is what says.
SELECT COALESCE((SELECT t.enterprise_id FROM installation_teams t WHERE t.team_id = @team_id), '')::text;

-- name: EraseRecordErased :execrows
-- The ids of the memories erasure deletes, so that restore can say why
-- one is gone. Nothing else of them is kept.
INSERT INTO erased_memories (team_id, id)
SELECT @team_id::text, i FROM unnest(@memory_ids::uuid[]) AS i
ON CONFLICT DO NOTHING;

-- name: EraseCountEvents :one
SELECT count(*) FROM memory_events e WHERE e.team_id = @team_id AND e.memory_id = ANY(@memory_ids::uuid[]);

-- name: EraseMemories :execrows
-- Their history goes with them (ON DELETE CASCADE), as do the recall
-- records that name them, and the recall index's triggers take their
-- words out in the same transaction.
DELETE FROM memories m WHERE m.team_id = @team_id AND m.id = ANY(@memory_ids::uuid[]);

-- name: EraseTraceCandidates :many
-- Other people's logged answers (not in the person's DMs, not to their
-- turns: those go whole) that may quote what erasure takes: the answers of
-- turns that recalled one of the deleted memories, those whose tool trace
-- names one (a tool's result gives a memory's short id before its text),
-- and, in a thread where the person spoke, those with a tool trace (a
-- tool's input may quote them) and those that hold a deleted memory's text
-- (@quotes) or one of the person's messages there whole. Each comes with
-- the person's messages of its thread that it holds (said): an answer
-- reads its own thread's log, so those are what it can quote of it. A
-- message under @min_quote characters ("ok", "sounds good") is not looked
-- for: an answer may say the same words without quoting anyone.
-- Its cost: one read of the team's answers (their traces are searched for
-- the short ids), and each message of the person's compared with the
-- answers of its own thread only (joined by source key), so a prolific
-- person's erasure grows with the length of their threads, not with their
-- messages times the team's answers; of their threads' answers, only those
-- it changes come back.
WITH said AS (
    -- The person's messages outside their DMs, and so their threads, each
    -- as an answer would quote it: without the blank around it.
    SELECT p.source_key, btrim(p.text, E' \t\r\n') AS text FROM session_messages p
    WHERE p.team_id = @team_id AND p.actor_id = @user_id::text AND NOT (p.channel_id = ANY(@dm_channels::text[]))
), quoting AS (
    SELECT a.id, array_agg(DISTINCT q.text) AS said
    FROM said q JOIN session_messages a ON a.source_key = q.source_key
    WHERE a.team_id = @team_id AND a.role = 'assistant' AND char_length(q.text) >= @min_quote::int AND strpos(a.text, q.text) > 0
    GROUP BY a.id
)
SELECT s.id, s.text, s.tools, COALESCE(w.said, '{}')::text[] AS said
FROM session_messages s LEFT JOIN quoting w ON w.id = s.id
WHERE s.team_id = @team_id AND s.role = 'assistant' AND NOT (s.channel_id = ANY(@dm_channels::text[]))
  AND (s.turn_id IS NULL OR s.turn_id NOT IN (SELECT t.id FROM turns t WHERE t.team_id = @team_id AND t.actor_id = @user_id::text))
  AND (w.id IS NOT NULL
       OR s.turn_id IN (SELECT r.turn_id FROM turn_recalls r WHERE r.memory_id = ANY(@memory_ids::uuid[]))
       OR (s.tools <> '' AND EXISTS (SELECT 1 FROM unnest(@short_ids::text[]) AS i WHERE strpos(s.tools, i) > 0))
       OR (s.source_key IN (SELECT q.source_key FROM said q)
           AND (s.tools <> '' OR EXISTS (SELECT 1 FROM unnest(@quotes::text[]) AS c WHERE strpos(s.text, c) > 0))))
ORDER BY s.id;

-- name: EraseTraceTurns :many
-- Other people's turns whose kept answer (for a retry) may quote what
-- erasure takes: those that recalled a deleted memory, those whose logged
-- answer is a candidate, and, in a thread where the person spoke, those
-- whose kept answer holds a deleted memory's text (@quotes) or one of the
-- person's messages there whole (an answer not logged yet, or logged
-- without it). Each comes with the person's messages of its thread that
-- it holds (said), as EraseTraceCandidates, at the same cost.
WITH said AS (
    SELECT p.source_key, btrim(p.text, E' \t\r\n') AS text FROM session_messages p
    WHERE p.team_id = @team_id AND p.actor_id = @user_id::text AND NOT (p.channel_id = ANY(@dm_channels::text[]))
), quoting AS (
    SELECT a.id, array_agg(DISTINCT q.text) AS said
    FROM said q JOIN turns a ON a.source_key = q.source_key
    WHERE a.team_id = @team_id AND a.pending_text IS NOT NULL AND char_length(q.text) >= @min_quote::int AND strpos(a.pending_text, q.text) > 0
    GROUP BY a.id
)
SELECT t.id, t.pending_text::text AS pending_text, COALESCE(w.said, '{}')::text[] AS said
FROM turns t LEFT JOIN quoting w ON w.id = t.id
WHERE t.team_id = @team_id AND t.pending_text IS NOT NULL
  AND t.actor_id <> @user_id::text AND NOT (t.channel_id = ANY(@dm_channels::text[]))
  AND (w.id IS NOT NULL
       OR t.id IN (SELECT r.turn_id FROM turn_recalls r WHERE r.memory_id = ANY(@memory_ids::uuid[]))
       OR t.id IN (SELECT s.turn_id FROM session_messages s WHERE s.id = ANY(@message_ids::bigint[]))
       OR (t.source_key IN (SELECT q.source_key FROM said q)
           AND EXISTS (SELECT 1 FROM unnest(@quotes::text[]) AS c WHERE strpos(t.pending_text, c) > 0)))
ORDER BY t.id;

-- name: EraseScrubMessages :execrows
-- Rewrites the team's logged messages by id: their text and tool trace.
UPDATE session_messages s
SET text = u.text, tools = u.tools
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@texts::text[]) AS text, unnest(@tools::text[]) AS tools) u
WHERE s.team_id = @team_id AND s.id = u.id AND (s.text <> u.text OR s.tools <> u.tools);

-- name: EraseScrubTurns :execrows
-- Rewrites the team's turns' kept answers by id.
UPDATE turns t
SET pending_text = u.text
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@texts::text[]) AS text) u
WHERE t.team_id = @team_id AND t.id = u.id AND t.pending_text IS DISTINCT FROM u.text;

-- name: EraseAttributeAuthored :execrows
-- What the person wrote and did to the memories that stay (shared ones
-- kept, personal ones about others) is attributed to nobody: the memory
-- reads "a former member" as its author. A memory they forgot loses the
-- reason they gave too (forget's free text is their words, as in its
-- history's copy, EraseMemoryEventsBy).
UPDATE memories m
SET actor_id = CASE WHEN m.actor_id = @user_id::text THEN '' ELSE m.actor_id END,
    actor_name = CASE WHEN m.actor_id = @user_id::text THEN 'a former member' ELSE m.actor_name END,
    archived_by = CASE WHEN m.archived_by = @user_id::text THEN '' ELSE m.archived_by END,
    archived_reason = CASE WHEN m.archived_by = @user_id::text THEN '' ELSE m.archived_reason END
WHERE m.team_id = @team_id AND (m.actor_id = @user_id::text OR m.archived_by = @user_id::text);

-- name: EraseMemoryEventsBy :execrows
-- The person's changes to memories that stay: no actor, no reason (a
-- forget reason is their words).
UPDATE memory_events e SET actor_id = '', reason = ''
WHERE e.team_id = @team_id AND e.actor_id = @user_id::text;

-- name: EraseDMSessionMessages :execrows
-- The log of their DMs: theirs, all of it.
DELETE FROM session_messages s
WHERE s.team_id = @team_id AND s.channel_id = ANY(@dm_channels::text[]);

-- name: EraseSessionMessages :execrows
-- The person's messages in other conversations' logs, and mnemo's answers
-- to them (which quote them), replaced by a tombstone: the thread still
-- reads as a conversation for the others in it. Their line keeps no
-- workspace of theirs either (an external member's actor_team is their own
-- organisation's), so the tombstone says nothing of who spoke.
UPDATE session_messages s
SET text = @tombstone::text, tools = '', actor_id = CASE WHEN s.actor_id = @user_id::text THEN '' ELSE s.actor_id END,
    actor_team = CASE WHEN s.actor_id = @user_id::text THEN '' ELSE s.actor_team END
WHERE s.team_id = @team_id
  AND (s.actor_id = @user_id::text
       OR (s.role = 'assistant'
           AND s.turn_id IN (SELECT t.id FROM turns t WHERE t.team_id = @team_id AND t.actor_id = @user_id::text)));

-- name: EraseDMUsage :execrows
-- The model usage of their DMs' turns, deleted before the turns (which
-- would take it with them uncounted).
DELETE FROM model_usage u
WHERE u.team_id = @team_id AND u.channel_id = ANY(@dm_channels::text[]);

-- name: EraseDMTurns :execrows
-- The turns of their DMs, with their learning records, feedback, steps and
-- recall records (ON DELETE CASCADE).
DELETE FROM turns t
WHERE t.team_id = @team_id AND t.channel_id = ANY(@dm_channels::text[]);

-- name: EraseTurns :execrows
-- The person's turns elsewhere: the answer kept for a retry is a
-- tombstone, the asker nobody, the link to the turn's exported trace gone.
UPDATE turns t
SET actor_id = '', trace_id = '', pending_text = CASE WHEN t.pending_text IS NULL THEN NULL ELSE @tombstone::text END
WHERE t.team_id = @team_id AND t.actor_id = @user_id::text;

-- name: EraseFeedback :execrows
DELETE FROM turn_feedback f
WHERE f.user_id = @user_id::text
  AND f.turn_id IN (SELECT t.id FROM turns t WHERE t.team_id = @team_id);

-- name: EraseUserSettings :execrows
DELETE FROM user_settings WHERE team_id = @team_id AND user_id = @user_id::text;

-- name: EraseDMChannelSettings :execrows
-- The settings of their DMs.
DELETE FROM channel_settings c WHERE c.team_id = @team_id AND c.channel_id = ANY(@dm_channels::text[]);

-- name: EraseChannelSettings :execrows
-- The admin who switched learning in a channel is nobody.
UPDATE channel_settings c SET updated_by = '' WHERE c.team_id = @team_id AND c.updated_by = @user_id::text;

-- name: EraseInboxArrivals :execrows
-- The person's posts in the inbox, moved or waiting, and anything in their
-- DMs: a waiting post of theirs is never answered.
DELETE FROM inbox_arrivals a
WHERE a.team = @team_id
  AND (a.args @> jsonb_build_object('user', @user_id::text) OR a.channel = ANY(@dm_channels::text[]));

-- name: EraseJobs :execrows
-- Jobs that are not running and name the person, in any state (available,
-- scheduled, pending, retryable, completed, cancelled, discarded): their
-- posts' jobs, any job in their DMs, and the learning jobs of their turns.
-- River's own JobDelete refuses a running one.
DELETE FROM river_job j
WHERE j.state <> 'running'
  AND (j.args @> jsonb_build_object('team', @team_id::text, 'user', @user_id::text)
       OR (j.args @> jsonb_build_object('team', @team_id::text) AND j.args->>'channel' = ANY(@dm_channels::text[]))
       OR (j.kind = 'mnemo_learn_from_turn' AND j.args->>'turn_id' = ANY(@turn_ids::text[])));

-- name: EraseRunningJobs :execrows
-- A running job of theirs keeps its row until River finishes it. A post's
-- args name nobody and nowhere (a retry finds no post to take, and is
-- cancelled); a learning job's name only a turn. Their attempts' errors go.
UPDATE river_job j
SET args = CASE WHEN j.kind = 'mnemo_learn_from_turn' THEN j.args
                ELSE jsonb_build_object('team', @team_id::text, 'channel', '', 'ts', '', 'user', '', 'text', @tombstone::text) END,
    errors = NULL
WHERE j.state = 'running'
  AND (j.args @> jsonb_build_object('team', @team_id::text, 'user', @user_id::text)
       OR (j.args @> jsonb_build_object('team', @team_id::text) AND j.args->>'channel' = ANY(@dm_channels::text[]))
       OR (j.kind = 'mnemo_learn_from_turn' AND j.args->>'turn_id' = ANY(@turn_ids::text[])));

-- name: EraseBackfills :execrows
-- The record that a thread of their DMs was read from Slack, and posts of
-- theirs there waiting for the thread.
WITH w AS (
    DELETE FROM thread_waiters tw
    WHERE EXISTS (SELECT 1 FROM unnest(@dm_channels::text[]) AS d WHERE tw.source_key LIKE 'slack:' || @team_id::text || ':' || d || ':%')
)
DELETE FROM thread_backfills b
WHERE EXISTS (SELECT 1 FROM unnest(@dm_channels::text[]) AS d WHERE b.source_key LIKE 'slack:' || @team_id::text || ':' || d || ':%');

-- name: EraseDMLeases :execrows
-- The lease of a thread of their DMs, held by the job answering a post
-- there: its row names the DM and the thread. The job's next renewal finds
-- it gone and stops the turn (inbox's hold); its args a tombstone by then
-- (EraseRunningJobs), the job ends without taking the thread again.
DELETE FROM thread_leases tl
WHERE EXISTS (SELECT 1 FROM unnest(@dm_channels::text[]) AS d WHERE tl.source_key LIKE 'slack:' || @team_id::text || ':' || d || ':%');

-- name: EraseInstaller :execrows
-- The person who installed mnemo in the workspace is nobody.
UPDATE installations i SET installer_id = '' WHERE i.team_id = @team_id AND i.installer_id = @user_id::text;

-- name: EraseOrgInstaller :execrows
-- The person who installed mnemo for the organisation that served the
-- workspace is nobody too: an org-wide installation (Enterprise Grid) is
-- stored with no team, under its enterprise id, and a member's id is the
-- same in every workspace of the organisation.
UPDATE installations i SET installer_id = ''
WHERE i.team_id = '' AND i.enterprise_id = @enterprise_id::text AND i.installer_id = @user_id::text;

-- name: EraseAudit :execrows
-- The admin record: the person, or one of their DMs, as actor or target is
-- nobody, and the detail of an action on a memory erasure deleted, or that
-- names them, is a tombstone.
UPDATE admin_audit a
SET actor_id = CASE WHEN a.actor_id = @user_id::text THEN '' ELSE a.actor_id END,
    target = CASE WHEN a.target = @user_id::text OR a.target = ANY(@dm_channels::text[]) THEN '' ELSE a.target END,
    detail = CASE WHEN a.target = ANY(@memory_ids::text[]) OR strpos(a.detail, @user_id::text) > 0
                       OR EXISTS (SELECT 1 FROM unnest(@dm_channels::text[]) AS d WHERE strpos(a.detail, d) > 0)
                  THEN @tombstone::text ELSE a.detail END
WHERE a.team_id = @team_id
  AND (a.actor_id = @user_id::text OR a.target = @user_id::text OR a.target = ANY(@dm_channels::text[])
       OR a.target = ANY(@memory_ids::text[]) OR strpos(a.detail, @user_id::text) > 0
       OR EXISTS (SELECT 1 FROM unnest(@dm_channels::text[]) AS d WHERE strpos(a.detail, d) > 0));

-- name: ErasedMemoryAt :one
-- When a team's memory with an id from @lo to @hi (those that start with
-- one prefix) was erased: restore's answer for a memory that is gone.
SELECT e.erased_at FROM erased_memories e
WHERE e.team_id = @team_id AND e.id BETWEEN @lo::uuid AND @hi::uuid
ORDER BY e.erased_at DESC
LIMIT 1;

-- Erasure of a whole team (an uninstalled workspace, or `mnemo teams
-- erase`): every row that holds its data is deleted.

-- name: EraseTeamMemoryWrites :execrows
-- The records of the memory writes under way said in the team or stored
-- under it (or, for an organisation, under its enterprise id): such a
-- write, whose review an erasure overtook, then stores nothing
-- (MemoryWriteKept, MemoryWriteEnd), as a person's erasure does to theirs
-- (EraseMemoryWrites).
DELETE FROM memory_writes w WHERE w.team_id = @team_id OR w.stored_team = @team_id;

-- name: EraseTeamMemories :execrows
-- Their history goes with them (ON DELETE CASCADE), and the recall index's
-- triggers take their words out.
DELETE FROM memories m WHERE m.team_id = @team_id;

-- name: EraseTeamSaidMemories :execrows
-- What was said in the team's conversations but stored under another
-- team: an external member's memories of its Slack Connect channels, kept
-- under their own team (memory.HomeOf), and its organisation's
-- (org-scope memories) said there. They are the team's data, and no other
-- erasure may ever reach them (the guest's organisation may never install
-- mnemo). Found by source key, slack:<team>:…: starts_with is right in
-- every collation, and reads memories_source_key where the database's is
-- "C"; in any other (C.UTF-8 included) it reads every team's memories,
-- once per workspace erasure. A range on the index would miss keys where
-- the collation does not sort by code point.
DELETE FROM memories m
WHERE starts_with(m.source_key, 'slack:' || @team_id::text || ':') AND m.team_id <> @team_id;

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
-- installation that would answer is gone. A learning job's args name only
-- its turn, so those of the team's turns are found by them: this runs
-- before the turns are deleted.
DELETE FROM river_job j
WHERE j.args @> jsonb_build_object('team', @team_id::text)
   OR (j.kind = 'mnemo_learn_from_turn'
       AND j.args->>'turn_id' IN (SELECT t.id::text FROM turns t WHERE t.team_id = @team_id));

-- name: EraseTeamLeases :execrows
-- Thread leases and waiters are keyed by source key, slack:<team>:….
WITH w AS (
    DELETE FROM thread_waiters tw WHERE tw.source_key LIKE 'slack:' || @team_id::text || ':%'
)
DELETE FROM thread_leases tl WHERE tl.source_key LIKE 'slack:' || @team_id::text || ':%';

-- name: EraseTeamBackfills :execrows
-- The records of threads read from Slack, keyed by source key too.
DELETE FROM thread_backfills b WHERE b.source_key LIKE 'slack:' || @team_id::text || ':%';

-- name: EraseTeamErasedMemories :execrows
DELETE FROM erased_memories e WHERE e.team_id = @team_id;

-- name: EraseTeamAudit :execrows
DELETE FROM admin_audit a WHERE a.team_id = @team_id;

-- name: EraseTeamInstallations :execrows
DELETE FROM installations i WHERE i.team_id = @team_id;

-- name: EraseTeamInstallationTeams :execrows
DELETE FROM installation_teams t WHERE t.team_id = @team_id;

-- name: EraseTeamNotify :exec
-- Tells every serve listening (EraseTeamListen) that the team is erased,
-- when the erasure commits: each drops the team's installation from its
-- cache at once, instead of serving it until the cache's TTL.
SELECT pg_notify('mnemo_team_erased', @team_id::text);

-- name: EraseTeamListen :exec
-- On serve's connection for it: the erasures committed from now on
-- (EraseTeamNotify) arrive on it, the team id as the payload.
LISTEN mnemo_team_erased;
