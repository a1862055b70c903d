package dbsqlc

// RetentionStatements are the DELETEs retention runs, by table, so a test
// can check that each reads its batch from an index (EXPLAIN). This file
// is written by hand; sqlc leaves it alone.
var RetentionStatements = map[string]string{
	"session_messages": retentionSessionMessages,
	"turns":            retentionTurns,
	"memories":         retentionMemories,
	"inbox_arrivals":   inboxPruneMoved,
	"river_job":        retentionJobs,
	"erased_memories":  retentionErasedMemories,
}
