-- Installations of the app, one per team (or per enterprise for an
-- org-wide install). The token is stored sealed; db never sees it in clear.

-- name: InstallationUpsert :exec
-- A reinstall replaces the token and enables the installation again.
INSERT INTO installations (team_id, enterprise_id, token_ciphertext, token_nonce, token_key_id,
                           bot_user_id, bot_id, scopes, installer_id)
VALUES (@team_id, @enterprise_id, @token_ciphertext, @token_nonce, @token_key_id,
        @bot_user_id, @bot_id, @scopes, @installer_id)
ON CONFLICT (team_id, enterprise_id) DO UPDATE
SET token_ciphertext = EXCLUDED.token_ciphertext, token_nonce = EXCLUDED.token_nonce,
    token_key_id = EXCLUDED.token_key_id, bot_user_id = EXCLUDED.bot_user_id, bot_id = EXCLUDED.bot_id,
    scopes = EXCLUDED.scopes, installer_id = EXCLUDED.installer_id, installed_at = now(),
    disabled_at = NULL, disabled_why = '';

-- name: InstallationFind :one
-- The team's own installation, else its organisation's.
SELECT * FROM installations i
WHERE i.team_id = @team_id
   OR (i.team_id = '' AND @enterprise_id::text <> '' AND i.enterprise_id = @enterprise_id)
ORDER BY i.team_id DESC, i.installed_at DESC
LIMIT 1;

-- name: InstallationFindTeam :one
-- A team's installation, whatever its enterprise.
SELECT * FROM installations i
WHERE i.team_id = @team_id
ORDER BY i.installed_at DESC
LIMIT 1;

-- name: InstallationDisable :execrows
UPDATE installations i SET disabled_at = now(), disabled_why = @why
WHERE i.team_id = @team_id AND i.disabled_at IS NULL;

-- name: InstallationList :many
SELECT * FROM installations i ORDER BY i.team_id, i.enterprise_id;

-- name: InstallationReseal :execrows
-- Rotation: the token sealed again under the current key, if the row was
-- not changed since it was read.
UPDATE installations i
SET token_ciphertext = @token_ciphertext, token_nonce = @token_nonce, token_key_id = @token_key_id
WHERE i.team_id = @team_id AND i.enterprise_id = @enterprise_id AND i.token_key_id = @old_key_id
  AND i.token_nonce = @old_nonce;

-- name: InstallationDisabledBefore :many
-- Teams uninstalled before a time: their data is erased once the grace
-- period has passed.
SELECT i.team_id FROM installations i
WHERE i.disabled_at < @before::timestamptz AND i.team_id <> ''
ORDER BY i.disabled_at
LIMIT @max_rows::int;

-- name: OAuthStateSpend :execrows
-- A state's first use records it (one row); a second finds it and records
-- nothing. States past their expiry are deleted on the way.
WITH expired AS (
    DELETE FROM oauth_states s WHERE s.expires_at < now()
)
INSERT INTO oauth_states (nonce_hash, expires_at) VALUES (@nonce_hash, @expires_at)
ON CONFLICT (nonce_hash) DO NOTHING;
