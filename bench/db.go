package bench

import (
	"context"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db"
)

// Database is a migrated database the bench made, dropped by Close.
type Database struct {
	Name   string
	Pool   *pgxpool.Pool
	DB     *db.DB
	server string
}

// NewDatabase (re)creates database name on server and migrates it. The
// pool has maxConns connections.
func NewDatabase(ctx context.Context, server, name string, maxConns int32) (*Database, error) {
	if err := adminExec(ctx, server, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return nil, err
	}
	if err := adminExec(ctx, server, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return nil, err
	}
	u, err := url.Parse(server)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	u.Path = "/" + name
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	d := db.New(pool)
	if _, err := d.Migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	return &Database{Name: name, Pool: pool, DB: d, server: server}, nil
}

// Close closes the pool and drops the database.
func (d *Database) Close() {
	d.Pool.Close()
	_ = adminExec(context.Background(), d.server, "DROP DATABASE IF EXISTS "+pgx.Identifier{d.Name}.Sanitize()+" WITH (FORCE)")
}

func adminExec(ctx context.Context, server, sql string) error {
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// URL is the database's connection URL.
func (d *Database) URL() (string, error) {
	u, err := url.Parse(d.server)
	if err != nil {
		return "", fmt.Errorf("database url: %w", err)
	}
	u.Path = "/" + d.Name
	return u.String(), nil
}
