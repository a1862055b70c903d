-- +goose Up
-- The workspaces an organisation's org-wide (Enterprise Grid) installation
-- serves (issue 33): each one is recorded when Slack first delivers from
-- it with the organisation's enterprise_id, so that the workspace's later
-- work (a turn on another replica, a sweep, the App Home) finds its
-- organisation's installation by the team alone. A workspace's own
-- installation, when it has one, comes first. The row is the workspace's
-- and goes with its erasure.
CREATE TABLE installation_teams (
    team_id       text PRIMARY KEY,
    enterprise_id text NOT NULL,
    seen_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX installation_teams_enterprise ON installation_teams (enterprise_id);

-- +goose Down
DROP TABLE installation_teams;
