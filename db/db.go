package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// ErrNotFound is returned when a row a caller asked for by key is not there.
// It is the only form pgx.ErrNoRows takes outside this package.
var ErrNotFound = errors.New("not found")

// executor runs queries on a pool or in a transaction.
type executor = dbsqlc.DBTX

// DB is mnemo's PostgreSQL: one pool and the small stores over it. Each store
// owns its tables; a Tx gives the same stores bound to one transaction.
type DB struct {
	pool *pgxpool.Pool
	q    *dbsqlc.Queries
}

// Open connects to url. It does not migrate; call Migrate for that.
func Open(ctx context.Context, url string, maxConns int32) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.ShouldPing = shouldPing
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	return New(pool), nil
}

// noPing marks a context whose query takes a pooled connection as it is,
// without pgxpool's liveness ping, and retries on a fresh one if it turns
// out dead (Inbox.Arrive, on the ack path).
type noPing struct{}

// shouldPing is pgxpool's default, a ping before handing out a connection
// idle over a second, except for a query marked noPing: posts come seconds
// apart, so every ack would otherwise wait for a second round trip.
func shouldPing(ctx context.Context, p pgxpool.ShouldPingParams) bool {
	return ctx.Value(noPing{}) == nil && p.IdleDuration > time.Second
}

// connLost reports whether err says the connection failed rather than the
// statement: the server closed it (a restart, an operator, an idle
// timeout) or the network did.
func connLost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Severity == "FATAL" || strings.HasPrefix(pg.Code, "08")
	}
	return true
}

// New wraps an open pool.
func New(pool *pgxpool.Pool) *DB { return &DB{pool: pool, q: dbsqlc.New()} }

// Close closes the pool.
func (d *DB) Close() { d.pool.Close() }

// Pool is the underlying pool, for River, which brings its own driver.
func (d *DB) Pool() *pgxpool.Pool { return d.pool }

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error { return d.pool.Ping(ctx) }

func (d *DB) Turns() Turns       { return Turns{d.pool, d.q} }
func (d *DB) Sessions() Sessions { return Sessions{d.pool, d.q} }
func (d *DB) Memories() Memories { return Memories{e: d.pool, q: d.q} }
func (d *DB) Leases() Leases     { return Leases{d.pool, d.q} }
func (d *DB) Inbox() Inbox       { return Inbox{d.pool, d.q} }
func (d *DB) Settings() Settings { return Settings{d.pool, d.q} }
func (d *DB) Audit() Audit       { return Audit{d.pool, d.q} }

// Tx is one transaction with the stores bound to it.
type Tx struct {
	tx pgx.Tx
	q  *dbsqlc.Queries
}

func (t *Tx) Turns() Turns       { return Turns{t.tx, t.q} }
func (t *Tx) Sessions() Sessions { return Sessions{t.tx, t.q} }
func (t *Tx) Memories() Memories { return Memories{e: t.tx, q: t.q} }
func (t *Tx) Audit() Audit       { return Audit{t.tx, t.q} }
func (t *Tx) Leases() Leases     { return Leases{t.tx, t.q} }
func (t *Tx) Inbox() Inbox       { return Inbox{t.tx, t.q} }

// Pgx is the transaction itself, for River's InsertTx.
func (t *Tx) Pgx() pgx.Tx { return t.tx }

// InTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise. fn must not call a model or any other network service: a
// transaction holds a pooled connection and, often, locks.
func (d *DB) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	return d.inTx(ctx, pgx.TxOptions{}, fn)
}

func (d *DB) inTx(ctx context.Context, o pgx.TxOptions, fn func(tx *Tx) error) error {
	tx, err := d.pool.BeginTx(ctx, o)
	if err != nil {
		return fmt.Errorf("begin: %w", mapErr(err))
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if err := fn(&Tx{tx: tx, q: d.q}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", mapErr(err))
	}
	return nil
}

// InTxRetrying is InTx for a transaction that takes row locks across
// tables other writers lock in their own order (River's completer and
// producer lock river_job rows; serve's turns lock memories): PostgreSQL
// ends one of two deadlocked transactions (40P01), or a serialization
// failure (40001), and asks that it be run again. fn runs again from the
// start, up to four times in all, so it must keep no state across calls
// except what it resets at its own start.
func (d *DB) InTxRetrying(ctx context.Context, fn func(tx *Tx) error) error {
	const attempts = 4
	for i := 1; ; i++ {
		err := d.InTx(ctx, fn)
		if err == nil || i == attempts || !retryable(err) {
			return err
		}
		t := time.NewTimer(time.Duration(i*i) * 10 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// retryable says whether PostgreSQL asked for the transaction to be run
// again: a deadlock or a serialization failure.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001")
}

// InTxRelaxed is InTx for writes a crash may lose without harm: its commit
// does not wait for the WAL to reach the disk (synchronous_commit off for
// this transaction alone). A post's move from its durable arrival into
// River qualifies (a crash that loses the move loses its mark too, so the
// arrival is moved again), and so do its turn record, its lease and its
// attempt count: its inbox job runs it again and writes them again; and the
// turn's next durable commit (its decided answer, before anything is
// posted) flushes them anyway. Nothing a person was told about,
// and nothing only this transaction holds, may be written this way. On a
// busy disk each flush saved is milliseconds on the way to the model.
func (d *DB) InTxRelaxed(ctx context.Context, fn func(tx *Tx) error) error {
	// One round trip: pgx sends a statement without arguments over the
	// simple protocol, which takes both.
	return d.inTx(ctx, pgx.TxOptions{BeginQuery: "BEGIN; SET LOCAL synchronous_commit = off"}, fn)
}

// ErrInvalidText is returned when PostgreSQL refuses text it was given
// (a NUL byte, invalid UTF-8).
var ErrInvalidText = errors.New("text the database can't store")

// mapErr translates driver errors into this package's sentinels, once.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (pg.Code == "22021" || pg.Code == "22P05") {
		return fmt.Errorf("%w: %s", ErrInvalidText, pg.Message)
	}
	return err
}
