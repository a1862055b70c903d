-- +goose Up
-- OAuth install states spent on the server (issue 33): a state is good
-- once, whatever the browser's cookie says. The state is signed and
-- expires (install.StateTTL); a spent one is kept here until then, so a
-- second redirect with it, its cookie and a new code is refused. Only a
-- hash of the state's nonce is kept: it names no team and no person.
CREATE TABLE oauth_states (
    nonce_hash bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
-- Spending a state deletes the expired ones.
CREATE INDEX oauth_states_expires ON oauth_states (expires_at);

-- +goose Down
DROP TABLE oauth_states;
