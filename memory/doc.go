// Package memory owns mnemo's long-term memory: one PostgreSQL store shared
// by the remember and forget tools, passive learning and recall. Every
// memory is scoped (personal, conversation, channel, workspace), keyed by the
// sourceKey of the thread it came from, reviewed before it is stored, and
// searchable the moment it is written. See docs/memory.md.
package memory
