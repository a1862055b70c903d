package corpus

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// Load appends the corpus's rows to the memories table of a migrated
// database. Like a bulk load by hand, it drops the table's secondary
// indexes, writes the rows with COPY over two connections, rebuilds the
// same indexes from their own definitions and analyzes the table: the
// schema afterwards is exactly the migrated one.
func Load(ctx context.Context, pool *pgxpool.Pool, s Spec) error {
	return LoadRows(ctx, pool, s.Rows, s.Row)
}

// LoadRows is Load for rows of the caller's making: row(i) for i in
// [0, n), generated in any order (the LoCoMo benchmark moves the corpus's
// rows into one channel of its own).
func LoadRows(ctx context.Context, pool *pgxpool.Pool, rows int, row func(int) Row) error {
	defs, err := secondaryIndexes(ctx, pool)
	if err != nil {
		return err
	}
	for _, d := range defs {
		if _, err := pool.Exec(ctx, "DROP INDEX "+pgx.Identifier{d.name}.Sanitize()); err != nil {
			return fmt.Errorf("corpus: drop %s: %w", d.name, err)
		}
	}
	// The recall index is built set-wise once the rows are in, not by its
	// triggers row batch by row batch (memory_index_rebuild).
	if _, err := pool.Exec(ctx, "ALTER TABLE memories DISABLE TRIGGER memory_index_insert"); err != nil {
		return fmt.Errorf("corpus: disable the recall index trigger: %w", err)
	}
	const streams = 2
	g, gctx := errgroup.WithContext(ctx)
	for w := range streams {
		g.Go(func() error {
			from, to := rows*w/streams, rows*(w+1)/streams
			i := from
			n, err := pool.CopyFrom(gctx, pgx.Identifier{"memories"}, Columns, pgx.CopyFromFunc(func() ([]any, error) {
				if i == to {
					return nil, nil
				}
				r := row(i)
				i++
				return r.Values(), nil
			}))
			if err != nil {
				return fmt.Errorf("corpus: copy rows %d-%d: %w", from, to, err)
			}
			if int(n) != to-from {
				return fmt.Errorf("corpus: copied %d rows of %d", n, to-from)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, "ALTER TABLE memories ENABLE TRIGGER memory_index_insert"); err != nil {
		return fmt.Errorf("corpus: enable the recall index trigger: %w", err)
	}
	if _, err := pool.Exec(ctx, "SET maintenance_work_mem = '512MB'; SELECT memory_index_rebuild(); RESET maintenance_work_mem"); err != nil {
		return fmt.Errorf("corpus: rebuild the recall index: %w", err)
	}
	// Rebuild on two connections, the slowest (GIN) first.
	jobs := make(chan indexDef, len(defs))
	for _, d := range defs {
		jobs <- d
	}
	close(jobs)
	g, gctx = errgroup.WithContext(ctx)
	for range streams {
		g.Go(func() error {
			conn, err := pool.Acquire(gctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(gctx, "SET maintenance_work_mem = '512MB'"); err != nil {
				return err
			}
			for d := range jobs {
				if _, err := conn.Exec(gctx, d.def); err != nil {
					return fmt.Errorf("corpus: rebuild %s: %w", d.name, err)
				}
			}
			_, err = conn.Exec(gctx, "RESET maintenance_work_mem")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) memories, memory_postings, memory_term_stats, memory_part_stats, memory_vocab"); err != nil {
		return fmt.Errorf("corpus: analyze: %w", err)
	}
	return nil
}

type indexDef struct{ name, def string }

// secondaryIndexes lists the memories indexes that no constraint owns,
// GIN ones first.
func secondaryIndexes(ctx context.Context, pool *pgxpool.Pool) ([]indexDef, error) {
	rows, err := pool.Query(ctx, `
		SELECT i.indexname, i.indexdef FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND i.tablename = 'memories'
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
		ORDER BY (i.indexdef LIKE '%USING gin%') DESC, i.indexname`)
	if err != nil {
		return nil, fmt.Errorf("corpus: indexes: %w", err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (indexDef, error) {
		var d indexDef
		return d, r.Scan(&d.name, &d.def)
	})
	if err != nil {
		return nil, fmt.Errorf("corpus: indexes: %w", err)
	}
	return defs, nil
}
