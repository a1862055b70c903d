package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchSource is an MCP-like provider that lists the same tools every time,
// as a connected mcp.Source does until it reconnects.
type benchSource struct {
	name  string
	tools []Tool
}

func (s *benchSource) SourceName() string { return "mcp:" + s.name }
func (s *benchSource) Summary() string    { return "tools of the MCP server " + s.name }
func (s *benchSource) Tools(context.Context) ([]Tool, error) {
	return s.tools, nil
}

var benchServers = []struct {
	name  string
	nouns []string
}{
	{"github", []string{"issue", "pull_request", "repository", "branch", "commit", "release", "workflow_run", "gist", "review_comment", "label"}},
	{"jira", []string{"issue", "sprint", "board", "epic", "worklog", "component", "version", "filter", "transition", "attachment"}},
	{"slack", []string{"message", "channel", "thread_reply", "reaction", "user_profile", "reminder", "bookmark", "file", "user_group", "scheduled_message"}},
	{"gdrive", []string{"file", "folder", "permission", "comment", "revision", "shared_drive", "spreadsheet", "document", "presentation", "shortcut"}},
	{"postgres", []string{"table", "query", "index", "schema", "view", "role", "extension", "connection", "slow_query", "vacuum_job"}},
	{"kubernetes", []string{"pod", "deployment", "service", "namespace", "config_map", "secret", "ingress", "node", "cron_job", "persistent_volume"}},
	{"aws", []string{"s3_bucket", "ec2_instance", "lambda_function", "iam_role", "cloudwatch_alarm", "rds_snapshot", "sqs_queue", "route53_record", "ecs_task", "kms_key"}},
	{"sentry", []string{"error_event", "issue", "project", "release", "alert_rule", "team", "replay", "transaction", "dsn_key", "source_map"}},
	{"datadog", []string{"monitor", "dashboard", "metric", "log_query", "incident", "slo", "synthetic_test", "downtime", "notebook", "trace"}},
	{"notion", []string{"page", "database", "block", "comment", "user", "property", "template", "workspace", "view", "relation"}},
	{"linear", []string{"issue", "project", "cycle", "team", "label", "comment", "milestone", "roadmap", "triage_item", "workflow_state"}},
	{"stripe", []string{"customer", "invoice", "subscription", "payment_intent", "refund", "product", "price", "coupon", "payout", "dispute"}},
	{"pagerduty", []string{"incident", "schedule", "escalation_policy", "service", "on_call", "maintenance_window", "alert", "responder", "priority", "postmortem"}},
	{"confluence", []string{"page", "space", "blog_post", "attachment", "comment", "label", "template", "content_property", "restriction", "whiteboard"}},
	{"gcal", []string{"event", "calendar", "attendee", "reminder", "free_busy", "room", "working_location", "recurrence", "acl_rule", "color"}},
	{"gmail", []string{"message", "draft", "thread", "label", "filter", "attachment", "contact", "signature", "forwarding_address", "vacation_responder"}},
	{"figma", []string{"file", "frame", "component", "comment", "style", "variable", "prototype", "version", "team_library", "dev_resource"}},
	{"vercel", []string{"deployment", "project", "domain", "env_variable", "alias", "log_drain", "edge_config", "team_member", "build_log", "preview_url"}},
	{"cloudflare", []string{"dns_record", "zone", "worker", "kv_namespace", "r2_bucket", "firewall_rule", "page_rule", "certificate", "tunnel", "cache_purge"}},
	{"zendesk", []string{"ticket", "user", "organization", "macro", "view", "trigger", "article", "satisfaction_rating", "group", "sla_policy"}},
}

var benchVerbs = []struct{ verb, phrase string }{
	{"list", "List %s items, newest first, with paging."},
	{"get", "Get one %s by its id, with every field."},
	{"create", "Create a new %s from the given fields."},
	{"update", "Update fields of an existing %s; fields left out keep their value."},
	{"delete", "Delete a %s permanently. This cannot be undone."},
	{"search", "Search %s records by free text and filters."},
	{"archive", "Archive a %s so it no longer shows in default listings."},
	{"export", "Export %s data as CSV or JSON for reporting."},
	{"count", "Count %s records that match the filters."},
	{"watch", "Subscribe to changes of a %s and receive notifications."},
}

var benchFiller = []string{
	"Requires the read scope of the connected account.",
	"Results are limited to what the token can see.",
	"Timestamps are RFC 3339 in UTC.",
	"Use the cursor from the previous page to continue.",
	"Rate limited to 60 requests per minute per workspace.",
	"Returns an error when the caller lacks permission.",
	"Supports filtering by owner, status, created and updated dates.",
	"Large results are truncated; narrow the filters to see more.",
	"Identifiers are opaque strings; do not parse them.",
	"Changes are audited and attributed to the service account.",
}

var benchParams = []string{"id", "query", "owner", "status", "cursor", "limit", "created_after", "updated_before", "project_id", "assignee", "title", "body", "labels", "priority", "region", "namespace", "environment", "dry_run", "include_archived", "sort_order"}

// benchCatalog builds 20 MCP-like sources of 100 tools each, the same every
// run.
func benchCatalog(tb testing.TB) *Registry {
	tb.Helper()
	rng := rand.New(rand.NewPCG(7, 42))
	reg := NewRegistry()
	handler := func(context.Context, Invocation, json.RawMessage) (any, error) { return nil, nil }
	for _, srv := range benchServers {
		src := &benchSource{name: srv.name}
		for _, noun := range srv.nouns {
			words := strings.ReplaceAll(noun, "_", " ")
			for _, v := range benchVerbs {
				desc := fmt.Sprintf(v.phrase, words) + " " + benchFiller[rng.IntN(len(benchFiller))] + " " + benchFiller[rng.IntN(len(benchFiller))]
				if rng.IntN(3) == 0 {
					desc += "\n\nDetails: works on " + srv.name + " " + words + " objects; see the " + srv.name + " API reference for every field."
				}
				props := map[string]any{}
				for range 2 + rng.IntN(5) {
					p := benchParams[rng.IntN(len(benchParams))]
					props[p] = map[string]any{"type": "string", "description": "The " + strings.ReplaceAll(p, "_", " ") + "."}
				}
				schema, err := json.Marshal(map[string]any{"type": "object", "properties": props})
				if err != nil {
					tb.Fatal(err)
				}
				// Named as mcp.ToolName names a server's tools.
				src.tools = append(src.tools, Tool{
					Name: "mcp__" + srv.name + "__" + v.verb + "_" + noun, Source: src.SourceName(), Description: desc,
					InputSchema: schema, Exposure: Deferred, Handler: handler,
				})
			}
		}
		if err := reg.AddProvider(src); err != nil {
			tb.Fatal(err)
		}
	}
	return reg
}

// benchQueries rotate through what a model asks the catalog for.
var benchQueries = []string{
	`{"query":"create issue"}`,
	`{"query":"list pull requests","max_results":10}`,
	`{"query":"search messages in a channel"}`,
	`{"query":"restart deployment pod"}`,
	`{"query":"refund invoice customer","max_results":3}`,
	`{"query":"slow query postgres"}`,
	`{"query":"who is on call","source":"mcp:pagerduty"}`,
	`{"query":"calendar event attendees"}`,
	`{"query":"dns record","source":"mcp:cloudflare"}`,
	`{"query":"export dashboard metrics"}`,
	`{"query":"delete secret namespace"}`,
	`{"query":"archive page"}`,
	`{"source":"mcp:github","max_results":20}`,
	`{"query":"upload attachment to ticket"}`,
	`{"query":"s3 bucket lifecycle"}`,
	`{"query":"sprint board transition"}`,
	`{"query":"alert incident escalation"}`,
	`{"query":"draft email reply thread"}`,
	`{"query":"preview url build log","source":"mcp:vercel"}`,
	`{}`,
}

// naiveSearch is the baseline: lowercase every tool's name and description
// and keep those containing a query word, most words first.
func naiveSearch(list []Tool, query string, n int) []string {
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		name  string
		score int
	}
	var hits []hit
	for _, t := range list {
		text := strings.ToLower(t.Name + " " + t.Description)
		s := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				s++
			}
		}
		if s > 0 {
			hits = append(hits, hit{t.Name, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	out := make([]string, 0, n)
	for i := 0; i < len(hits) && i < n; i++ {
		out = append(out, hits[i].name)
	}
	return out
}

func benchAllTools(tb testing.TB, reg *Registry) []Tool {
	tb.Helper()
	var all []Tool
	for _, p := range reg.providers {
		list, err := p.Tools(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, list...)
	}
	return all
}

func benchQueryText(raw string) string {
	var q struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal([]byte(raw), &q)
	return q.Query
}

func searchOnce(tb testing.TB, reg *Registry, raw string) {
	res := reg.Call(context.Background(), Invocation{}, SearchToolsName, json.RawMessage(raw))
	if res.IsError {
		tb.Fatal(res.Content)
	}
}

// TestSearchBenchCatalogFindsWhatItIsAskedFor keeps the benchmark honest:
// its queries find the tools they are about, and so does the baseline.
func TestSearchBenchCatalogFindsWhatItIsAskedFor(t *testing.T) {
	t.Parallel()
	reg := benchCatalog(t)
	for _, c := range []struct {
		query string
		top   string // every result shown has this in its name
		n     int
	}{
		{`{"query":"create issue","max_results":4}`, "create_issue", 4},
		{`{"query":"dns record","source":"mcp:cloudflare"}`, "dns_record", 5},
		{`{"query":"refund","max_results":10}`, "refund", 10},
		{`{"query":"who is on call","source":"mcp:pagerduty"}`, "on_call", 5},
	} {
		res := reg.Call(context.Background(), Invocation{}, SearchToolsName, json.RawMessage(c.query))
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Content), &out), res.Content)
		names := toolNames(out)
		require.Len(t, names, c.n, c.query)
		for _, n := range names {
			require.Contains(t, n, c.top, c.query)
		}
	}
	got := naiveSearch(benchAllTools(t, reg), "refund", 3)
	require.Len(t, got, 3)
	require.Contains(t, got[0], "refund")
}

func BenchmarkSearchTools2000(b *testing.B) {
	reg := benchCatalog(b)
	searchOnce(b, reg, benchQueries[0]) // connect and index, as the first search of a run does
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		searchOnce(b, reg, benchQueries[i%len(benchQueries)])
		i++
	}
}

func BenchmarkSearchToolsNaiveBaseline(b *testing.B) {
	all := benchAllTools(b, benchCatalog(b))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		naiveSearch(all, benchQueryText(benchQueries[i%len(benchQueries)]), 5)
		i++
	}
}

// BenchmarkSearchToolsP95 times 2,000 searches per op, one by one, and
// reports the 95th percentile of a single search beside the naive scan's.
// The two run in separate phases, so neither pays for the other's garbage.
func BenchmarkSearchToolsP95(b *testing.B) {
	const searches = 2000
	reg := benchCatalog(b)
	all := benchAllTools(b, reg)
	searchOnce(b, reg, benchQueries[0])
	p95 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)*95/100])
	}
	timed := func(d []time.Duration, search func(q string)) []time.Duration {
		d = d[:0]
		runtime.GC()
		for i := range searches {
			q := benchQueries[i%len(benchQueries)]
			start := time.Now()
			search(q)
			d = append(d, time.Since(start))
		}
		return d
	}
	var indexed, naive []time.Duration
	for b.Loop() {
		indexed = timed(indexed, func(q string) { searchOnce(b, reg, q) })
		naive = timed(naive, func(q string) { naiveSearch(all, benchQueryText(q), 5) })
	}
	b.ReportMetric(p95(indexed), "p95-ns")
	b.ReportMetric(p95(naive), "naive-p95-ns")
}
