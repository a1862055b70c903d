// Package bench is `make bench`: it seeds corpora (bench/corpus), times
// recall, remember and tool search beside their baselines, scores
// retrieval on a labelled corpus, and writes one table to
// bench/RESULTS.md. cmd/mnemo-bench runs it. It is a benchmark tool, never
// linked into the mnemo binary.
package bench
