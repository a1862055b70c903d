package main

import (
	"context"
	"os"
	"testing"
)

// TestMain runs the mnemo command itself when the test binary is started with
// MNEMO_TEST_MAIN=1, so tests can drive it as a subprocess (mcp over stdio).
func TestMain(m *testing.M) {
	if os.Getenv("MNEMO_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	removeFaultBinary()
	os.Exit(code)
}
