package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mnemoRun runs the command line in process and returns its exit code,
// stdout and stderr.
func mnemoRun(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// closedPortURL is a well-formed DATABASE_URL on which nothing listens:
// a command that touches the database with it fails with a connection
// error.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "postgres://mnemo:secret@" + addr + "/mnemo?sslmode=disable&connect_timeout=5"
}

func TestHelpAtEveryLevelGoesToStdoutAndExitsZero(t *testing.T) {
	t.Parallel()
	// Nothing listens at this database: a command that went past its help
	// would fail.
	env := map[string]string{"DATABASE_URL": closedPortURL(t)}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "usage: mnemo <command>"},
		{[]string{"--help"}, "usage: mnemo <command>"},
		{[]string{"help"}, "usage: mnemo <command>"},
		{[]string{"serve", "--help"}, "usage: mnemo serve"},
		{[]string{"serve", "-h"}, "usage: mnemo serve"},
		{[]string{"migrate", "--help"}, "usage: mnemo migrate"},
		{[]string{"migrate", "status", "-h"}, "usage: mnemo migrate"},
		{[]string{"migrate", "down-to", "--help"}, "usage: mnemo migrate down-to VERSION"},
		{[]string{"chat", "-h"}, "usage: mnemo chat"},
		{[]string{"mcp", "-h"}, "usage: mnemo mcp"},
		{[]string{"memories", "-h"}, "usage: mnemo memories list"},
		{[]string{"memories", "list", "-h"}, "usage: mnemo memories list"},
		{[]string{"tools", "-h"}, "usage: mnemo tools list"},
		{[]string{"tools", "list", "-h"}, "usage: mnemo tools list"},
		{[]string{"tools", "list", "--help"}, "--source"},
		{[]string{"eval", "-h"}, "usage: mnemo eval"},
		{[]string{"eval", "--live", "--help"}, "usage: mnemo eval"},
		{[]string{"version", "-h"}, "usage: mnemo version"},
		{[]string{"help", "serve"}, "usage: mnemo serve"},
		{[]string{"help", "tools", "list"}, "usage: mnemo tools list"},
		{[]string{"help", "env"}, "DATABASE_URL"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errs := mnemoRun(t, env, c.args...)
			require.Equal(t, 0, code, errs)
			require.Contains(t, out, c.want)
			require.Empty(t, errs, "help is not an error")
		})
	}
	// Positive control: without -h the same database makes commands fail.
	code, _, errs := mnemoRun(t, env, "migrate", "status")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "connect")
}

func TestServeHelpAndHelpEnvListEveryVariable(t *testing.T) {
	t.Parallel()
	_, serveHelp, _ := mnemoRun(t, nil, "serve", "--help")
	_, envHelp, _ := mnemoRun(t, nil, "help", "env")
	for _, out := range []string{serveHelp, envHelp} {
		for _, v := range Variables {
			require.Regexp(t, "(?m)^  "+v.Name+"(  \\(|$)", out, "every variable is listed")
			require.Contains(t, out, v.Meaning, v.Name)
			if d := v.DefaultText(); d != "" {
				require.Contains(t, out, "default: "+d, v.Name)
			}
			if len(v.Required) > 0 {
				require.Contains(t, out, "required by "+strings.Join(v.Required, ", "), v.Name)
			}
		}
	}
	require.Contains(t, serveHelp, "  MNEMO_HTTP_ADDR  (default: 127.0.0.1:9464)\n      where serve answers /healthz, /readyz and /metrics\n")
}

// commands are the commands that read the configuration.
var commands = []string{"serve", "chat", "migrate", "mcp", "memories", "eval", "tools"}

// Every variable LoadConfig reads is in Variables, and every one there is
// read: the help can't forget a setting or document a dead one.
func TestEveryVariableIsDocumented(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	for _, provider := range []string{"anthropic", "openai"} {
		for _, cmd := range commands {
			_, _ = LoadConfig(func(k string) string {
				read[k] = true
				if k == "MNEMO_LLM_PROVIDER" {
					return provider
				}
				return ""
			}, cmd)
		}
	}
	var documented []string
	for _, v := range Variables {
		documented = append(documented, v.Name)
	}
	var got []string
	for k := range read {
		got = append(got, k)
	}
	require.ElementsMatch(t, documented, got)
}

// The Required column of Variables is what LoadConfig enforces, command by
// command: from a complete environment, dropping a variable fails exactly
// the commands that list it.
func TestRequiredColumnIsWhatLoadConfigEnforces(t *testing.T) {
	t.Parallel()
	complete := map[string]string{
		"DATABASE_URL": "postgres://u:p@db:5432/mnemo?sslmode=disable", "SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1",
		"MNEMO_LLM_PROVIDER": "openai", "MNEMO_LLM_API_KEY": "sk-1", "MNEMO_MODEL": "gpt",
	}
	required := 0
	for _, cmd := range commands {
		_, err := LoadConfig(env(complete), cmd)
		require.NoError(t, err, "the complete environment serves %s", cmd)
		for _, v := range Variables {
			without := map[string]string{}
			for k, val := range complete {
				if k != v.Name {
					without[k] = val
				}
			}
			_, err := LoadConfig(env(without), cmd)
			failed := err != nil && strings.Contains(err.Error(), v.Name+" is not set")
			require.Equal(t, slices.Contains(v.Required, cmd), failed, "%s without %s: %v", cmd, v.Name, err)
			if failed {
				required++
			}
		}
	}
	require.Equal(t, 14, required, "6 commands need DATABASE_URL, serve the tokens, serve and chat the model's three")
}

// README's configuration table is the one ConfigTable generates from
// Config's tags (`mnemo help env --markdown` prints it).
func TestReadmeConfigurationTableIsGenerated(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Configuration\n")
	require.True(t, ok, "README has a Configuration section")
	section, _, _ = strings.Cut(section, "\n## ")
	start := strings.Index(section, "| variable |")
	require.GreaterOrEqual(t, start, 0, "the section has the table")
	table, _, _ := strings.Cut(section[start:], "\n\n")
	require.Equal(t, ConfigTable(), table+"\n", "regenerate it with: go run ./cmd/mnemo help env --markdown")
	// The table has every variable, with its default and commands.
	require.Contains(t, table, "| MNEMO_HTTP_ADDR | where serve answers /healthz, /readyz and /metrics | `127.0.0.1:9464` |  |\n")
	require.Contains(t, table, "| SLACK_BOT_TOKEN | the Slack app's bot token, xoxb-… |  | serve |\n")
	require.Equal(t, len(Variables)+2, strings.Count(table, "\n")+1)
}

func TestConfigChecksEveryValueBeforeStarting(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(env(map[string]string{
		"DATABASE_URL":           "mysql://mnemo:hunter2@db/mnemo",
		"MNEMO_HTTP_ADDR":        "9464",
		"MNEMO_MAX_TURNS":        "0",
		"MNEMO_SHUTDOWN_TIMEOUT": "soon",
		"MNEMO_LOG_LEVEL":        "loud",
	}), "migrate")
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		"DATABASE_URL is not a PostgreSQL connection string", "expected the form postgres://user:pass@host:5432/db?sslmode=disable",
		`MNEMO_HTTP_ADDR must be host:port, like 127.0.0.1:9464, not "9464"`, "MNEMO_MAX_TURNS", "MNEMO_SHUTDOWN_TIMEOUT", "MNEMO_LOG_LEVEL",
	} {
		require.Contains(t, msg, want)
	}
	require.NotContains(t, msg, "hunter2", "the URL's password is never echoed")

	// serve lists the same problems and starts nothing: no log line at all.
	code, _, errs := mnemoRun(t, map[string]string{
		"DATABASE_URL": "postgres://mnemo:hunter2@db:notaport/mnemo", "SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1",
		"MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_API_KEY": "k", "MNEMO_MODEL": "m", "MNEMO_LOG_LEVEL": "loud",
	}, "serve")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "mnemo serve: configuration:\n  - DATABASE_URL is not a PostgreSQL connection string (invalid port); expected the form postgres://user:pass@host:5432/db?sslmode=disable\n  - MNEMO_LOG_LEVEL")
	require.NotContains(t, errs, `"level"`)
	require.NotContains(t, errs, "hunter2")
}

func TestArgumentErrorsArePrintedOnceAndExitTwo(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": closedPortURL(t)}
	for _, c := range []struct {
		args []string
		want string
		hint string
	}{
		{[]string{"chat", "--bogus"}, "flag provided but not defined: -bogus", "chat"},
		{[]string{"chat", "extra"}, `unexpected argument "extra"`, "chat"},
		{[]string{"chat", "--user"}, "flag needs an argument: -user", "chat"},
		{[]string{"serve", "now"}, `unexpected argument "now"`, "serve"},
		{[]string{"serve", "--port", "1"}, "flag provided but not defined: -port", "serve"},
		{[]string{"migrate", "sideways"}, `unknown subcommand "sideways"; expected up, status, down-to`, "migrate"},
		{[]string{"migrate", "--force"}, "flag provided but not defined: -force", "migrate"},
		{[]string{"migrate", "status", "all"}, `unexpected argument "all"`, "migrate status"},
		{[]string{"migrate", "down-to"}, "down-to needs the VERSION", "migrate down-to"},
		{[]string{"migrate", "down-to", "two"}, `VERSION must be a migration's number, like 2, not "two"`, "migrate down-to"},
		{[]string{"migrate", "down-to", "1", "2"}, `unexpected argument "2"`, "migrate down-to"},
		{[]string{"tools"}, "missing subcommand (usage: mnemo tools list [--source S])", "tools"},
		{[]string{"tools", "show"}, `unknown subcommand "show"; expected list`, "tools"},
		{[]string{"tools", "list", "extra"}, `unexpected argument "extra"`, "tools list"},
		{[]string{"tools", "list", "--sauce", "x"}, "flag provided but not defined: -sauce", "tools list"},
		{[]string{"memories", "list", "--json", "U1"}, `unexpected argument "U1"`, "memories list"},
		{[]string{"memories", "list", "--json", "--table"}, "--json and --table are two formats: pass one", "memories list"},
		{[]string{"mcp", "--user", "U1", "--team", "T1", "extra"}, `unexpected argument "extra"`, "mcp"},
		{[]string{"version", "2"}, `unexpected argument "2"`, "version"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errs := mnemoRun(t, env, c.args...)
			require.Equal(t, 2, code, errs)
			require.Empty(t, out)
			require.Equal(t, 1, strings.Count(errs, c.want), "printed once:\n%s", errs)
			require.True(t, strings.HasSuffix(errs, "Run 'mnemo "+c.hint+" -h' for usage.\n"), errs)
			require.NotContains(t, errs, "connect", "the database is not touched")
		})
	}
	code, _, errs := mnemoRun(t, env, "frobnicate")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `unknown command "frobnicate"`)
}
