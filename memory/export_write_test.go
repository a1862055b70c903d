package memory

// SubjectLockOf is the key of the lock that serializes the writes of m's
// subject (persist, Forget, Restore), for tests that hold it.
func SubjectLockOf(m Memory) string {
	return subjectLock(m.Team, m.Scope, m.SubjectType, m.SubjectID)
}
