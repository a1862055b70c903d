package memory

import (
	"context"

	"github.com/google/uuid"
)

// Get reads a memory whoever may see it, in whatever team, for tests'
// assertions only: every path of the product goes through the visibility
// rule, and reads by id within the viewer's team.
func (s *Store) Get(ctx context.Context, id uuid.UUID) (Memory, error) {
	var team string
	if err := s.db.Pool().QueryRow(ctx, `SELECT team_id FROM memories WHERE id = $1`, id).Scan(&team); err != nil {
		return Memory{}, ErrNotFound
	}
	return s.get(ctx, team, id)
}

// FromRow is fromRow, for tests that read rows below the store.
var FromRow = fromRow
