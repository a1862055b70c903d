-- One turn per human post, and the record of its passive learning.

-- name: TurnOpen :one
-- Records the turn for one human post, or returns the one already recorded;
-- created is true only for the call that inserted it. It holds off its
-- team's erasure until it commits, as a memory write does (MemoryHoldErasure),
-- and while one runs it returns no row: the erasure may have deleted the
-- turns already. What its transaction writes after it (the post's line,
-- the lease) is held off with it.
INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id, visibility, shared, org)
SELECT @team_id, @channel_id, @message_ts, @source_key, @actor_id, @visibility, @shared, @org
WHERE pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text))
ON CONFLICT (team_id, channel_id, message_ts) DO UPDATE SET team_id = EXCLUDED.team_id
RETURNING *, (xmax = 0)::boolean AS created;

-- name: TurnGetByPost :one
SELECT * FROM turns
WHERE team_id = @team_id AND channel_id = @channel_id AND message_ts = @message_ts;

-- name: TurnAttempt :one
-- Counts one more attempt at a turn.
UPDATE turns SET attempts = attempts + 1, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: TurnDecide :execrows
-- Keeps what a running turn will say until it is posted.
UPDATE turns
SET pending_kind = @pending_kind, pending_text = @pending_text,
    used_memory_write = used_memory_write OR @used_memory_write, updated_at = now()
WHERE id = @id AND status = 'running';

-- name: TurnStreamed :execrows
-- Records the message a running turn's answer started in.
UPDATE turns SET stream_ts = @stream_ts, updated_at = now()
WHERE id = @id AND status = 'running';

-- name: TurnFinish :execrows
-- Records a running turn's outcome; zero rows means it had already finished.
UPDATE turns
SET status = @status, used_memory_write = used_memory_write OR @used_memory_write,
    reply_ts = sqlc.narg(reply_ts), finished_at = now(), updated_at = now()
WHERE id = @id AND status = 'running';

-- name: TurnGetByID :one
SELECT * FROM turns WHERE id = @id;

-- name: TurnClaimAbandoned :many
-- Running turns nothing has touched since @before: their jobs are gone (a
-- process that died on its last attempt). Touching them claims them for a
-- while, so two replicas do not both report the same turn.
UPDATE turns SET updated_at = now()
WHERE id IN (
    SELECT t.id FROM turns t
    WHERE t.status = 'running' AND t.updated_at < @before
    ORDER BY t.updated_at
    LIMIT @max_turns
    FOR UPDATE SKIP LOCKED
)
RETURNING *;

-- name: TurnLearningRecord :execrows
-- Records that a turn's extraction decided; zero rows means it already had.
INSERT INTO turn_learning (turn_id, stored, dropped)
VALUES (@turn_id, @stored, @dropped)
ON CONFLICT (turn_id) DO NOTHING;

-- name: TurnLearningGet :one
SELECT * FROM turn_learning WHERE turn_id = @turn_id;

-- name: TurnTakeAttempt :one
-- Counts one more attempt at a running turn whose thread's lease @job_id
-- (of @holder) holds; no row when it does not, or the turn has finished.
-- Part of the batch that takes a post (Turns.Take), after the lease; none
-- while the team's erasure runs, as TurnOpen (nor a wait for the turn it
-- deleted).
UPDATE turns SET attempts = attempts + 1, updated_at = now()
WHERE team_id = @team_id AND channel_id = @channel_id AND message_ts = @message_ts AND status = 'running'
  AND EXISTS (
    SELECT 1 FROM thread_leases l
    WHERE l.source_key = @source_key::text AND l.job_id = @job_id AND l.holder = @holder
  )
  AND pg_try_advisory_xact_lock_shared(hashtext('erasure team'), hashtext(@team_id::text))
RETURNING *;

-- name: TurnGetByMessage :many
-- The turns of a message a permalink names: the post it answers or its
-- reply's first message, in every workspace (`mnemo turns show`, Inspect).
-- Each installation that received the post may have one, in a channel
-- shared between organisations (Slack Connect caps those at 250), and the
-- caller picks among them by workspace: no LIMIT, which could drop the
-- one it wants.
SELECT * FROM turns
WHERE channel_id = @channel_id AND (message_ts = @ts OR reply_ts = @ts)
ORDER BY id;
