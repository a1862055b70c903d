package memory

import (
	"context"
	"errors"

	"github.com/google/uuid"
)

// Looked is one memory looked up by id for v: Memory is set only when v may
// see it (Visible, for Show); Exists says whether it still exists at all.
type Looked struct {
	ID      uuid.UUID
	Exists  bool
	Visible bool
	Memory  Memory
}

// Look finds memories by id for v, in order, through the visibility rule:
// a memory v may not see is reported as existing, without its content.
// `mnemo turns show` and the Inspect shortcut read a turn's recall so.
func (s *Store) Look(ctx context.Context, v Viewer, ids []uuid.UUID) ([]Looked, error) {
	out := make([]Looked, 0, len(ids))
	for _, id := range ids {
		m, err := s.get(ctx, viewerTeam(v), id)
		switch {
		case errors.Is(err, ErrNotFound):
			out = append(out, Looked{ID: id})
			continue
		case err != nil:
			return nil, err
		}
		l := Looked{ID: id, Exists: true}
		if Visible(v, m, Show) {
			l.Visible, l.Memory = true, m
		}
		out = append(out, l)
	}
	return out, nil
}
