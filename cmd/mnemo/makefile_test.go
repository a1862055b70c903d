package main

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// MNEMO_PG_PORT moves the local cluster (scripts/db.sh) and the
// DATABASE_URL make gives every command with it, so two clones on one
// machine do not collide.
func TestMakeHonoursMNEMO_PG_PORT(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	databaseURL := func(env ...string) string {
		cmd := exec.Command("make", "-C", "../..", "-n", "-p", "db")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		m := regexp.MustCompile(`(?m)^DATABASE_URL := (.*)$`).FindSubmatch(out)
		require.NotNil(t, m, "make's database names DATABASE_URL")
		return string(m[1])
	}
	require.Equal(t, "postgres://postgres@127.0.0.1:54329/mnemo?sslmode=disable", databaseURL(), "the default port")
	require.Equal(t, "postgres://postgres@127.0.0.1:54401/mnemo?sslmode=disable", databaseURL("MNEMO_PG_PORT=54401"))
}

// The benches time the local cluster in huge pages (scripts/db.sh
// hugepages; docs/scale.md, "Huge pages"), and leave a server that
// DATABASE_URL names as it is.
func TestBenchesMoveTheLocalClusterIntoHugePages(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dryRun := func(target string, env ...string) string {
		cmd := exec.Command("make", "-C", "../..", "-n", target)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	for _, target := range []string{"bench", "bench-serve", "bench-vector"} {
		require.Contains(t, dryRun(target), "./scripts/db.sh hugepages", target)
		require.NotContains(t, dryRun(target, "DATABASE_URL=postgres://elsewhere/mnemo"), "scripts/db.sh", target)
	}
	require.NotContains(t, dryRun("test"), "hugepages", "make test runs in whatever pages the machine has")
}
