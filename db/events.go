package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Events owns inbound_events: the Socket Mode event ids already taken.
type Events struct {
	e executor
	q *dbsqlc.Queries
}

// Claim records an event id; false means a retry or another replica took it.
func (s Events) Claim(ctx context.Context, eventID, envelopeID string) (bool, error) {
	n, err := s.q.InboundEventClaim(ctx, s.e, dbsqlc.InboundEventClaimParams{EventID: eventID, EnvelopeID: envelopeID})
	if err != nil {
		return false, fmt.Errorf("claim event %s: %w", eventID, mapErr(err))
	}
	return n > 0, nil
}

// Prune drops event ids received before before.
func (s Events) Prune(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.InboundEventPrune(ctx, s.e, before)
	if err != nil {
		return 0, fmt.Errorf("prune events: %w", mapErr(err))
	}
	return n, nil
}
