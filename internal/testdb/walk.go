package testdb

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-bot/mnemo/internal/harness"
)

// TextColumns lists every column of every table in the database that can
// hold text (text, varchar, json, jsonb, arrays and text search vectors),
// as table.column, from the catalog: a table added later is walked too.
func (d *DB) TextColumns(t harness.TB) []string {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), `
		SELECT c.table_name || '.' || c.column_name
		FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		  AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'tsvector', 'USER-DEFINED')
		ORDER BY 1`)
	if err != nil {
		t.Fatalf("testdb: text columns: %v", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("testdb: text columns: %v", err)
	}
	return out
}

// Find walks every text column (TextColumns) for rows that hold probe,
// case-insensitively, and returns how many rows of each table.column do.
func (d *DB) Find(t harness.TB, probe string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, tc := range d.TextColumns(t) {
		var table, col string
		for i := range tc {
			if tc[i] == '.' {
				table, col = tc[:i], tc[i+1:]
				break
			}
		}
		var n int64
		q := fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s::text ILIKE '%%' || $1 || '%%'`, pgx.Identifier{table}.Sanitize(), pgx.Identifier{col}.Sanitize())
		if err := d.Pool.QueryRow(context.Background(), q, probe).Scan(&n); err != nil {
			t.Fatalf("testdb: find %q in %s: %v", probe, tc, err)
		}
		if n > 0 {
			out[tc] = n
		}
	}
	return out
}

// Tables is the sorted set of tables in a Find result.
func Tables(found map[string]int64) []string {
	set := map[string]bool{}
	for tc := range found {
		for i := range tc {
			if tc[i] == '.' {
				set[tc[:i]] = true
				break
			}
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
