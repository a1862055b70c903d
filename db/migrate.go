package db

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations is the embedded migration set, for tools that fingerprint it.
func Migrations() fs.FS {
	sub, _ := fs.Sub(migrations, "migrations")
	return sub
}

// Migrate applies every pending migration, mnemo's and then River's (the
// job queue lives in the same database), and reports how many it applied.
func (d *DB) Migrate(ctx context.Context) (int, error) {
	pool := d.pool
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, Migrations())
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return len(results), fmt.Errorf("migrate: %w", err)
	}
	rm, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return len(results), fmt.Errorf("migrate river: %w", err)
	}
	rres, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return len(results), fmt.Errorf("migrate river: %w", err)
	}
	return len(results) + len(rres.Versions), nil
}

// MigrationsVersionSalt names schema changes that do not live in the embedded
// files (River's own migrations), so test templates are rebuilt when they change.
const MigrationsVersionSalt = "river v0.51.2"
