-- Admin actions and the counts admins see.

-- name: AdminAuditInsert :exec
INSERT INTO admin_audit (team_id, actor_id, action, target, detail)
VALUES (@team_id, @actor_id, @action, @target, @detail);

-- name: StatsForTeam :one
SELECT
    (SELECT count(*) FROM memories m WHERE m.team_id = @team_id AND m.archived_at IS NULL)::bigint AS active_memories,
    (SELECT count(*) FROM memories m WHERE m.team_id = @team_id AND m.archived_at IS NOT NULL)::bigint AS archived_memories,
    (SELECT count(*) FROM memories m WHERE m.team_id = @team_id AND m.written_by = 'explicit')::bigint AS explicit_writes,
    (SELECT count(*) FROM memories m WHERE m.team_id = @team_id AND m.written_by = 'passive')::bigint AS passive_writes,
    (SELECT count(*) FROM turns t WHERE t.team_id = @team_id)::bigint AS turns,
    (SELECT count(*) FROM turns t WHERE t.team_id = @team_id AND t.status = 'failed')::bigint AS failed_turns;
