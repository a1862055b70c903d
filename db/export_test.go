package db

import (
	"context"
	"database/sql"
	"io/fs"

	"github.com/pressly/goose/v3"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// RetentionStatements exposes retention's DELETEs to the EXPLAIN test.
var RetentionStatements = dbsqlc.RetentionStatements

// ApplyDefinitionSet applies the definitions of fsys as Migrate applies
// the embedded ones, under the migration lock, and returns the names it
// applied.
func (d *DB) ApplyDefinitionSet(ctx context.Context, fsys fs.FS) ([]string, error) {
	var applied []string
	err := d.withGoose(ctx, func(_ *goose.Provider, conn *sql.Conn) error {
		var err error
		applied, err = applyDefinitionSet(ctx, conn, fsys)
		return err
	})
	return applied, err
}
