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

// RoundTrips is a pgx tracer that counts the round trips made on behalf of
// the contexts Keep accepts: each statement (BEGIN and COMMIT included) is
// one, a batch (pgx.Batch, sent as one pipeline) is one however many
// statements it holds. Preparing a statement a connection has not seen
// before is counted apart (Prepares): it happens once per statement and
// connection. Set it as a pool's ConnConfig.Tracer.
type RoundTrips struct {
	Keep func(ctx context.Context) bool

	mu       sync.Mutex
	trips    []string
	prepares int
}

// Reset forgets what was counted.
func (r *RoundTrips) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trips, r.prepares = nil, 0
}

// Trips returns each round trip counted so far, named by its statement.
func (r *RoundTrips) Trips() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.trips...)
}

// Prepares is how many statements were prepared on a connection first.
func (r *RoundTrips) Prepares() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prepares
}

func (r *RoundTrips) add(ctx context.Context, name string) {
	if r.Keep != nil && !r.Keep(ctx) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trips = append(r.trips, name)
}

// statementName is a statement's sqlc name, or its first words.
func statementName(sql string) string {
	if m := queryName.FindStringSubmatch(sql); m != nil {
		return m[1]
	}
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > 40 {
		sql = sql[:40]
	}
	return sql
}

func (r *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(ctx, statementName(d.SQL))
	return ctx
}
func (r *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var names []string
	if d.Batch != nil {
		for _, q := range d.Batch.QueuedQueries {
			names = append(names, statementName(q.SQL))
		}
	}
	r.add(ctx, "batch["+strings.Join(names, ", ")+"]")
	return ctx
}
func (r *RoundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *RoundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (r *RoundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	if r.Keep == nil || r.Keep(ctx) {
		r.mu.Lock()
		r.prepares++
		r.mu.Unlock()
	}
	return ctx
}
func (r *RoundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}
