-- +goose Up
-- An org admin removes an org-wide installation from one workspace of the
-- organisation (team_access_revoked), or adds one to it again
-- (team_access_granted): the organisation's installation stays active, so
-- the workspace's own row says whether it is still served.
-- - revoked_at: when the installation stopped serving the workspace; NULL
--   while it does. Retention erases the workspace's data once it is older
--   than MNEMO_RETENTION_UNINSTALLED, as it does an uninstalled one's.
-- - access_event_at: the event_time of the last of these events taken in,
--   so that a late retry of an older one (Slack retries for minutes) does
--   not undo a newer one.
ALTER TABLE installation_teams ADD COLUMN revoked_at timestamptz,
    ADD COLUMN access_event_at timestamptz;
CREATE INDEX installation_teams_revoked ON installation_teams (revoked_at) WHERE revoked_at IS NOT NULL;

-- +goose Down
DROP INDEX installation_teams_revoked;
ALTER TABLE installation_teams DROP COLUMN access_event_at, DROP COLUMN revoked_at;
