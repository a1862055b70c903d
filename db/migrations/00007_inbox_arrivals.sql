-- +goose Up
-- Where a post lands before its envelope is acked: one row, written by one
-- autocommit INSERT, so the ack waits for a single round trip and the
-- commit's WAL flush instead of River's insert transaction. A mover takes
-- each arrival into River (the inbox's job) in its own transaction and
-- stamps moved_at; the row stays a day after that, so a redelivery of a
-- post already moved, or answered, conflicts here and is reported as a
-- duplicate at once.
CREATE TABLE inbox_arrivals (
    team       text NOT NULL,
    channel    text NOT NULL,
    ts         text NOT NULL,
    args       jsonb NOT NULL,
    arrived_at timestamptz NOT NULL DEFAULT now(),
    moved_at   timestamptz,
    PRIMARY KEY (team, channel, ts)
);
-- The mover's and the depth's scan: only posts not yet in River.
CREATE INDEX inbox_arrivals_waiting ON inbox_arrivals (arrived_at) WHERE moved_at IS NULL;
-- Pruning moved rows.
CREATE INDEX inbox_arrivals_moved ON inbox_arrivals (moved_at) WHERE moved_at IS NOT NULL;

-- +goose Down
DROP TABLE inbox_arrivals;
