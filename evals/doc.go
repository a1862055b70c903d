// Package evals owns mnemo's scenario evals: memory workflows written as
// YAML, validated at load by the product's own strict timestamp parser, run
// through the real binary (Slack handlers, model, tools, Postgres) against
// the fake Slack, and judged by database assertions that cannot pass
// vacuously and by a rubric. cmd/mnemo-eval runs them; nothing in the mnemo
// binary imports this package. See docs/evals.md.
package evals
