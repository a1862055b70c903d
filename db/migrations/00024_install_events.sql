-- +goose Up
-- The install lifecycle events taken in (app_uninstalled, tokens_revoked),
-- by Slack's event_id (issue 33): Slack retries an event whose ack it
-- missed, for minutes after, and a retry that came after a reinstall must
-- not disable the new installation. A retry finds its event_id here and
-- does nothing. A row names no team or person, and is deleted a day after
-- it was taken in (Slack stops retrying within hours).
CREATE TABLE install_events (
    event_id    text PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX install_events_received ON install_events (received_at);

-- An installation made after an uninstall event was sent is not disabled
-- by it; installed_at is compared with the event's event_time.

-- +goose Down
DROP TABLE install_events;
