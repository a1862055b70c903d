-- +goose Up
-- One installation of the app per workspace (team), or per organisation for
-- an org-wide install (enterprise_id, with team_id ''): what the OAuth v2
-- exchange returned. The bot token is sealed with AES-GCM under the key
-- named by token_key_id (MNEMO_ENCRYPTION_KEY holds it), with the team as
-- additional data: a ciphertext copied to another team's row does not open.
-- An uninstalled or revoked installation is disabled at once (disabled_at)
-- and, after MNEMO_RETENTION_UNINSTALLED, erased with all its team's data.
CREATE TABLE installations (
    team_id          text NOT NULL,
    enterprise_id    text NOT NULL DEFAULT '',
    token_ciphertext bytea NOT NULL,
    token_nonce      bytea NOT NULL,
    token_key_id     text NOT NULL,
    bot_user_id      text NOT NULL,
    bot_id           text NOT NULL DEFAULT '',
    scopes           text NOT NULL DEFAULT '',
    installer_id     text NOT NULL,
    installed_at     timestamptz NOT NULL DEFAULT now(),
    disabled_at      timestamptz,
    disabled_why     text NOT NULL DEFAULT '',
    PRIMARY KEY (team_id, enterprise_id),
    CHECK (team_id <> '' OR enterprise_id <> '')
);
CREATE INDEX installations_disabled ON installations (disabled_at) WHERE disabled_at IS NOT NULL;

-- +goose Down
DROP TABLE installations;
