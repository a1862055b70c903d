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

// SpecialCategoryOf is the special category the detectors find in a
// memory about its own writer, read as the review reads it (raw,
// canonical and as the subject would say it), or "". Tests score it for
// statements the store refuses before a category matters (point-in-time,
// vague), so a refusal for another reason is neither a hit nor a miss of
// the detectors by accident.
func SpecialCategoryOf(text string) string {
	w := write{subjectType: SubjectUser}
	return categoryIn(readings(w, text, Canonicalize(text), nil))
}
