// Package evalcheck holds the read-only queries the evals use to check what
// a scenario left behind. Only the evals import it: its queries are not
// linked into the mnemo binary (internal/archtest checks that).
package evalcheck
