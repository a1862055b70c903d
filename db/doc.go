// Package db owns mnemo's storage: the embedded goose migrations, and small
// stores that own their tables (Turns, Sessions, Memories, Leases, Inbox,
// Settings, Audit, Checks) over the code sqlc generates, which stays private in
// db/internal/dbsqlc beside its SQL. Driver errors are translated here,
// once: pgx.ErrNoRows becomes ErrNotFound.
//
// No store calls a model or the network. It imports only provenance and
// threads, the vocabulary it stores, and detect, to redact secrets before
// they are stored: in the session log, memory event and archive reasons, and
// admin audit text.
package db
