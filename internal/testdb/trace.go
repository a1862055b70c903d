package testdb

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Statement is a named query as the driver sent it, with its arguments and
// the settings of its transaction (its BEGIN): what a plan test explains.
type Statement struct {
	Name, SQL, Settings string
	Args                []any
}

// Recorder is a pgx tracer that keeps every named query (sqlc's "-- name:")
// run on its connections, batched ones included, whose name starts with
// Prefix. Set it as a pool's ConnConfig.Tracer.
type Recorder struct {
	Prefix string

	mu       sync.Mutex
	settings map[*pgx.Conn]string
	got      []Statement
}

var queryName = regexp.MustCompile(`^-- name: (\w+)`)

// Got returns the statements kept so far.
func (r *Recorder) Got() []Statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Statement(nil), r.got...)
}

func (r *Recorder) keep(c *pgx.Conn, sql string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case strings.HasPrefix(sql, "BEGIN"):
		if r.settings == nil {
			r.settings = map[*pgx.Conn]string{}
		}
		r.settings[c] = sql
	case sql == "commit" || sql == "rollback":
		delete(r.settings, c)
	default:
		if m := queryName.FindStringSubmatch(sql); m != nil && strings.HasPrefix(m[1], r.Prefix) {
			r.got = append(r.got, Statement{Name: m[1], SQL: sql, Settings: r.settings[c], Args: args})
		}
	}
}

func (r *Recorder) TraceQueryStart(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.keep(c, d.SQL, d.Args)
	return ctx
}
func (r *Recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *Recorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (r *Recorder) TraceBatchQuery(_ context.Context, c *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.keep(c, d.SQL, d.Args)
}
func (r *Recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
