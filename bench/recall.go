package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/memory"
)

// Latency is a timed series of one operation.
type Latency struct {
	N        int
	P50, P95 time.Duration
}

func latencyOf(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return Latency{N: len(s), P50: s[len(s)/2], P95: s[(len(s)*95+99)/100-1]}
}

// RecallResult is recall's latency at one corpus size: auto-recall
// (ForPrompt, with the asker's message) and the recall tool (Search with
// requireMatch, with the model's short query), each beside the ILIKE
// baseline over the same visible rows.
type RecallResult struct {
	Rows         int
	Auto, Tool   Latency
	AutoBaseline Latency
	ToolBaseline Latency
	// List is memory__list (Search with no query); its baseline is the
	// same visible rows, newest first, read with the scope filters as one OR.
	List, ListBaseline Latency
	// Queries that returned nothing, ours and the baseline's.
	AutoEmpty, ToolEmpty, AutoBaseEmpty, ToolBEm int
}

// RecallOptions bounds a recall run.
type RecallOptions struct {
	Warmup int
	// BaselineBudget stops the baseline early (after at least
	// BaselineMin queries), so a slow baseline can't stretch the run.
	BaselineBudget time.Duration
	BaselineMin    int
}

// MeasureRecall times every query through the store, then the baseline.
// Each series runs alone, one query at a time, after a warm-up of the same
// queries.
func MeasureRecall(ctx context.Context, store *memory.Store, pool *pgxpool.Pool, rows int, qs []corpus.Query, o RecallOptions) (RecallResult, error) {
	res := RecallResult{Rows: rows}
	for _, q := range qs[:min(o.Warmup, len(qs))] {
		v := memory.ViewerAt(q.Actor, q.Place)
		if _, err := store.ForPrompt(ctx, v, q.Message); err != nil {
			return res, err
		}
		if _, err := store.Search(ctx, v, q.Tool, 10, true); err != nil {
			return res, err
		}
	}
	var auto, tool []time.Duration
	for _, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		start := time.Now()
		ms, err := store.ForPrompt(ctx, v, q.Message)
		if err != nil {
			return res, fmt.Errorf("auto-recall %q: %w", q.Message, err)
		}
		auto = append(auto, time.Since(start))
		if len(ms) == 0 {
			res.AutoEmpty++
		}
	}
	for _, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		start := time.Now()
		ms, err := store.Search(ctx, v, q.Tool, 10, true)
		if err != nil {
			return res, fmt.Errorf("recall tool %q: %w", q.Tool, err)
		}
		tool = append(tool, time.Since(start))
		if len(ms) == 0 {
			res.ToolEmpty++
		}
	}
	var list []time.Duration
	for _, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		start := time.Now()
		if _, err := store.Search(ctx, v, "", 20, false); err != nil {
			return res, fmt.Errorf("list: %w", err)
		}
		list = append(list, time.Since(start))
	}
	res.Auto, res.Tool, res.List = latencyOf(auto), latencyOf(tool), latencyOf(list)

	conn, err := pool.Acquire(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Release()
	// The baseline runs with JIT off too, so the ratio is the query's, not
	// the server setting's; and planned for each query's own terms, as
	// mnemo's queries whose best plan depends on their arguments are
	// (db/memories.go). Left to the default, the connection's cached
	// statement turned generic after five executions, and its plan (the
	// terms' trigram index ANDed with the scopes') read 612,837 index
	// entries for the listing's match-anything pattern: 1.3 s a listing at
	// a million memories, where the newest-first walk takes 2 ms.
	if _, err := conn.Exec(ctx, "SET jit = off; SET plan_cache_mode = force_custom_plan"); err != nil {
		return res, err
	}
	defer conn.Exec(context.Background(), "RESET jit; RESET plan_cache_mode") //nolint:errcheck
	base := func(text func(corpus.Query) string, limit int, apply bool, empty *int) ([]time.Duration, error) {
		var out []time.Duration
		start := time.Now()
		for _, q := range qs[:min(o.Warmup, len(qs))] {
			if time.Since(start) > o.BaselineBudget/4 {
				break
			}
			if _, err := ILIKEBaseline(ctx, conn.Conn(), q, text(q), limit, apply); err != nil {
				return nil, err
			}
		}
		start = time.Now()
		for i, q := range qs {
			if i >= o.BaselineMin && time.Since(start) > o.BaselineBudget {
				break
			}
			t := time.Now()
			n, err := ILIKEBaseline(ctx, conn.Conn(), q, text(q), limit, apply)
			if err != nil {
				return nil, err
			}
			out = append(out, time.Since(t))
			if n == 0 {
				*empty++
			}
		}
		return out, nil
	}
	ab, err := base(func(q corpus.Query) string { return q.Message }, memory.PromptMemories*2, true, &res.AutoBaseEmpty)
	if err != nil {
		return res, fmt.Errorf("baseline: %w", err)
	}
	tb, err := base(func(q corpus.Query) string { return q.Tool }, 10, false, &res.ToolBEm)
	if err != nil {
		return res, fmt.Errorf("baseline: %w", err)
	}
	lb, err := base(func(corpus.Query) string { return "" }, 20, false, new(int))
	if err != nil {
		return res, fmt.Errorf("baseline: %w", err)
	}
	res.AutoBaseline, res.ToolBaseline, res.ListBaseline = latencyOf(ab), latencyOf(tb), latencyOf(lb)
	return res, nil
}

// ILIKEBaseline is the lexical approach common in this field: the rows the
// asker may see (the same scope filters as the recall query, written as
// one OR), that contain any query term (ILIKE), newest first. It returns
// how many rows it found.
func ILIKEBaseline(ctx context.Context, conn *pgx.Conn, q corpus.Query, text string, limit int, apply bool) (int, error) {
	terms := baselineTerms(text)
	if len(terms) == 0 {
		terms = []string{"%"} // no query: every visible row, newest first
	}
	v := memory.ViewerAt(q.Actor, q.Place)
	rows, err := conn.Query(ctx, `
		SELECT m.id, m.content FROM memories m
		WHERE m.team_id = $1 AND m.archived_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
		  AND ((m.scope = 'personal' AND m.subject_id = $2
		        AND (m.channel_id = $3 OR (m.sensitive <> '' AND $5 AND NOT $8)
		             OR (m.sensitive = '' AND (m.visibility = 'public' OR $5 OR ($8 AND m.kind = 'preference')))))
		    OR (m.scope = 'conversation' AND m.source_key = $4)
		    OR (m.scope = 'channel' AND m.channel_id = $3)
		    OR (m.scope = 'workspace' AND (m.channel_id = $3 OR (m.sensitive = '' AND m.visibility = 'public'))))
		  AND m.content ILIKE ANY ($6)
		ORDER BY m.created_at DESC
		LIMIT $7`,
		q.Place.Team, q.Actor.ID, q.Place.Channel, q.Place.SourceKey, v.Private, terms, limit, apply)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

// VisibleRows counts, for each query, the memories the asker may see
// there (the baseline's WHERE clause without the terms): what a recall
// that scored every visible row would score.
func VisibleRows(ctx context.Context, pool *pgxpool.Pool, qs []corpus.Query) (p50, p95 int, err error) {
	var counts []int
	for _, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		var n int
		err := pool.QueryRow(ctx, `
			SELECT count(*) FROM memories m
			WHERE m.team_id = $1 AND m.archived_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
			  AND ((m.scope = 'personal' AND m.subject_id = $2
			        AND (m.channel_id = $3 OR (m.sensitive = '' AND (m.visibility = 'public' OR $5 OR m.kind = 'preference'))))
			    OR (m.scope = 'conversation' AND m.source_key = $4)
			    OR (m.scope = 'channel' AND m.channel_id = $3)
			    OR (m.scope = 'workspace' AND (m.channel_id = $3 OR (m.sensitive = '' AND m.visibility = 'public'))))`,
			q.Place.Team, q.Actor.ID, q.Place.Channel, q.Place.SourceKey, v.Private).Scan(&n)
		if err != nil {
			return 0, 0, err
		}
		counts = append(counts, n)
	}
	if len(counts) == 0 {
		return 0, 0, nil
	}
	slices.Sort(counts)
	return counts[len(counts)/2], counts[(len(counts)*95+99)/100-1], nil
}

// baselineTerms are the query's words of three letters or more, without
// the commonest English words, as ILIKE patterns.
func baselineTerms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 3 || stopWords[w] {
			continue
		}
		out = append(out, "%"+w+"%")
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out has him his how its may new now
		own see two who did get let put say she too use what when where which while with would could should this that these
		those there their them they then than from have here into just like more most much must only over same some such
		very will your about after again also been being both each does doing down during further few if me my myself
		nor off once other ought ourselves please right yourselves`) {
		m[w] = true
	}
	return m
}()
