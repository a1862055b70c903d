// Package memory owns mnemo's long-term memory: one store, over db.Memories,
// shared by the remember and forget tools, passive learning and recall, and
// its rules. Every memory is scoped (personal, conversation, channel,
// workspace), keyed by the sourceKey of the thread it came from, reviewed
// before it is stored, and searchable the moment it is written. See
// docs/memory.md.
//
// It must not import a surface (slackapp, agent, learn, evals, a command),
// nor the database driver.
package memory
