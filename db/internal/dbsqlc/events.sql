-- Socket Mode event ids already taken.

-- name: InboundEventClaim :execrows
-- Claims a Socket Mode event id; zero rows means another delivery took it.
INSERT INTO inbound_events (event_id, envelope_id)
VALUES (@event_id, @envelope_id)
ON CONFLICT (event_id) DO NOTHING;

-- name: InboundEventPrune :execrows
-- Event ids are only needed while Slack may still retry.
DELETE FROM inbound_events WHERE received_at < @before;
