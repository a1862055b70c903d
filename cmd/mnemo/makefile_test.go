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
