package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

// Repeatable definitions: the functions, views and triggers of the schema
// (recall's engine), one current copy each under definitions/, the way
// Flyway's repeatable migrations work. Versioned migrations hold tables,
// columns and indexes only. Migrate applies the definitions after the
// versioned migrations, in file-name order, each whose checksum differs
// from the one recorded in mnemo_definitions, in one transaction.
//
// A definition's checksum covers its own text and that of every file it
// names in a "-- requires: NAME" line, so a definition that stores what
// another computes (the recall index stores the term weights) is
// re-applied when that one changes.

//go:embed definitions/*.sql
var definitions embed.FS

// Definitions is the embedded set of repeatable definitions, for tools
// that fingerprint it.
func Definitions() fs.FS {
	sub, _ := fs.Sub(definitions, "definitions")
	return sub
}

// Definition is one repeatable definition: its file name, text and
// checksum.
type Definition struct {
	Name     string // e.g. 40_recall_rank.sql
	SQL      string
	Checksum string // hex sha-256 of its text and the texts it requires
}

var requiresLine = regexp.MustCompile(`(?m)^--\s*requires:\s*(.+)$`)

// LoadDefinitions reads the definitions of fsys in the order they apply.
func LoadDefinitions(fsys fs.FS) ([]Definition, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	texts := make(map[string]string, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		texts[n] = string(b)
	}
	defs := make([]Definition, 0, len(names))
	for _, n := range names {
		h := sha256.New()
		fmt.Fprintf(h, "%s\n%s", n, texts[n])
		for _, m := range requiresLine.FindAllStringSubmatch(texts[n], -1) {
			for _, r := range strings.Split(m[1], ",") {
				r = strings.TrimSpace(r)
				t, ok := texts[r]
				if !ok || r >= n {
					return nil, fmt.Errorf("definition %s requires %q, which is not a definition applied before it", n, r)
				}
				fmt.Fprintf(h, "\n%s\n%s", r, t)
			}
		}
		defs = append(defs, Definition{Name: n, SQL: texts[n], Checksum: hex.EncodeToString(h.Sum(nil))})
	}
	return defs, nil
}

const definitionsTable = `CREATE TABLE IF NOT EXISTS mnemo_definitions (
    name       text PRIMARY KEY,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)`

// applyDefinitions applies each definition whose checksum differs from the
// recorded one, in one transaction, and returns the names it applied.
func applyDefinitions(ctx context.Context, conn *sql.Conn) ([]string, error) {
	return applyDefinitionSet(ctx, conn, Definitions())
}

func applyDefinitionSet(ctx context.Context, conn *sql.Conn, fsys fs.FS) ([]string, error) {
	defs, err := LoadDefinitions(fsys)
	if err != nil {
		return nil, fmt.Errorf("definitions: %w", err)
	}
	if _, err := conn.ExecContext(ctx, definitionsTable); err != nil {
		return nil, fmt.Errorf("definitions: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("definitions: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	recorded, err := recordedChecksums(ctx, tx)
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, d := range defs {
		if recorded[d.Name] == d.Checksum {
			continue
		}
		// No arguments: the simple protocol, which runs a file of
		// statements as one.
		if _, err := tx.ExecContext(ctx, d.SQL); err != nil {
			return nil, fmt.Errorf("definition %s: %w", d.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mnemo_definitions (name, checksum) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now()`, d.Name, d.Checksum); err != nil {
			return nil, fmt.Errorf("definition %s: %w", d.Name, err)
		}
		applied = append(applied, d.Name)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("definitions: %w", err)
	}
	return applied, nil
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func recordedChecksums(ctx context.Context, q queryer) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, checksum FROM mnemo_definitions")
	if err != nil {
		return nil, fmt.Errorf("definitions: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, c string
		if err := rows.Scan(&n, &c); err != nil {
			return nil, fmt.Errorf("definitions: %w", err)
		}
		out[n] = c
	}
	return out, rows.Err()
}

// DefinedObject is a function, view or trigger that a definition creates.
type DefinedObject struct {
	Kind  string // FUNCTION, VIEW or TRIGGER
	Name  string
	Table string // a trigger's table
}

var createObject = regexp.MustCompile(`(?im)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?(FUNCTION|PROCEDURE|VIEW|MATERIALIZED\s+VIEW|TRIGGER)\s+([a-z_][a-z0-9_]*)(?:[^;]*?\sON\s+([a-z_][a-z0-9_]*))?`)

// DefinedObjects lists the functions, views and triggers that a text of
// SQL creates, in order; comments are ignored.
func DefinedObjects(text string) []DefinedObject {
	var out []DefinedObject
	for _, m := range createObject.FindAllStringSubmatch(stripComments(text), -1) {
		o := DefinedObject{Kind: strings.ToUpper(strings.Join(strings.Fields(m[1]), " ")), Name: strings.ToLower(m[2])}
		if o.Kind == "TRIGGER" {
			o.Table = strings.ToLower(m[3])
		}
		out = append(out, o)
	}
	return out
}

func stripComments(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if j := strings.Index(l, "--"); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

// dropDefinitions drops every object the definitions create and forgets
// their checksums, so that the next Migrate applies them all.
func dropDefinitions(ctx context.Context, conn *sql.Conn) error {
	defs, err := LoadDefinitions(Definitions())
	if err != nil {
		return fmt.Errorf("definitions: %w", err)
	}
	var objs []DefinedObject
	for _, d := range defs {
		objs = append(objs, DefinedObjects(d.SQL)...)
	}
	slices.Reverse(objs)
	var fns []string
	for _, o := range objs {
		var q string
		switch o.Kind {
		case "TRIGGER":
			q = fmt.Sprintf("DO $$ BEGIN IF to_regclass('%[2]s') IS NOT NULL THEN DROP TRIGGER IF EXISTS %[1]s ON %[2]s; END IF; END $$", o.Name, o.Table)
		case "VIEW", "MATERIALIZED VIEW":
			q = fmt.Sprintf("DROP %s IF EXISTS %s", o.Kind, o.Name)
		default:
			fns = append(fns, o.Name)
			continue
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("definitions: drop %s: %w", o.Name, err)
		}
	}
	// Every overload of each function, found by name.
	if _, err := conn.ExecContext(ctx, `DO $$ DECLARE f regprocedure; BEGIN
		FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
		         WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY(string_to_array('`+strings.Join(fns, ",")+`', ','))
		LOOP EXECUTE 'DROP FUNCTION ' || f::text || ' CASCADE'; END LOOP; END $$`); err != nil {
		return fmt.Errorf("definitions: drop functions: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS mnemo_definitions"); err != nil {
		return fmt.Errorf("definitions: %w", err)
	}
	return nil
}
