// Package bench is `make bench`: it seeds corpora (bench/corpus), times
// recall, remember and tool search beside their baselines, scores
// retrieval on a labelled corpus and on LoCoMo's public conversations
// (beside a textbook BM25, bench/bm25, and ts_rank_cd), and writes the
// tables to bench/RESULTS.md. cmd/mnemo-bench runs it. It is a benchmark tool, never
// linked into the mnemo binary.
package bench
