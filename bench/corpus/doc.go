// Package corpus generates the synthetic workspace the recall benchmarks and
// the query-plan test run on: 2,000 people, hundreds of channels, many
// threads, all four scopes, and short sentences of the kinds people ask a
// bot to remember, each with the retrieval cues a model would write. The
// same seed and size always give the same rows, and Load writes them with
// COPY, so a million rows load in minutes.
//
// It is a benchmark tool: it talks to the driver directly and is never
// linked into the mnemo binary.
package corpus
