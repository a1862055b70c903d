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
-- The installation that serves a team: its own, else its organisation's
-- org-wide one (the enterprise given, else the one it was last served
-- by); an active one before a disabled one. No team finds none (an
-- org-wide installation's team_id is ''). A workspace recorded as served
-- by an organisation whose org-wide installation is active is served by
-- no other organisation's: a delivery that names another (an external
-- member's home workspace under the host organisation) finds none. Nor
-- does a workspace the organisation's installation no longer serves
-- (team_access_revoked).
SELECT i.* FROM installations i
WHERE (i.team_id = @team_id AND @team_id::text <> '')
   OR (i.team_id = '' AND i.enterprise_id = COALESCE(NULLIF(@enterprise_id::text, ''),
        (SELECT t.enterprise_id FROM installation_teams t WHERE t.team_id = @team_id))
       AND NOT EXISTS (SELECT 1 FROM installation_teams r
                       JOIN installations o ON o.team_id = '' AND o.enterprise_id = r.enterprise_id
                                           AND o.disabled_at IS NULL
                       WHERE r.team_id = @team_id AND r.enterprise_id <> i.enterprise_id)
       AND NOT EXISTS (SELECT 1 FROM installation_teams v
                       WHERE v.team_id = @team_id AND v.enterprise_id = i.enterprise_id
                         AND v.revoked_at IS NOT NULL))
ORDER BY (i.disabled_at IS NULL) DESC, i.team_id DESC, i.installed_at DESC
LIMIT 1;

-- name: InstallationServeTeam :many
-- A workspace served by its organisation's org-wide installation. A
-- workspace recorded as another organisation's stays that organisation's
-- while its org-wide installation is active: it moves only away from one
-- disabled or gone, and then with the new organisation's access (the old
-- one's revocation is not the new one's). It returns the organisation
-- recorded now (in the statement's snapshot when this one did not write
-- it; none when the row was written by another transaction after that
-- snapshot was taken).
WITH served AS (
    INSERT INTO installation_teams AS t (team_id, enterprise_id) VALUES (@team_id, @enterprise_id)
    ON CONFLICT (team_id) DO UPDATE SET enterprise_id = EXCLUDED.enterprise_id, seen_at = now(),
        revoked_at = NULL, access_event_at = NULL
    WHERE t.enterprise_id <> EXCLUDED.enterprise_id
      AND NOT EXISTS (SELECT 1 FROM installations o
                      WHERE o.team_id = '' AND o.enterprise_id = t.enterprise_id AND o.disabled_at IS NULL)
    RETURNING t.enterprise_id
)
SELECT s.enterprise_id FROM served s
UNION ALL
SELECT r.enterprise_id FROM installation_teams r
WHERE r.team_id = @team_id AND NOT EXISTS (SELECT 1 FROM served);

-- name: InstallationTeamsOf :many
-- The workspaces recorded as an organisation's, each with when its
-- org-wide installation stopped serving it (team_access_revoked), or
-- NULL while it serves it.
SELECT t.team_id, t.revoked_at FROM installation_teams t WHERE t.enterprise_id = @enterprise_id ORDER BY t.team_id;

-- name: InstallationFindOrg :one
-- An organisation's own (org-wide) installation.
SELECT i.* FROM installations i WHERE i.team_id = '' AND i.enterprise_id = @enterprise_id;

-- name: InstallationDisable :one
-- An uninstall or revoke event, once per event_id: it disables the
-- workspace's installation (team_id), or the organisation's (no team_id,
-- enterprise_id), when that was made before the event was sent (before).
-- It reports whether the event was new, whether it disabled one, and how
-- many active installations are newer than it. Events older than a day
-- are forgotten on the way. Each serve listening (EraseTeamListen) is told
-- of the installation it disabled when it commits, as of an erasure: the
-- team, or none (an empty payload) for an organisation's: every team's.
WITH fresh AS (
    INSERT INTO install_events (event_id) VALUES (@event_id) ON CONFLICT (event_id) DO NOTHING
    RETURNING event_id
), forgotten AS (
    DELETE FROM install_events e WHERE e.received_at < now() - interval '1 day'
), disabled AS (
    UPDATE installations i SET disabled_at = now(), disabled_why = @why
    WHERE i.team_id = @team_id AND (@team_id::text <> '' OR i.enterprise_id = @enterprise_id)
      AND i.disabled_at IS NULL AND i.installed_at < @before::timestamptz
      AND EXISTS (SELECT 1 FROM fresh)
    RETURNING i.team_id
), told AS (
    SELECT pg_notify('mnemo_team_erased', d.team_id) FROM disabled d
)
SELECT (SELECT count(*) FROM fresh)::int AS fresh,
       (SELECT count(*) FROM told)::int AS disabled,
       (SELECT count(*) FROM installations n
        WHERE n.team_id = @team_id AND (@team_id::text <> '' OR n.enterprise_id = @enterprise_id)
          AND n.disabled_at IS NULL AND n.installed_at >= @before::timestamptz)::int AS newer;

-- name: InstallationTeamAccess :one
-- team_access_revoked (revoked) or team_access_granted, once per
-- event_id: the workspaces it names stop, or start again, being served by
-- their organisation's org-wide installation. Only workspaces recorded as
-- that organisation's change, and none that an event sent after this one
-- (sent) changed already. event_time has whole seconds: a workspace that
-- an event of the other kind changed in the same second is tied, and
-- left revoked (a grant does not undo it; a revocation applies), until
-- Slack says which came last (InstallationTeamAccessSettle). The rows are
-- locked and read as they are after any concurrent event's change, so
-- that two events of one second taken in at once find their tie too. A
-- second revocation keeps the first one's time: retention counts from
-- it. It reports whether the event was new, how many workspaces it
-- changed, how many a newer event had changed, and the tied ones. Events
-- older than a day are forgotten on the way. Each serve listening
-- (EraseTeamListen) is told of every workspace it changed when it commits,
-- as of an erasure.
WITH fresh AS (
    INSERT INTO install_events (event_id) VALUES (@event_id) ON CONFLICT (event_id) DO NOTHING
    RETURNING event_id
), forgotten AS (
    DELETE FROM install_events e WHERE e.received_at < now() - interval '1 day'
), locked AS (
    SELECT l.team_id, l.access_event_at, l.revoked_at IS NOT NULL AS was_revoked
    FROM installation_teams l
    WHERE l.enterprise_id = @enterprise_id AND l.team_id = ANY(@team_ids::text[])
      AND EXISTS (SELECT 1 FROM fresh)
    FOR UPDATE
), changed AS (
    UPDATE installation_teams t
    SET revoked_at = CASE WHEN @revoked::bool OR (l.access_event_at = @sent::timestamptz AND l.was_revoked)
                          THEN COALESCE(t.revoked_at, now()) END,
        access_event_at = @sent::timestamptz
    FROM locked l
    WHERE t.team_id = l.team_id AND t.enterprise_id = @enterprise_id
      AND (l.access_event_at IS NULL OR l.access_event_at <= @sent::timestamptz)
    RETURNING t.team_id, (l.access_event_at = @sent::timestamptz AND l.was_revoked <> @revoked::bool) AS tied
), told AS (
    SELECT pg_notify('mnemo_team_erased', c.team_id) FROM changed c
)
SELECT (SELECT count(*) FROM fresh)::int AS fresh,
       (SELECT count(*) FROM told)::int AS changed,
       (SELECT count(*) FROM locked n WHERE n.access_event_at > @sent::timestamptz)::int AS newer,
       ARRAY(SELECT c.team_id FROM changed c WHERE c.tied ORDER BY c.team_id)::text[] AS tied;

-- name: InstallationTeamAccessSettle :many
-- Slack's answer to a tie (InstallationTeamAccess): of the tied
-- workspaces, those it lists (served) are served by their organisation's
-- installation again, the others stay revoked. Only workspaces no event
-- sent after the tie's second (sent) has changed since: that one has the
-- last word. It returns the workspaces it settled, and whether each is
-- served; each serve listening (EraseTeamListen) is told of them when it
-- commits.
WITH settled AS (
    UPDATE installation_teams t
    SET revoked_at = CASE WHEN t.team_id = ANY(@served::text[]) THEN NULL ELSE COALESCE(t.revoked_at, now()) END
    WHERE t.enterprise_id = @enterprise_id AND t.team_id = ANY(@team_ids::text[])
      AND t.access_event_at = @sent::timestamptz
    RETURNING t.team_id, (t.revoked_at IS NULL)::bool AS served
)
SELECT s.team_id, s.served FROM settled s
CROSS JOIN LATERAL (SELECT pg_notify('mnemo_team_erased', s.team_id)) told;

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
-- period has passed. A workspace served by its organisation's installation
-- is uninstalled with it, or when the organisation's installation stopped
-- serving it (team_access_revoked), unless it has an active installation
-- of its own. A workspace whose own installation was uninstalled while its
-- organisation's active installation still serves it is not due: it is
-- still served (InstallationFind finds the organisation's).
SELECT i.team_id FROM installations i
WHERE i.disabled_at < @before::timestamptz AND i.team_id <> ''
  AND NOT EXISTS (
      SELECT 1 FROM installation_teams t JOIN installations o ON o.enterprise_id = t.enterprise_id AND o.team_id = ''
      WHERE t.team_id = i.team_id AND t.revoked_at IS NULL AND o.disabled_at IS NULL)
UNION
SELECT t.team_id FROM installations o JOIN installation_teams t ON t.enterprise_id = o.enterprise_id
WHERE o.team_id = '' AND o.disabled_at < @before::timestamptz
  AND NOT EXISTS (SELECT 1 FROM installations w WHERE w.team_id = t.team_id AND w.disabled_at IS NULL)
UNION
SELECT t.team_id FROM installation_teams t
WHERE t.revoked_at < @before::timestamptz
  AND NOT EXISTS (SELECT 1 FROM installations w WHERE w.team_id = t.team_id AND w.disabled_at IS NULL)
LIMIT @max_rows::int;

-- name: OAuthStateSpend :execrows
-- A state's first use records it (one row); a second finds it and records
-- nothing. States past their expiry are deleted on the way.
WITH expired AS (
    DELETE FROM oauth_states s WHERE s.expires_at < now()
)
INSERT INTO oauth_states (nonce_hash, expires_at) VALUES (@nonce_hash, @expires_at)
ON CONFLICT (nonce_hash) DO NOTHING;

-- name: InstallationOrgTeamsToErase :many
-- The workspaces an organisation's installation served whose data goes
-- with it: those without an active installation of their own.
SELECT t.team_id FROM installation_teams t
WHERE t.enterprise_id = @enterprise_id
  AND NOT EXISTS (SELECT 1 FROM installations w WHERE w.team_id = t.team_id AND w.disabled_at IS NULL)
ORDER BY t.team_id;

-- name: InstallationForgetOrgTeams :execrows
-- An erased organisation's record of the workspaces it served (those with
-- an installation of their own stay theirs, now served by it alone).
DELETE FROM installation_teams t WHERE t.enterprise_id = @enterprise_id;

-- name: InstallationForgetOrg :execrows
-- An erased organisation's own installation, with its sealed token.
DELETE FROM installations i WHERE i.team_id = '' AND i.enterprise_id = @enterprise_id;

-- name: InstallationOrgsErasable :many
-- Organisations uninstalled before a time whose workspaces' data retention
-- has erased (none left without an active installation of its own): their
-- installation and their record of the workspaces they served go next.
SELECT o.enterprise_id FROM installations o
WHERE o.team_id = '' AND o.disabled_at < @before::timestamptz
  AND NOT EXISTS (SELECT 1 FROM installation_teams t WHERE t.enterprise_id = o.enterprise_id
                  AND NOT EXISTS (SELECT 1 FROM installations w WHERE w.team_id = t.team_id AND w.disabled_at IS NULL))
ORDER BY o.enterprise_id
LIMIT @max_rows::int;
