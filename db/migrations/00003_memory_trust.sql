-- +goose Up
-- A memory the review flags as sensitive never leaves the place it was said.
ALTER TABLE memories ADD COLUMN sensitive text NOT NULL DEFAULT '';

-- Every change to a memory, written in the same transaction as the change.
CREATE TABLE memory_events (
    id         bigserial PRIMARY KEY,
    memory_id  uuid NOT NULL REFERENCES memories (id) ON UPDATE CASCADE,
    team_id    text NOT NULL,
    action     text NOT NULL CHECK (action IN ('create', 'update', 'supersede', 'archive', 'restore', 'purge')),
    actor_id   text NOT NULL,
    path       text NOT NULL,
    reason     text NOT NULL DEFAULT '',
    related_id uuid,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memory_events_memory ON memory_events (memory_id, id);

-- Per-person switches: a person may turn off passive learning about themselves.
CREATE TABLE user_settings (
    team_id          text NOT NULL,
    user_id          text NOT NULL,
    learning_enabled boolean NOT NULL DEFAULT true,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, user_id)
);

-- A DM's recent conversation, across its top-level threads.
CREATE INDEX session_messages_channel_recent ON session_messages (team_id, channel_id, created_at);

-- What a turn's tools did, compacted, kept with the bot's reply so a
-- follow-up ("forget the second one") can refer to it.
ALTER TABLE session_messages ADD COLUMN tools text NOT NULL DEFAULT '';

-- subject_type says whom or what a memory is about, independent of its
-- scope: a user, a conversation, a channel or the team. Rows written before
-- had it derived from scope, which stays true; "workspace" becomes "team".
ALTER TABLE memories DROP CONSTRAINT memories_subject_type_check;
UPDATE memories SET subject_type = 'team' WHERE subject_type = 'workspace';
ALTER TABLE memories ADD CONSTRAINT memories_subject_type_check
    CHECK (subject_type IN ('user', 'conversation', 'channel', 'team'));

-- +goose Down
ALTER TABLE memories DROP CONSTRAINT memories_subject_type_check;
UPDATE memories SET subject_type = 'workspace' WHERE subject_type = 'team';
ALTER TABLE memories ADD CONSTRAINT memories_subject_type_check
    CHECK (subject_type IN ('user', 'conversation', 'channel', 'workspace'));
ALTER TABLE session_messages DROP COLUMN tools;
DROP INDEX session_messages_channel_recent;
DROP TABLE user_settings;
DROP TABLE memory_events;
ALTER TABLE memories DROP COLUMN sensitive;
