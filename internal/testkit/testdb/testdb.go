// Package testdb gives each test its own PostgreSQL database, cloned from a
// migrated template, on the server named by DATABASE_URL (make test starts
// one). Tests never share rows, so they can run with t.Parallel.
package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
)

// DB is one test's database.
type DB struct {
	URL  string
	Pool *pgxpool.Pool
	DB   *db.DB // the stores over Pool
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// ServerURL is the server tests run against.
func ServerURL(t harness.TB) string {
	t.Helper()
	u := os.Getenv("MNEMO_TEST_DATABASE_URL")
	if u == "" {
		u = os.Getenv("DATABASE_URL")
	}
	if u == "" {
		t.Fatalf("testdb: DATABASE_URL is not set; run the tests with `make test`, which starts PostgreSQL")
	}
	return u
}

// New creates a fresh, migrated database for t and drops it when t ends.
func New(t harness.TB) *DB {
	t.Helper()
	ctx := context.Background()
	server := ServerURL(t)
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(ctx, server) })
	if templateErr != nil {
		t.Fatalf("testdb: template: %v", templateErr)
	}

	name := "mnemo_t_" + randomHex(8)
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("testdb: connect: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+templateName); err != nil {
		t.Fatalf("testdb: create database: %v", err)
	}
	dbURL := withDatabase(server, name)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatalf("testdb: pool: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		c, err := pgx.Connect(context.Background(), server)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return &DB{URL: dbURL, Pool: pool, DB: db.New(pool)}
}

// Traced is a pool of its own on d's database whose statements tracer
// sees (a Recorder, RoundTrips), closed when the test ends.
func (d *DB) Traced(t harness.TB, tracer pgx.QueryTracer) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(d.URL)
	if err != nil {
		t.Fatalf("testdb: traced pool: %v", err)
	}
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("testdb: traced pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// ensureTemplate creates, once per migration set, a migrated template
// database. An advisory lock keeps parallel test binaries from racing.
func ensureTemplate(ctx context.Context, server string) (string, error) {
	name := "mnemo_tmpl_" + migrationsHash()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7345001)"); err != nil {
		return "", err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(7345001)") //nolint:errcheck
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	pool, err := pgxpool.New(ctx, withDatabase(server, building))
	if err != nil {
		return "", err
	}
	_, err = db.New(pool).Migrate(ctx)
	pool.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, nil
}

// migrationsHash fingerprints what a template is migrated with: the
// versioned migrations and the repeatable definitions.
func migrationsHash() string {
	h := sha256.New()
	for _, set := range []struct {
		dir  string
		fsys fs.FS
	}{{"migrations", db.Migrations()}, {"definitions", db.Definitions()}} {
		dir, fsys := set.dir, set.fsys
		_ = fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := fs.ReadFile(fsys, path)
			fmt.Fprintf(h, "%s/%s\n%d\n", dir, path, len(b))
			h.Write(b)
			return nil
		})
	}
	fmt.Fprintf(h, "%s\n", db.MigrationsVersionSalt)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func withDatabase(server, name string) string {
	u, err := url.Parse(server)
	if err != nil || u.Scheme == "" {
		return server + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
