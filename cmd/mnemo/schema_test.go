package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// tables counts the database's tables, whatever their schema.
func tables(t *testing.T, d *testdb.DB) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')").Scan(&n))
	return n
}

// emptied drops everything migrations made: a database mnemo never saw.
func emptied(t *testing.T) *testdb.DB {
	t.Helper()
	d := testdb.New(t)
	require.Greater(t, tables(t, d), 10, "control: the count sees a migrated schema")
	_, err := d.Pool.Exec(context.Background(), "DROP SCHEMA public CASCADE; CREATE SCHEMA public")
	require.NoError(t, err)
	require.Zero(t, tables(t, d))
	return d
}

// Only migrate (and serve) change the schema: memories, chat and mcp on a
// database that is not migrated say to run mnemo migrate, and create
// nothing.
func TestReadCommandsNeverMigrate(t *testing.T) {
	t.Parallel()
	model := fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: "Hello!"} })
	for _, args := range [][]string{
		{"memories", "list"},
		{"memories", "list", "--table"},
		{"chat"},
		{"mcp", "--user", "U1", "--team", "T1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			d := emptied(t)
			env := map[string]string{
				"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_BASE_URL": model.URL + "/v1",
				"MNEMO_LLM_API_KEY": "sk-test-0123456789abcdef", "MNEMO_MODEL": "gpt-test", "MNEMO_LOG_FILE": "-",
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var out, errOut bytes.Buffer
			code := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader("hello\n"), &out, &errOut)
			require.Equal(t, 1, code, "out:\n%s\nerr:\n%s", out.String(), errOut.String())
			require.Contains(t, errOut.String(), "mnemo "+args[0]+": the database has no mnemo schema yet: run mnemo migrate")
			require.Zero(t, tables(t, d), "nothing was created")

			// Once migrated, the same command runs.
			code, _, errs := mnemoRun(t, env, "migrate")
			require.Equal(t, 0, code, errs)
			if args[0] == "memories" {
				code, _, errs = mnemoRun(t, env, args...)
				require.Equal(t, 0, code, errs)
			}
		})
	}
}

// JSON is memories list's default; --table prints a table for a terminal.
func TestMemoriesListFormats(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	res, err := memory.New(d.DB, memory.Options{}).Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "U1"},
		Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public},
		Scope: memory.ScopePersonal, Content: "Prefers tabs over spaces", WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, res.Status, res.Reason)
	env := map[string]string{"DATABASE_URL": d.URL}
	code, out, errs := mnemoRun(t, env, "memories", "list")
	require.Equal(t, 0, code, errs)
	var ms []memoryJSON
	require.NoError(t, json.Unmarshal([]byte(out), &ms), out)
	require.Len(t, ms, 1)
	require.Equal(t, "Prefers tabs over spaces", ms[0].Content)

	code, table, errs := mnemoRun(t, env, "memories", "list", "--table")
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^ID\s+SCOPE\s+SUBJECT\s+KIND\s+CREATED\s+STATE\s+CONTENT$`, table)
	require.Regexp(t, `(?m)^`+ms[0].ID+`\s+personal\s+user:U1\s+\w+\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+active\s+Prefers tabs over spaces$`, table)
	require.True(t, strings.HasSuffix(table, "\n1 memory\n"), table)
}
