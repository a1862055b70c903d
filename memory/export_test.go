package memory

import (
	"context"

	"github.com/google/uuid"
)

// Get reads a memory whoever may see it, for tests' assertions only: every
// path of the product goes through the visibility rule.
func (s *Store) Get(ctx context.Context, id uuid.UUID) (Memory, error) { return s.get(ctx, id) }
