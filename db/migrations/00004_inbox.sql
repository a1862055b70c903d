-- +goose Up
-- A turn is now worked from the inbox (a River job per post) and may be
-- attempted more than once: after a crash, a shutdown, or a reply Slack
-- would not take. What a turn decided to say is kept until it is posted, so
-- a retry posts the same words instead of asking the model again; reply_ts
-- is the first message of the posted reply.
ALTER TABLE turns
    ADD COLUMN attempts     integer NOT NULL DEFAULT 0,
    ADD COLUMN pending_kind text CHECK (pending_kind IN ('answer', 'notice')),
    ADD COLUMN pending_text text,
    ADD COLUMN reply_ts     text,
    ADD COLUMN updated_at   timestamptz NOT NULL DEFAULT now();
CREATE INDEX turns_running ON turns (updated_at) WHERE status = 'running';

-- One turn at a time per thread, across replicas. The holder renews its
-- lease while it works; a lease past expires_at was left by a process that
-- stopped, and its job is handed back to the queue.
CREATE TABLE thread_leases (
    source_key  text PRIMARY KEY,
    post_ts     text NOT NULL,
    job_id      bigint NOT NULL,
    holder      text NOT NULL,
    acquired_at timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX thread_leases_expiry ON thread_leases (expires_at);

-- Posts waiting for their thread's lease, so that the earliest goes first.
CREATE TABLE thread_waiters (
    source_key text NOT NULL,
    post_ts    text NOT NULL,
    seen_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source_key, post_ts)
);

-- Event ids are no longer claimed: the inbox job is unique by post, which
-- covers Slack's retries, the message+app_mention pair and a second replica.
DROP TABLE inbound_events;

-- +goose Down
CREATE TABLE inbound_events (
    event_id    text PRIMARY KEY,
    envelope_id text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
DROP TABLE thread_waiters;
DROP TABLE thread_leases;
DROP INDEX turns_running;
ALTER TABLE turns
    DROP COLUMN attempts,
    DROP COLUMN pending_kind,
    DROP COLUMN pending_text,
    DROP COLUMN reply_ts,
    DROP COLUMN updated_at;
