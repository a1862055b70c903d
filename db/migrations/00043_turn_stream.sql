-- +goose Up
-- The message a turn's answer started streaming into, recorded as soon as
-- Slack made it (chat.startStream, or the post made where Slack would not
-- stream). A process that dies mid-stream leaves that message without the
-- metadata by which a later attempt finds it (chat.startStream takes none;
-- chat.stopStream carries it, and was never called): the next attempt
-- continues in it instead of posting the answer a second time beside it.
ALTER TABLE turns ADD COLUMN stream_ts text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE turns DROP COLUMN stream_ts;
