-- +goose Up
-- Where a turn happened, so background work can apply the same privacy rules.
ALTER TABLE turns ADD COLUMN visibility text NOT NULL DEFAULT 'private'
    CHECK (visibility IN ('public', 'private', 'dm'));

-- Per-channel switches set by admins.
CREATE TABLE channel_settings (
    team_id          text NOT NULL,
    channel_id       text NOT NULL,
    learning_enabled boolean NOT NULL DEFAULT true,
    updated_by       text NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, channel_id)
);

-- One row per turn whose passive extraction has run, so a retried or
-- duplicated job decides once.
CREATE TABLE turn_learning (
    turn_id    bigint PRIMARY KEY REFERENCES turns (id),
    stored     integer NOT NULL,
    dropped    integer NOT NULL,
    decided_at timestamptz NOT NULL DEFAULT now()
);

-- Every admin action, with its actor.
CREATE TABLE admin_audit (
    id         bigserial PRIMARY KEY,
    team_id    text NOT NULL,
    actor_id   text NOT NULL,
    action     text NOT NULL,
    target     text NOT NULL DEFAULT '',
    detail     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_audit_team ON admin_audit (team_id, created_at);

-- +goose Down
ALTER TABLE turns DROP COLUMN visibility;
DROP TABLE admin_audit;
DROP TABLE turn_learning;
DROP TABLE channel_settings;
