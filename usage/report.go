package usage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-bot/mnemo/db"
)

// ReportRequest says whose usage a report shows.
type ReportRequest struct {
	Team string
	// Person is who asks. Unless All, the report is theirs alone.
	Person string
	// All is the whole team's usage, with its top channels and people:
	// admins only (the caller checks).
	All  bool
	Days int
	Now  time.Time
}

// Report writes the usage report of `/mnemo stats` and `mnemo stats`:
// tokens per UTC day, and for an admin the top channels and people, with
// an estimated cost where prices are known.
func Report(ctx context.Context, d *db.DB, prices Prices, r ReportRequest) (string, error) {
	if r.Days <= 0 {
		r.Days = 7
	}
	since := DayStart(r.Now).AddDate(0, 0, -(r.Days - 1))
	person := r.Person
	if r.All {
		person = ""
	}
	days, err := d.Usage().ByDay(ctx, r.Team, person, since)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	who := "your"
	if r.All {
		who = "the workspace's"
	}
	fmt.Fprintf(&b, "Model usage, %s, over the last %d days (UTC, since %s):\n", who, r.Days, since.Format("2006-01-02"))
	if len(days) == 0 {
		b.WriteString("• none\n")
	}
	type total struct {
		in, out, cached, calls int64
		cost                   float64
		priced, unpriced       bool
	}
	add := func(t *total, model string, in, out, cached, calls int64) {
		t.in, t.out, t.cached, t.calls = t.in+in, t.out+out, t.cached+cached, t.calls+calls
		if c, ok := prices.Cost(model, in, out); ok {
			t.cost, t.priced = t.cost+c, true
		} else {
			t.unpriced = true
		}
	}
	costOf := func(t total) string {
		switch {
		case !t.priced:
			return ""
		case t.unpriced:
			return ", ≈ " + dollars(t.cost) + " (some models have no price)"
		}
		return ", ≈ " + dollars(t.cost)
	}
	var order []string
	perDay := map[string]*total{}
	var all total
	for _, u := range days {
		k := u.Day.Format("2006-01-02")
		if perDay[k] == nil {
			perDay[k] = &total{}
			order = append(order, k)
		}
		add(perDay[k], u.Model, u.InputTokens, u.OutputTokens, u.CachedTokens, u.Calls)
		add(&all, u.Model, u.InputTokens, u.OutputTokens, u.CachedTokens, u.Calls)
	}
	for _, k := range order {
		t := perDay[k]
		fmt.Fprintf(&b, "• %s: %s tokens in (%s cached), %s out, %d model calls%s\n", k, thousands(t.in), thousands(t.cached), thousands(t.out), t.calls, costOf(*t))
	}
	if len(order) > 1 {
		fmt.Fprintf(&b, "• total: %s tokens in, %s out, %d model calls%s\n", thousands(all.in), thousands(all.out), all.calls, costOf(all))
	}
	if !r.All {
		return b.String(), nil
	}
	tops := []struct {
		title string
		read  func() ([]db.KeyUsage, error)
		name  func(string) string
	}{
		{"Top channels", func() ([]db.KeyUsage, error) { return d.Usage().TopChannels(ctx, r.Team, since, 50) }, func(k string) string { return "<#" + k + ">" }},
		{"Top people", func() ([]db.KeyUsage, error) { return d.Usage().TopPeople(ctx, r.Team, since, 50) }, func(k string) string { return "<@" + k + ">" }},
	}
	for _, top := range tops {
		rows, err := top.read()
		if err != nil {
			return "", err
		}
		sums := map[string]*total{}
		for _, u := range rows {
			if sums[u.Key] == nil {
				sums[u.Key] = &total{}
			}
			add(sums[u.Key], u.Model, u.InputTokens, u.OutputTokens, 0, 0)
		}
		keys := make([]string, 0, len(sums))
		for k := range sums {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, b := sums[keys[i]], sums[keys[j]]
			if a.in+a.out != b.in+b.out {
				return a.in+a.out > b.in+b.out
			}
			return keys[i] < keys[j]
		})
		if len(keys) > 10 {
			keys = keys[:10]
		}
		fmt.Fprintf(&b, "%s:\n", top.title)
		if len(keys) == 0 {
			b.WriteString("• none\n")
		}
		for _, k := range keys {
			t := sums[k]
			fmt.Fprintf(&b, "• %s: %s tokens in, %s out%s\n", top.name(k), thousands(t.in), thousands(t.out), costOf(*t))
		}
	}
	return b.String(), nil
}

// dollars writes a cost in cents, or finer below a cent.
func dollars(c float64) string {
	if c > 0 && c < 0.01 {
		return fmt.Sprintf("$%.4f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}
