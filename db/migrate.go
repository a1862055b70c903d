package db

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
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

// Migration is one of mnemo's migrations and whether it is applied.
type Migration struct {
	Version   int64
	Name      string // the file name, e.g. 00001_init.sql
	Applied   bool
	AppliedAt time.Time // zero when pending
}

// MigrationStatus is where the schema stands: each of mnemo's migrations,
// oldest first, and River's, whose migrations mnemo applies but never rolls
// back.
type MigrationStatus struct {
	Migrations []Migration
	// River is the newest River migration applied (0 for none), and
	// RiverLatest the newest this build knows.
	River, RiverLatest int
}

// withGoose runs fn with a goose provider over mnemo's migrations. A
// session lock (a PostgreSQL advisory lock) makes concurrent runs, such as
// two replicas starting at once, take turns instead of racing.
func (d *DB) withGoose(ctx context.Context, fn func(*goose.Provider) error) error {
	sqlDB := stdlib.OpenDBFromPool(d.pool)
	defer sqlDB.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, Migrations(), goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	return fn(p)
}

func (d *DB) river() (*rivermigrate.Migrator[pgx.Tx], error) {
	return rivermigrate.New(riverpgxv5.New(d.pool), nil)
}

// Migrate applies every pending migration, mnemo's and then River's (the
// job queue lives in the same database), and reports how many it applied.
func (d *DB) Migrate(ctx context.Context) (int, error) {
	var applied int
	err := d.withGoose(ctx, func(p *goose.Provider) error {
		results, err := p.Up(ctx)
		applied = len(results)
		return err
	})
	if err != nil {
		return applied, fmt.Errorf("migrate: %w", err)
	}
	rm, err := d.river()
	if err != nil {
		return applied, fmt.Errorf("migrate river: %w", err)
	}
	rres, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return applied, fmt.Errorf("migrate river: %w", err)
	}
	return applied + len(rres.Versions), nil
}

// NotMigratedError is CheckMigrated's answer for a schema behind this
// build: Pending of mnemo's migrations and RiverPending of River's are
// not applied (-1 for all, on a database mnemo never migrated).
type NotMigratedError struct{ Pending, RiverPending int }

func (e *NotMigratedError) Error() string {
	if e.Pending < 0 {
		return "the database has no mnemo schema yet: run mnemo migrate"
	}
	return fmt.Sprintf("the database schema is behind this mnemo (%d migrations pending, %d of the job queue's): run mnemo migrate", e.Pending, e.RiverPending)
}

// CheckMigrated returns a *NotMigratedError unless every migration, mnemo's
// and River's, is applied. Unlike Status, it changes nothing, not even on a
// database mnemo never migrated.
func (d *DB) CheckMigrated(ctx context.Context) error {
	var versioned bool
	if err := d.pool.QueryRow(ctx, "SELECT to_regclass('goose_db_version') IS NOT NULL").Scan(&versioned); err != nil {
		return fmt.Errorf("migration check: %w", err)
	}
	if !versioned {
		return &NotMigratedError{Pending: -1, RiverPending: -1}
	}
	st, err := d.Status(ctx)
	if err != nil {
		return err
	}
	pending := 0
	for _, m := range st.Migrations {
		if !m.Applied {
			pending++
		}
	}
	if pending > 0 || st.River < st.RiverLatest {
		return &NotMigratedError{Pending: pending, RiverPending: st.RiverLatest - st.River}
	}
	return nil
}

// Status reports which migrations are applied and which are pending.
func (d *DB) Status(ctx context.Context) (MigrationStatus, error) {
	var st MigrationStatus
	err := d.withGoose(ctx, func(p *goose.Provider) error {
		list, err := p.Status(ctx)
		if err != nil {
			return err
		}
		for _, m := range list {
			st.Migrations = append(st.Migrations, Migration{
				Version: m.Source.Version, Name: path.Base(m.Source.Path),
				Applied: m.State == goose.StateApplied, AppliedAt: m.AppliedAt,
			})
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("migration status: %w", err)
	}
	rm, err := d.river()
	if err != nil {
		return st, fmt.Errorf("migration status: river: %w", err)
	}
	existing, err := rm.ExistingVersions(ctx)
	if err != nil {
		return st, fmt.Errorf("migration status: river: %w", err)
	}
	if len(existing) > 0 {
		st.River = existing[len(existing)-1].Version
	}
	if all := rm.AllVersions(); len(all) > 0 {
		st.RiverLatest = all[len(all)-1].Version
	}
	return st, nil
}

// MigrateDownTo rolls mnemo's migrations back until version is the newest
// applied (0 rolls back all of them), and returns the versions it rolled
// back, newest first. River's migrations stay applied: its tables hold no
// mnemo data that a rollback could make inconsistent, and the next Migrate
// finds them in place.
func (d *DB) MigrateDownTo(ctx context.Context, version int64) ([]int64, error) {
	var down []int64
	err := d.withGoose(ctx, func(p *goose.Provider) error {
		if version > 0 {
			list, err := p.Status(ctx)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(list, func(m *goose.MigrationStatus) bool { return m.Source.Version == version })
			switch {
			case i < 0:
				return fmt.Errorf("there is no migration %d", version)
			case list[i].State != goose.StateApplied:
				return fmt.Errorf("migration %d is not applied, so there is nothing to roll back to", version)
			}
		}
		results, err := p.DownTo(ctx, version)
		for _, r := range results {
			down = append(down, r.Source.Version)
		}
		return err
	})
	if err != nil {
		return down, fmt.Errorf("migrate down to %d: %w", version, err)
	}
	return down, nil
}

// MigrationsVersionSalt names schema changes that do not live in the embedded
// files (River's own migrations), so test templates are rebuilt when they change.
const MigrationsVersionSalt = "river v0.51.2"
