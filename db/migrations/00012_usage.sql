-- +goose Up
-- What each turn did and what it cost (docs/observability.md).
--
-- model_usage holds one row per model call made for a turn: its tokens, as
-- the provider reported them, and who and where the turn was for, so that
-- budgets sum a person's or a channel's day on an index, across replicas.
-- A row lives as long as its turn (retention deletes turns, and their usage
-- with them); erasing a person de-identifies their rows (person_id ''), as
-- it does their turns, so that totals and channel budgets stay true.
CREATE TABLE model_usage (
    id            bigserial PRIMARY KEY,
    turn_id       bigint NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    team_id       text NOT NULL,
    person_id     text NOT NULL,
    channel_id    text NOT NULL,
    provider      text NOT NULL,
    model         text NOT NULL,
    input_tokens  bigint NOT NULL CHECK (input_tokens >= 0),
    output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
    cached_tokens bigint NOT NULL CHECK (cached_tokens >= 0),
    duration_ms   bigint NOT NULL DEFAULT 0,
    finish_reason text NOT NULL DEFAULT '',
    at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX model_usage_turn ON model_usage (turn_id);
CREATE INDEX model_usage_person_day ON model_usage (team_id, person_id, at) INCLUDE (input_tokens, output_tokens);
CREATE INDEX model_usage_channel_day ON model_usage (team_id, channel_id, at) INCLUDE (input_tokens, output_tokens);
CREATE INDEX model_usage_at ON model_usage (at);

-- A turn's trace, and its steps for `mnemo turns show`: recall (which
-- memories, ranked how), tool calls (name and outcome, never arguments),
-- errors. No message text: a step's detail holds ids, names and numbers.
ALTER TABLE turns ADD COLUMN trace_id text NOT NULL DEFAULT '';
CREATE TABLE turn_steps (
    id          bigserial PRIMARY KEY,
    turn_id     bigint NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('recall', 'model', 'tool', 'error', 'budget')),
    name        text NOT NULL DEFAULT '',
    outcome     text NOT NULL DEFAULT '',
    duration_ms bigint NOT NULL DEFAULT 0,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX turn_steps_turn ON turn_steps (turn_id, id);
-- The memories a turn's recall put in its prompt, in rank order, with the
-- score that ranked them. A memory deleted later (retention, erasure) leaves
-- its turns' recall records with it.
CREATE TABLE turn_recalls (
    turn_id   bigint NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    rank      integer NOT NULL,
    memory_id uuid NOT NULL REFERENCES memories (id) ON UPDATE CASCADE ON DELETE CASCADE,
    score     double precision NOT NULL,
    PRIMARY KEY (turn_id, rank)
);
CREATE INDEX turn_recalls_memory ON turn_recalls (memory_id);

-- +goose Down
DROP TABLE turn_recalls;
DROP TABLE turn_steps;
ALTER TABLE turns DROP COLUMN trace_id;
DROP TABLE model_usage;
