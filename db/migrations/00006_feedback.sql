-- +goose Up
-- What people said of the bot's replies with the 👍/👎 buttons: one verdict
-- per person per turn, which a later press replaces.
CREATE TABLE turn_feedback (
    turn_id    bigint NOT NULL REFERENCES turns (id),
    user_id    text NOT NULL,
    value      text NOT NULL CHECK (value IN ('positive', 'negative')),
    at         timestamptz NOT NULL,
    PRIMARY KEY (turn_id, user_id)
);

-- +goose Down
DROP TABLE turn_feedback;
