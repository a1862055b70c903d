package main

import (
	"os"
	"testing"
)

// TestMain runs the mnemo command itself, as main does, when the test
// binary is started with MNEMO_TEST_MAIN=1, so tests can drive it as a
// subprocess (mcp over stdio, chat in a terminal).
func TestMain(m *testing.M) {
	if os.Getenv("MNEMO_TEST_MAIN") == "1" {
		os.Exit(mainProcess())
	}
	code := m.Run()
	removeFaultBinary()
	os.Exit(code)
}
