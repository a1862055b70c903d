-- +goose Up
-- A channel's id is not its workspace's alone: a Slack Connect channel
-- keeps one id in every organization that shares it, and each stores its
-- own memories there. memories_channel led with the channel and ordered
-- by time, so the planner could read a team's newest memories of a
-- channel (auto-recall's fill, generic and planned once per connection)
-- by walking the channel's newest of every team backwards and filtering
-- the team: 400,000 rows a question in LoCoMo's noisy shape. With the
-- team second, the index reads a team's rows of a channel in time order
-- and nothing else; it still leads with the channel, for erasure's DM
-- channels and the operators' listing by channel.
DROP INDEX memories_channel;
CREATE INDEX memories_channel ON memories (channel_id, team_id, created_at);

-- +goose Down
DROP INDEX memories_channel;
CREATE INDEX memories_channel ON memories (channel_id, created_at);
