package memory

// HoldWritesWith makes f run inside persist's transaction once a turn's
// write holds its author's erasure off, for tests that stop a write there.
// Set it before the store writes.
func (s *Store) HoldWritesWith(f func()) { s.holding = f }
