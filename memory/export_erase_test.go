package memory

// HoldWritesWith makes f run inside persist's transaction once a write
// holds off the erasures that would delete it, for tests that stop a write
// there.
// Set it before the store writes.
func (s *Store) HoldWritesWith(f func()) { s.holding = f }
