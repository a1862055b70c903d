package db_test

import (
	"context"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// definedTwice returns each function, view or trigger that the files of
// fsys (versioned migrations, Up and Down alike, and definitions) create
// more than once, with the files that do.
func definedTwice(t *testing.T, sets ...fs.FS) map[string][]string {
	t.Helper()
	where := map[string][]string{}
	for _, fsys := range sets {
		names, err := fs.Glob(fsys, "*.sql")
		require.NoError(t, err)
		for _, n := range names {
			b, err := fs.ReadFile(fsys, n)
			require.NoError(t, err)
			for _, o := range db.DefinedObjects(string(b)) {
				key := strings.ToLower(o.Kind) + " " + o.Name
				where[key] = append(where[key], n)
			}
		}
	}
	twice := map[string][]string{}
	for k, files := range where {
		if len(files) > 1 {
			twice[k] = files
		}
	}
	return twice
}

// TestEachFunctionHasOneDefinition: a function, view or trigger is created
// in one file, once, so reading or changing it is reading or changing that
// file. A second copy, in a migration or another definition, fails.
func TestEachFunctionHasOneDefinition(t *testing.T) {
	require.Empty(t, definedTwice(t, db.Migrations(), db.Definitions()))

	// The check finds a copy: the ranking defined again in a migration, as
	// 00015 and 00016 once did (Up and Down).
	rank, err := fs.ReadFile(db.Definitions(), "40_recall_rank.sql")
	require.NoError(t, err)
	copied := fstest.MapFS{"00099_rank_again.sql": {Data: []byte("-- +goose Up\n" + string(rank) + "\n-- +goose Down\n" + string(rank))}}
	twice := definedTwice(t, db.Migrations(), db.Definitions(), copied)
	require.Contains(t, twice, "function memory_bm25")
	require.Equal(t, []string{"40_recall_rank.sql", "00099_rank_again.sql", "00099_rank_again.sql"}, twice["function memory_bm25"])
}

// TestVersionedMigrationsHoldNoFunctions: functions, views and triggers
// live in db/definitions, except the one a generated column is computed
// with (memories.search), which the column's migration must create.
func TestVersionedMigrationsHoldNoFunctions(t *testing.T) {
	names, err := fs.Glob(db.Migrations(), "*.sql")
	require.NoError(t, err)
	var found []string
	for _, n := range names {
		b, err := fs.ReadFile(db.Migrations(), n)
		require.NoError(t, err)
		for _, o := range db.DefinedObjects(string(b)) {
			found = append(found, n+": "+o.Name)
		}
	}
	require.Equal(t, []string{
		"00005_recall.sql: memory_search_vector", // memories.search is generated with it
	}, found)
}

func definitionsWith(t *testing.T, edit map[string]func(string) string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	defs, err := db.LoadDefinitions(db.Definitions())
	require.NoError(t, err)
	for _, d := range defs {
		text := d.SQL
		if f, ok := edit[d.Name]; ok {
			text = f(text)
		}
		out[d.Name] = &fstest.MapFile{Data: []byte(text)}
	}
	return out
}

// TestMigrateAppliesADefinitionWhenItChanges: migrate records each
// definition's checksum; a changed definition is applied again (with
// those that require it), an unchanged one is not run.
func TestMigrateAppliesADefinitionWhenItChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	defs, err := db.LoadDefinitions(db.Definitions())
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(defs), 4)

	recorded := func() map[string]string {
		rows, err := d.Pool.Query(ctx, "SELECT name, checksum FROM mnemo_definitions")
		require.NoError(t, err)
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var n, c string
			require.NoError(t, rows.Scan(&n, &c))
			out[n] = c
		}
		require.NoError(t, rows.Err())
		return out
	}
	want := map[string]string{}
	for _, def := range defs {
		want[def.Name] = def.Checksum
	}
	require.Equal(t, want, recorded(), "the template's migrate recorded every definition's checksum")
	require.NoError(t, d.DB.CheckMigrated(ctx))

	prior := func() string {
		var s string
		require.NoError(t, d.Pool.QueryRow(ctx, "SELECT recall_thread_prior()::text").Scan(&s))
		return s
	}
	require.Equal(t, "0.25", prior())

	// Unchanged: not run. A function changed behind migrate's back stays
	// as it is, which a run of its definition would have undone.
	_, err = d.Pool.Exec(ctx, "CREATE OR REPLACE FUNCTION recall_thread_prior() RETURNS numeric LANGUAGE sql IMMUTABLE AS $$ SELECT 0.9 $$")
	require.NoError(t, err)
	_, err = d.DB.Migrate(ctx)
	require.NoError(t, err)
	require.Equal(t, "0.9", prior(), "an unchanged definition was run again")
	applied, err := d.DB.ApplyDefinitionSet(ctx, db.Definitions())
	require.NoError(t, err)
	require.Empty(t, applied)

	// Changed: applied, alone, and its new checksum recorded.
	ranking := definitionsWith(t, map[string]func(string) string{
		"40_recall_rank.sql": func(s string) string { return strings.Replace(s, "SELECT 0.25 $$", "SELECT 0.5 $$", 1) },
	})
	applied, err = d.DB.ApplyDefinitionSet(ctx, ranking)
	require.NoError(t, err)
	require.Equal(t, []string{"40_recall_rank.sql"}, applied)
	require.Equal(t, "0.5", prior())
	changed, err := db.LoadDefinitions(ranking)
	require.NoError(t, err)
	got := recorded()
	for _, def := range changed {
		require.Equal(t, def.Checksum, got[def.Name], def.Name)
	}
	require.NotEqual(t, want["40_recall_rank.sql"], got["40_recall_rank.sql"])
	var stale *db.NotMigratedError
	require.ErrorAs(t, d.DB.CheckMigrated(ctx), &stale, "the database holds a ranking this build does not have")
	require.Equal(t, 1, stale.Definitions)

	// A change of the term weights applies the index that stores them too.
	weights := definitionsWith(t, map[string]func(string) string{
		"10_recall_terms.sql": func(s string) string { return strings.Replace(s, "SELECT 1.2 $$", "SELECT 1.5 $$", 1) },
	})
	applied, err = d.DB.ApplyDefinitionSet(ctx, weights)
	require.NoError(t, err)
	require.Equal(t, []string{"10_recall_terms.sql", "30_recall_index.sql", "40_recall_rank.sql"}, applied)

	// And migrate puts this build's definitions back. (Which it applied is
	// told by the rows it stamped again, not by a time: the template that
	// this database was copied from may have applied them all a moment
	// ago.)
	stamps := func() map[string]time.Time {
		rows, err := d.Pool.Query(ctx, "SELECT name, applied_at FROM mnemo_definitions")
		require.NoError(t, err)
		defer rows.Close()
		out := map[string]time.Time{}
		for rows.Next() {
			var n string
			var at time.Time
			require.NoError(t, rows.Scan(&n, &at))
			out[n] = at
		}
		require.NoError(t, rows.Err())
		return out
	}
	before := stamps()
	_, err = d.DB.Migrate(ctx)
	require.NoError(t, err)
	require.Equal(t, want, recorded())
	require.Equal(t, "0.25", prior())
	var again []string
	for name, at := range stamps() {
		if !at.Equal(before[name]) {
			again = append(again, name)
		}
	}
	sort.Strings(again)
	// The ranking is this build's again since the weights' set applied it;
	// the weights differ, and the index that stores them goes with them.
	require.Equal(t, []string{"10_recall_terms.sql", "30_recall_index.sql"}, again, "only what differed was applied")
	require.NoError(t, d.DB.CheckMigrated(ctx))
}

var constantDef = regexp.MustCompile(`CREATE OR REPLACE FUNCTION (recall_\w+)\(\) RETURNS \w+\nLANGUAGE sql IMMUTABLE PARALLEL SAFE AS \$\$ SELECT ([0-9.]+) \$\$;`)
var constantDoc = regexp.MustCompile("`(recall_\\w+)` = ([0-9.]+)")

// TestHowRecallRanksQuotesTheCode: docs/architecture.md's "How recall
// ranks" states every tunable of the ranking with its value in the code.
func TestHowRecallRanksQuotesTheCode(t *testing.T) {
	code := map[string]string{}
	defs, err := db.LoadDefinitions(db.Definitions())
	require.NoError(t, err)
	for _, d := range defs {
		for _, m := range constantDef.FindAllStringSubmatch(d.SQL, -1) {
			code[m[1]] = m[2]
		}
	}
	require.Contains(t, code, "recall_k1")
	require.Contains(t, code, "recall_thread_prior")

	b, err := os.ReadFile("../docs/architecture.md")
	require.NoError(t, err)
	doc := string(b)
	i := strings.Index(doc, "## How recall ranks")
	require.GreaterOrEqual(t, i, 0, "docs/architecture.md has no section How recall ranks")
	section := doc[i+3:]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	quoted := map[string]string{}
	for _, m := range constantDoc.FindAllStringSubmatch(section, -1) {
		quoted[m[1]] = m[2]
	}
	require.Equal(t, code, quoted)
}
