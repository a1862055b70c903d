package db

import (
	"context"
	"database/sql"
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

// withGoose runs fn with a goose provider over mnemo's migrations and the
// connection that holds the session lock (a PostgreSQL advisory lock, goose's
// own), which makes concurrent runs, such as two replicas starting at once,
// take turns instead of racing. fn applies the repeatable definitions on
// that connection, so they are under the same lock as the migrations.
func (d *DB) withGoose(ctx context.Context, fn func(*goose.Provider, *sql.Conn) error) (err error) {
	sqlDB := stdlib.OpenDBFromPool(d.pool)
	defer sqlDB.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return err
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := locker.SessionLock(ctx, conn); err != nil {
		return err
	}
	defer func() {
		if uerr := locker.SessionUnlock(context.WithoutCancel(ctx), conn); err == nil {
			err = uerr
		}
	}()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, Migrations())
	if err != nil {
		return err
	}
	return fn(p, conn)
}

func (d *DB) river() (*rivermigrate.Migrator[pgx.Tx], error) {
	return rivermigrate.New(riverpgxv5.New(d.pool), nil)
}

// Migrate applies every pending migration, mnemo's and then River's (the
// job queue lives in the same database), and reports how many it applied.
// After mnemo's versioned migrations it applies each repeatable definition
// whose content changed (db/definitions/: the functions, views and
// triggers, which the versioned migrations do not hold).
func (d *DB) Migrate(ctx context.Context) (int, error) {
	var applied int
	err := d.withGoose(ctx, func(p *goose.Provider, conn *sql.Conn) error {
		results, err := p.Up(ctx)
		applied = len(results)
		if err != nil {
			return err
		}
		_, err = applyDefinitions(ctx, conn)
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
// not applied (-1 for all, on a database mnemo never migrated), and
// Definitions of the repeatable definitions are not applied as this build
// has them.
type NotMigratedError struct{ Pending, RiverPending, Definitions int }

func (e *NotMigratedError) Error() string {
	if e.Pending < 0 {
		return "the database has no mnemo schema yet: run mnemo migrate"
	}
	if e.Pending == 0 && e.RiverPending == 0 {
		return fmt.Sprintf("the database's functions are behind this mnemo (%d definitions to apply): run mnemo migrate", e.Definitions)
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
	stale, err := d.staleDefinitions(ctx)
	if err != nil {
		return fmt.Errorf("migration check: %w", err)
	}
	if pending > 0 || st.River < st.RiverLatest || stale > 0 {
		return &NotMigratedError{Pending: pending, RiverPending: st.RiverLatest - st.River, Definitions: stale}
	}
	return nil
}

// staleDefinitions counts the definitions whose recorded checksum is not
// this build's.
func (d *DB) staleDefinitions(ctx context.Context) (int, error) {
	defs, err := LoadDefinitions(Definitions())
	if err != nil {
		return 0, err
	}
	recorded := map[string]string{}
	var exists bool
	if err := d.pool.QueryRow(ctx, "SELECT to_regclass('mnemo_definitions') IS NOT NULL").Scan(&exists); err != nil {
		return 0, err
	}
	if exists {
		rows, err := d.pool.Query(ctx, "SELECT name, checksum FROM mnemo_definitions")
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var n, c string
			if err := rows.Scan(&n, &c); err != nil {
				rows.Close()
				return 0, err
			}
			recorded[n] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	stale := 0
	for _, def := range defs {
		if recorded[def.Name] != def.Checksum {
			stale++
		}
	}
	return stale, nil
}

// Status reports which migrations are applied and which are pending.
func (d *DB) Status(ctx context.Context) (MigrationStatus, error) {
	var st MigrationStatus
	err := d.withGoose(ctx, func(p *goose.Provider, _ *sql.Conn) error {
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
// back, newest first. It first drops what the repeatable definitions
// create (recall's functions and triggers): they are written for the
// newest schema, and the next Migrate puts them back. River's migrations stay applied: its tables hold no
// mnemo data that a rollback could make inconsistent, and the next Migrate
// finds them in place.
func (d *DB) MigrateDownTo(ctx context.Context, version int64) ([]int64, error) {
	var down []int64
	err := d.withGoose(ctx, func(p *goose.Provider, conn *sql.Conn) error {
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
		// The definitions are written against the newest schema: they go
		// first, and the next Migrate applies them all again.
		if err := dropDefinitions(ctx, conn); err != nil {
			return err
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
