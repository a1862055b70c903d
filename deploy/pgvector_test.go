package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pgvectorEnv is a fake Debian machine for scripts/pgvector.sh: a server
// binary that says its version, a pg_config whose sharedir is a temporary
// folder, and apt-get, apt-cache, dpkg-query and id that record their
// arguments in a log and answer as the test says.
type pgvectorEnv struct {
	dir, bindir, share, log string
}

func newPGVectorEnv(t *testing.T, aptHasPackage bool) pgvectorEnv {
	t.Helper()
	dir := t.TempDir()
	e := pgvectorEnv{dir: dir, bindir: filepath.Join(dir, "pg", "bin"), share: filepath.Join(dir, "share"), log: filepath.Join(dir, "calls.log")}
	fakes := filepath.Join(dir, "fakes")
	require.NoError(t, os.MkdirAll(e.bindir, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(e.share, "extension"), 0o755))
	require.NoError(t, os.MkdirAll(fakes, 0o755))
	write := func(path, body string) {
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	}
	write(filepath.Join(e.bindir, "postgres"), `echo "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"`)
	write(filepath.Join(e.bindir, "pg_config"), `echo "`+e.share+`"`)
	rec := `echo "$(basename "$0") $*" >> "` + e.log + `"`
	show := "exit 1"
	if aptHasPackage {
		show = `[ "$2" = postgresql-15-pgvector ] && exit 0; exit 1`
	}
	write(filepath.Join(fakes, "apt-cache"), rec+"\n"+show)
	// Installing the package puts the control file where the server looks.
	write(filepath.Join(fakes, "apt-get"), rec+"\n"+`case "$*" in *install*postgresql-15-pgvector*) touch "`+e.share+`/extension/vector.control";; *" source "*) exit 100;; esac`)
	write(filepath.Join(fakes, "dpkg-query"), rec+"\n"+`case "$*" in *" postgresql-15") echo 15.18-0+deb12u1;; *) exit 1;; esac`)
	write(filepath.Join(fakes, "id"), `echo 0`)
	return e
}

func (e pgvectorEnv) ensure(t *testing.T) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(repoRoot, "scripts", "pgvector.sh"), "ensure", e.bindir)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(e.dir, "fakes")+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e pgvectorEnv) calls(t *testing.T) string {
	b, err := os.ReadFile(e.log)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(b)
}

// make db provides pgvector: nothing is done when the server has it,
// Debian's package is installed where one matches the server, and otherwise
// the server headers are installed at the server's exact version before the
// source is fetched (through a temporary list: never the system's).
func TestPGVectorScript(t *testing.T) {
	t.Parallel()
	t.Run("installed: nothing to do", func(t *testing.T) {
		e := newPGVectorEnv(t, true)
		require.NoError(t, os.WriteFile(filepath.Join(e.share, "extension", "vector.control"), nil, 0o644))
		out, err := e.ensure(t)
		require.NoError(t, err, out)
		require.Empty(t, e.calls(t), "no apt call when the control file is there")
	})
	t.Run("Debian package", func(t *testing.T) {
		e := newPGVectorEnv(t, true)
		out, err := e.ensure(t)
		require.NoError(t, err, out)
		calls := e.calls(t)
		require.Contains(t, calls, "apt-get install -y -qq --no-upgrade postgresql-15-pgvector")
		require.NotContains(t, calls, "source")
		require.FileExists(t, filepath.Join(e.share, "extension", "vector.control"))
	})
	t.Run("build from trixie's source", func(t *testing.T) {
		e := newPGVectorEnv(t, false)
		out, err := e.ensure(t)
		require.Error(t, err, "the fake apt-get has no source to give")
		calls := e.calls(t)
		require.Contains(t, calls, "apt-get install -y -qq --no-upgrade postgresql-server-dev-15=15.18-0+deb12u1", out)
		dev := strings.Index(calls, "postgresql-server-dev-15=")
		src := strings.Index(calls, "source --download-only -qq pgvector")
		require.Positive(t, src, calls)
		require.Less(t, dev, src, "headers first, then the source")
		for _, line := range strings.Split(calls, "\n") {
			if strings.Contains(line, " source ") || (strings.Contains(line, " update") && strings.HasPrefix(line, "apt-get -o")) {
				require.Contains(t, line, "Dir::Etc::SourceList="+os.TempDir(), "a temporary list: %s", line)
				require.Contains(t, line, "Dir::Etc::SourceParts=/dev/null", line)
			}
		}
	})
}
