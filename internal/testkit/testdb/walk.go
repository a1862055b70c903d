package testdb

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
)

// Column is one column a walk reads.
type Column struct {
	Schema, Table, Name string
	// Type is the column's type as the catalog names it (text, jsonb,
	// bytea, text[], an enum…).
	Type string
}

// String is table.column, or schema.table.column outside the search path's
// first schema.
func (c Column) String() string {
	if c.Schema == "" {
		return c.Table + "." + c.Name
	}
	return c.Schema + "." + c.Table + "." + c.Name
}

// TextColumns lists, from the catalog, every column of every table in
// every schema of the database (River's included, system schemas not) whose
// type can hold text or an identifier: strings, json and jsonb, bytea,
// arrays, text search vectors, enums and other types of their own. A table
// or column added later is walked without editing a test.
func (d *DB) TextColumns(t harness.TB) []Column {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), `
		SELECT CASE WHEN n.nspname = current_schema() THEN '' ELSE n.nspname END, c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
		FROM pg_catalog.pg_attribute a
		JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
		WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
		  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'
		  -- S string, U user-defined (json, jsonb, bytea, tsvector, uuid…),
		  -- A array, E enum, X unknown; not numbers, booleans or times.
		  AND ty.typcategory IN ('S', 'U', 'A', 'E', 'X')
		ORDER BY n.nspname, c.relname, a.attnum`)
	if err != nil {
		t.Fatalf("testdb: text columns: %v", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Column, error) {
		var c Column
		err := r.Scan(&c.Schema, &c.Table, &c.Name, &c.Type)
		return c, err
	})
	if err != nil {
		t.Fatalf("testdb: text columns: %v", err)
	}
	return out
}

// Walk is what one walk of the text columns read.
type Walk struct {
	Tables, Columns int
}

// Walked counts the tables and columns TextColumns lists.
func (d *DB) Walked(t harness.TB) Walk {
	t.Helper()
	cols := d.TextColumns(t)
	tables := map[string]bool{}
	for _, c := range cols {
		tables[c.Schema+"."+c.Table] = true
	}
	return Walk{Tables: len(tables), Columns: len(cols)}
}

// Find walks every text column (TextColumns) for rows that hold probe,
// case-insensitively, and returns how many rows of each table.column do. A
// bytea column is read as text where its bytes are text; any other column
// as its text form (a json value, an array, a tsvector's lexemes).
func (d *DB) Find(t harness.TB, probe string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, c := range d.TextColumns(t) {
		table := pgx.Identifier{c.Table}
		if c.Schema != "" {
			table = pgx.Identifier{c.Schema, c.Table}
		}
		col := pgx.Identifier{c.Name}.Sanitize()
		expr := col + "::text"
		if c.Type == "bytea" {
			expr = "encode(" + col + ", 'escape')"
		}
		var n int64
		q := fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s ILIKE '%%' || $1 || '%%'`, table.Sanitize(), expr)
		if err := d.Pool.QueryRow(context.Background(), q, probe).Scan(&n); err != nil {
			t.Fatalf("testdb: find %q in %s: %v", probe, c, err)
		}
		if n > 0 {
			out[c.String()] = n
		}
	}
	return out
}

// FindAll is Find for each probe: where each was found, by probe.
func (d *DB) FindAll(t harness.TB, probes ...string) map[string]map[string]int64 {
	t.Helper()
	out := map[string]map[string]int64{}
	for _, p := range probes {
		if found := d.Find(t, p); len(found) > 0 {
			out[p] = found
		}
	}
	return out
}

// Tables is the sorted set of tables in a Find result.
func Tables(found map[string]int64) []string {
	set := map[string]bool{}
	for tc := range found {
		if i := strings.LastIndexByte(tc, '.'); i > 0 {
			set[tc[:i]] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Columns is the sorted list of table.column in a Find result.
func Columns(found map[string]int64) []string {
	out := make([]string, 0, len(found))
	for tc := range found {
		out = append(out, tc)
	}
	sort.Strings(out)
	return out
}
