-- Token usage per model call, a turn's steps and recall, for accounting,
-- budgets and `mnemo turns show`.

-- name: UsageRecord :exec
INSERT INTO model_usage (turn_id, team_id, person_id, channel_id, provider, model,
                         input_tokens, output_tokens, cached_tokens, duration_ms, finish_reason, at)
VALUES (@turn_id, @team_id, @person_id, @channel_id, @provider, @model,
        @input_tokens, @output_tokens, @cached_tokens, @duration_ms, @finish_reason, @at);

-- name: UsageSpent :one
-- What a budget check needs before a model call: the tokens the person and
-- the channel used since @since (each sum read from its own index), and the
-- model calls the turn made.
SELECT
    (SELECT COALESCE(sum(p.input_tokens + p.output_tokens), 0) FROM model_usage p
     WHERE p.team_id = @team_id AND p.person_id = @person_id AND p.at >= @since)::bigint AS person_tokens,
    (SELECT COALESCE(sum(c.input_tokens + c.output_tokens), 0) FROM model_usage c
     WHERE c.team_id = @team_id AND c.channel_id = @channel_id AND c.at >= @since)::bigint AS channel_tokens,
    (SELECT count(*) FROM model_usage t WHERE t.turn_id = @turn_id)::bigint AS turn_calls;

-- name: UsageByDay :many
-- Tokens per UTC day and model since @since, for one person, or everyone when @person_id is ''.
SELECT (date_trunc('day', u.at AT TIME ZONE 'UTC'))::date AS day, u.model,
       sum(u.input_tokens)::bigint AS input_tokens, sum(u.output_tokens)::bigint AS output_tokens,
       sum(u.cached_tokens)::bigint AS cached_tokens, count(*)::bigint AS calls
FROM model_usage u
WHERE u.team_id = @team_id AND u.at >= @since AND (@person_id::text = '' OR u.person_id = @person_id::text)
GROUP BY 1, 2
ORDER BY 1 DESC, 2;

-- name: UsageTopChannels :many
SELECT u.channel_id, u.model, sum(u.input_tokens)::bigint AS input_tokens, sum(u.output_tokens)::bigint AS output_tokens
FROM model_usage u
WHERE u.team_id = @team_id AND u.at >= @since
GROUP BY 1, 2
ORDER BY sum(u.input_tokens + u.output_tokens) DESC
LIMIT @max_rows;

-- name: UsageTopPeople :many
SELECT u.person_id, u.model, sum(u.input_tokens)::bigint AS input_tokens, sum(u.output_tokens)::bigint AS output_tokens
FROM model_usage u
WHERE u.team_id = @team_id AND u.at >= @since AND u.person_id <> ''
GROUP BY 1, 2
ORDER BY sum(u.input_tokens + u.output_tokens) DESC
LIMIT @max_rows;

-- name: UsageOfTurn :many
SELECT * FROM model_usage WHERE turn_id = @turn_id ORDER BY id;

-- name: UsageErase :execrows
-- Erasure: the person's usage is nobody's; the totals stay.
UPDATE model_usage SET person_id = '' WHERE team_id = @team_id AND person_id = @person_id;

-- name: TurnStepRecord :exec
INSERT INTO turn_steps (turn_id, kind, name, outcome, duration_ms, at)
VALUES (@turn_id, @kind, @name, @outcome, @duration_ms, @at);

-- name: TurnStepsOfTurn :many
SELECT * FROM turn_steps WHERE turn_id = @turn_id ORDER BY id;

-- name: TurnRecallRecord :exec
-- What a turn's recall chose, in place of what an earlier attempt of the
-- turn chose (its ranks not chosen now go), and the recall's step: one
-- statement, since the turn waits for it before its model request, and a
-- round trip per memory recalled made a million memories cost every turn
-- a dozen more. A memory deleted since recall chose it is left out, as
-- deletion would take it out of the record anyway.
WITH chosen AS (
    SELECT r.rank, r.memory_id, r.score, r.leg
    FROM (SELECT unnest(@ranks::int[]) AS rank, unnest(@memory_ids::uuid[]) AS memory_id,
                 unnest(@scores::float8[]) AS score, unnest(@legs::text[]) AS leg) r
    WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = r.memory_id)
), gone AS (
    DELETE FROM turn_recalls t WHERE t.turn_id = @turn_id AND t.rank NOT IN (SELECT chosen.rank FROM chosen)
), kept AS (
    INSERT INTO turn_recalls (turn_id, rank, memory_id, score, leg)
    SELECT @turn_id, chosen.rank, chosen.memory_id, chosen.score, chosen.leg FROM chosen
    ON CONFLICT (turn_id, rank) DO UPDATE SET memory_id = EXCLUDED.memory_id, score = EXCLUDED.score, leg = EXCLUDED.leg
)
INSERT INTO turn_steps (turn_id, kind, name, outcome, duration_ms, at)
VALUES (@turn_id, @kind, @name, @outcome, @duration_ms, @at);

-- name: TurnRecallsOfTurn :many
SELECT * FROM turn_recalls WHERE turn_id = @turn_id ORDER BY rank;

-- name: TurnSetTrace :exec
UPDATE turns SET trace_id = @trace_id WHERE id = @id AND trace_id = '';
