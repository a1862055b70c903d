// Package ops is what an operator reads from a running mnemo: /healthz,
// /readyz and Prometheus /metrics on one HTTP listener (MNEMO_HTTP_ADDR),
// and the metrics themselves, in a registry of their own. Metrics
// implements the small observer interfaces that slackapp and agent define,
// and wraps an llm.Model to count its calls, so those packages never import
// Prometheus. It imports llm only.
package ops
