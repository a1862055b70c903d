package main

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// tableExists says whether the test database has the table.
func tableExists(t *testing.T, d *testdb.DB, name string) bool {
	t.Helper()
	var ok bool
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT to_regclass($1) IS NOT NULL", name).Scan(&ok))
	return ok
}

// TestMigrateUpStatusAndDownTo rolls back past migration 3 (which creates
// memory_events) and 1 (memories), and holds for any later migrations.
func TestMigrateUpStatusAndDownTo(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	env := map[string]string{"DATABASE_URL": d.URL}
	files, err := fs.Glob(db.Migrations(), "*.sql")
	require.NoError(t, err)
	var versions []int // fs.Glob sorts, and the names are zero-padded
	for _, f := range files {
		v, err := strconv.Atoi(f[:strings.IndexByte(f, '_')])
		require.NoError(t, err, f)
		versions = append(versions, v)
	}
	n := len(versions)
	require.Equal(t, []int{1, 2, 3}, versions[:3])
	// rolledBack is what down-to prints: the applied versions above to,
	// newest first.
	rolledBack := func(to int) string {
		var b strings.Builder
		for i := n - 1; i >= 0 && versions[i] > to; i-- {
			fmt.Fprintf(&b, "rolled back: %d\n", versions[i])
		}
		return b.String()
	}

	code, out, errs := mnemoRun(t, env, "migrate", "status")
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^1\s+applied\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+00001_init\.sql$`, out)
	require.Regexp(t, `(?m)^3\s+applied\s+.*00003_memory_trust\.sql$`, out)
	require.Regexp(t, fmt.Sprintf(`\n%d applied, 0 pending; River's schema: version (\d+) of (\d+)\n`, n), out)
	m := regexpFind(t, `version (\d+) of (\d+)`, out)
	require.Equal(t, m[1], m[2], "River is up to date")
	require.True(t, tableExists(t, d, "memory_events"), "positive control: migration 3's table is there")

	code, out, errs = mnemoRun(t, env, "migrate", "down-to", "2")
	require.Equal(t, 0, code, errs)
	require.Equal(t, rolledBack(2), out)
	require.False(t, tableExists(t, d, "memory_events"))
	require.True(t, tableExists(t, d, "memories"))
	_, out, _ = mnemoRun(t, env, "migrate", "status")
	require.Regexp(t, `(?m)^3\s+pending\s+-\s+00003_memory_trust\.sql$`, out)
	require.Contains(t, out, fmt.Sprintf("2 applied, %d pending", n-2))

	code, out, _ = mnemoRun(t, env, "migrate", "down-to", "2")
	require.Equal(t, 0, code)
	require.Equal(t, "nothing to roll back: no migration after 2 is applied\n", out)

	code, out, errs = mnemoRun(t, env, "migrate", "down-to", "0")
	require.Equal(t, 0, code, errs)
	require.Equal(t, "rolled back: 2\nrolled back: 1\n", out)
	require.False(t, tableExists(t, d, "memories"))
	require.True(t, tableExists(t, d, "river_job"), "River's migrations stay applied")

	for _, c := range []struct{ version, want string }{
		{"2", "migration 2 is not applied, so there is nothing to roll back to"},
		{"999", "there is no migration 999"},
	} {
		code, _, errs = mnemoRun(t, env, "migrate", "down-to", c.version)
		require.Equal(t, 1, code)
		require.Contains(t, errs, c.want)
	}

	// --help explains and migrates nothing.
	code, out, _ = mnemoRun(t, env, "migrate", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "usage: mnemo migrate")
	require.False(t, tableExists(t, d, "memories"), "migrate --help ran no migration")

	// migrate without a subcommand is up, as make run calls it.
	code, out, errs = mnemoRun(t, env, "migrate")
	require.Equal(t, 0, code, errs)
	require.Equal(t, fmt.Sprintf("migrations applied: %d\n", n), out)
	require.True(t, tableExists(t, d, "memory_events"))
	code, out, _ = mnemoRun(t, env, "migrate", "up")
	require.Equal(t, 0, code)
	require.Equal(t, "migrations applied: 0\n", out)
	_, out, _ = mnemoRun(t, env, "migrate", "status")
	require.Contains(t, out, fmt.Sprintf("%d applied, 0 pending", n))
}

func regexpFind(t *testing.T, pattern, s string) []string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	require.NotNil(t, m, "%q in %q", pattern, s)
	return m
}
