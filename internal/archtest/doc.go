// Package archtest holds the architecture test: it reads mnemo's import
// graph with `go list` and fails when a layering rule is broken. The rules
// are the ones docs/architecture.md draws. It has no code of its own.
package archtest
