// Package db owns mnemo's schema: the embedded goose migrations, the SQL
// queries in db/queries and, in db/dbsqlc, the code sqlc generates from them.
// Runtime code reaches the database only through dbsqlc.
package db
