-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Socket Mode envelopes already taken, so that Slack's retries and a second
-- replica never handle the same event twice.
CREATE TABLE inbound_events (
    event_id    text PRIMARY KEY,
    envelope_id text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- One turn per human post: a post that arrives both as message and as
-- app_mention is claimed once.
CREATE TABLE turns (
    id                bigserial PRIMARY KEY,
    team_id           text NOT NULL,
    channel_id        text NOT NULL,
    message_ts        text NOT NULL,
    source_key        text NOT NULL,
    actor_id          text NOT NULL,
    status            text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
    used_memory_write boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    UNIQUE (team_id, channel_id, message_ts)
);

-- The per-thread session log: every message the bot has seen or sent in a
-- thread, with who said it and whether it was an instruction to the bot.
CREATE TABLE session_messages (
    id          bigserial PRIMARY KEY,
    source_key  text NOT NULL,
    team_id     text NOT NULL,
    channel_id  text NOT NULL,
    ts          text NOT NULL,
    role        text NOT NULL CHECK (role IN ('user', 'assistant')),
    actor_kind  text NOT NULL CHECK (actor_kind IN ('user', 'bot', 'system')),
    actor_id    text NOT NULL,
    authority   text NOT NULL CHECK (authority IN ('instruction', 'context')),
    text        text NOT NULL,
    turn_id     bigint REFERENCES turns (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source_key, ts)
);
CREATE INDEX session_messages_thread ON session_messages (source_key, ts);

CREATE TABLE memories (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    team_id         text NOT NULL,
    scope           text NOT NULL CHECK (scope IN ('personal', 'conversation', 'channel', 'workspace')),
    subject_type    text NOT NULL CHECK (subject_type IN ('user', 'conversation', 'channel', 'workspace')),
    subject_id      text NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('preference', 'procedure', 'knowledge')),
    content         text NOT NULL CHECK (content <> ''),
    normalized      text NOT NULL,
    source_key      text NOT NULL,
    channel_id      text NOT NULL,
    visibility      text NOT NULL CHECK (visibility IN ('public', 'private', 'dm')),
    actor_id        text NOT NULL,
    actor_name      text NOT NULL DEFAULT '',
    written_by      text NOT NULL CHECK (written_by IN ('explicit', 'passive', 'admin', 'mcp')),
    message_ts      text NOT NULL,
    observed_at     timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz,
    archived_at     timestamptz,
    archived_reason text,
    archived_by     text,
    superseded_by   uuid REFERENCES memories (id),
    idempotency_key text NOT NULL,
    search          tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);
CREATE UNIQUE INDEX memories_idempotency_active ON memories (idempotency_key) WHERE archived_at IS NULL;
CREATE INDEX memories_search ON memories USING gin (search);
CREATE INDEX memories_trgm ON memories USING gin (content gin_trgm_ops);
CREATE INDEX memories_subject ON memories (team_id, scope, subject_id) WHERE archived_at IS NULL;
CREATE INDEX memories_source_key ON memories (source_key);

-- +goose Down
DROP TABLE memories;
DROP TABLE session_messages;
DROP TABLE turns;
DROP TABLE inbound_events;
