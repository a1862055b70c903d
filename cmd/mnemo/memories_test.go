package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// memoriesBundle is a database with a few people's memories in two
// workspaces, and the environment an operator runs mnemo memories in.
type memoriesBundle struct {
	t     *testing.T
	d     *testdb.DB
	store *memory.Store
	env   map[string]string
}

const (
	opAdmin = "U0ADMIN"
	opAlice = "U0ALICE"
	opBob   = "U0BOB"
)

func newMemoriesBundle(t *testing.T) *memoriesBundle {
	t.Helper()
	d := testdb.New(t)
	return &memoriesBundle{t: t, d: d, store: memory.New(d.DB, memory.Options{}), env: map[string]string{"DATABASE_URL": d.URL, "MNEMO_ADMINS": opAdmin}}
}

// remember stores content as said by user in team's channel C1.
func (b *memoriesBundle) remember(team, user string, scope memory.Scope, content string) memory.Memory {
	b.t.Helper()
	res, err := b.store.Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: team, ID: user},
		Place: provenance.Place{Team: team, Channel: "C1", SourceKey: "slack:" + team + ":C1:1800000000.000100", Visibility: provenance.Public},
		Scope: scope, Content: content, WrittenBy: provenance.ByExplicit,
	})
	require.NoError(b.t, err)
	require.Equal(b.t, memory.Stored, res.Status, res.Reason)
	return *res.Memory
}

func (b *memoriesBundle) run(args ...string) (int, string, string) {
	b.t.Helper()
	return mnemoRun(b.t, b.env, append([]string{"memories"}, args...)...)
}

func (b *memoriesBundle) listed(out string) []memoryJSON {
	b.t.Helper()
	var ms []memoryJSON
	require.NoError(b.t, json.Unmarshal([]byte(out), &ms), out)
	return ms
}

func contents(ms []memoryJSON) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Content)
	}
	return out
}

// audits are admin_audit's rows, "actor action target detail", oldest first.
func (b *memoriesBundle) audits() []string {
	b.t.Helper()
	rows, err := b.d.Pool.Query(context.Background(), "SELECT actor_id || ' ' || action || ' ' || target || ' ' || detail FROM admin_audit ORDER BY id")
	require.NoError(b.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(b.t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(b.t, rows.Err())
	return out
}

// search shows what the operator may see, by the rule Slack's /mnemo
// memories follows, and each search is on record.
func TestMemoriesSearchFollowsTheVisibilityRule(t *testing.T) {
	t.Parallel()
	b := newMemoriesBundle(t)
	b.remember("T1", opAlice, memory.ScopePersonal, "Prefers green tea in the morning")
	bob := b.remember("T1", opBob, memory.ScopePersonal, "Prefers black coffee without sugar")
	b.remember("T1", opBob, memory.ScopeChannel, "Deploys to production happen on Fridays after the standup")
	b.remember("T2", opBob, memory.ScopePersonal, "Prefers orange juice at breakfast")
	// A memory the review marked sensitive (the UPDATE below); its words are
	// neutral, since the detectors refuse a health fact said in public.
	secret := b.remember("T1", opBob, memory.ScopePersonal, "Has a standing appointment every Monday afternoon")
	_, err := b.d.Pool.Exec(context.Background(), "UPDATE memories SET sensitive = 'health' WHERE id = $1", secret.ID)
	require.NoError(t, err)

	// The database's own view has the sensitive memory: the search below
	// could find it, and leaves it out.
	code, out, errs := b.run("list", "--team", "T1")
	require.Equal(t, 0, code, errs)
	require.Contains(t, contents(b.listed(out)), "Has a standing appointment every Monday afternoon")

	code, out, errs = b.run("search", "--as", opAdmin, "--team", "T1")
	require.Equal(t, 0, code, errs)
	require.ElementsMatch(t, []string{"Prefers green tea in the morning", "Prefers black coffee without sugar", "Deploys to production happen on Fridays after the standup"}, contents(b.listed(out)),
		"an admin oversees the workspace, but not a sensitive memory said elsewhere, nor another workspace")

	code, out, errs = b.run("search", "--as", opAdmin, "--team", "T1", "--user", opBob, "coffee")
	require.Equal(t, 0, code, errs)
	ms := b.listed(out)
	require.Len(t, ms, 1)
	require.Equal(t, bob.ID.String(), ms[0].ID)

	code, out, errs = b.run("search", "--as", opAdmin, "--team", "T1", "--channel", "C1", "--table")
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^ID\s+SCOPE\s+SUBJECT\s+KIND\s+CREATED\s+STATE\s+CONTENT$`, out)
	require.Contains(t, out, "Deploys to production happen on Fridays after the standup")

	// Anyone else sees their own, as in Slack, and the operator's id may
	// come from MNEMO_OPERATOR.
	b.env["MNEMO_OPERATOR"] = opAlice
	code, out, errs = b.run("search", "--team", "T1")
	require.Equal(t, 0, code, errs)
	require.Equal(t, []string{"Prefers green tea in the morning"}, contents(b.listed(out)))
	code, out, errs = b.run("search", "--team", "T1", "--user", opBob)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "mnemo memories: only an admin can see someone else's or a channel's memories: add your id to MNEMO_ADMINS\n", errs)
	// Bob sees his own sensitive memory: it is shown to him alone.
	code, out, errs = b.run("search", "--as", opBob, "--team", "T1", "appointment")
	require.Equal(t, 0, code, errs)
	require.Equal(t, []string{"Has a standing appointment every Monday afternoon"}, contents(b.listed(out)))

	require.Equal(t, []string{
		opAdmin + " search  cli", opAdmin + " search " + opBob + " cli", opAdmin + " search C1 cli",
		opAlice + " search " + opAlice + " cli", opBob + " search " + opBob + " cli",
	}, b.audits(), "each search on record, the refused one not")
}

// Who the operator is is said, and checked, before anything is read.
func TestMemoriesOperatorIsRequired(t *testing.T) {
	t.Parallel()
	b := newMemoriesBundle(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--team", "T1"}, "say who you act as: --as U… or MNEMO_OPERATOR"},
		{[]string{"forget", "--team", "T1", "abcd1234"}, "say who you act as"},
		{[]string{"search", "--as", "alice", "--team", "T1"}, `--as "alice" is not a Slack user id`},
		{[]string{"history", "--as", opAdmin, "abcd1234"}, "--team is required"},
		{[]string{"export", "--as", opAdmin}, "--team is required"},
	} {
		code, out, errs := b.run(c.args...)
		require.Equal(t, 2, code, errs)
		require.Empty(t, out)
		require.Contains(t, errs, c.want)
	}
	require.Empty(t, b.audits())
}

// forget, restore and history: the store's functions with the operator as
// the actor, the change in the memory's history through the cli path, and
// an audit row for each.
func TestMemoriesForgetRestoreHistory(t *testing.T) {
	t.Parallel()
	b := newMemoriesBundle(t)
	bob := b.remember("T1", opBob, memory.ScopePersonal, "Prefers black coffee without sugar")
	id := bob.ID.String()

	code, _, errs := b.run("forget", "--as", opAlice, "--team", "T1", id)
	require.Equal(t, 1, code)
	require.Equal(t, "mnemo memories: no memory you can see has the id \""+id+"\"\n", errs, "someone else's memory is not even named")

	code, out, errs := b.run("forget", "--as", opAdmin, "--team", "T1", id[:8])
	require.Equal(t, 0, code, errs)
	var m memoryJSON
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	require.Equal(t, id, m.ID)
	require.NotNil(t, m.ArchivedAt)

	code, _, errs = b.run("forget", "--as", opAdmin, "--team", "T1", id)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "is already forgotten")

	code, _, errs = b.run("restore", "--as", opBob, "--team", "T1", id)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "only an admin can restore memories")
	code, out, errs = b.run("restore", "--as", opAdmin, "--team", "T1", "--table", id)
	require.Equal(t, 0, code, errs)
	require.Equal(t, "Restored "+id+": Prefers black coffee without sugar\n", out)

	code, out, errs = b.run("history", "--as", opAdmin, "--team", "T1", id)
	require.Equal(t, 0, code, errs)
	var h struct {
		Memory memoryJSON  `json:"memory"`
		Events []eventJSON `json:"events"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &h), out)
	require.Nil(t, h.Memory.ArchivedAt)
	var trail []string
	for _, e := range h.Events {
		trail = append(trail, e.Action+" by "+e.ActorID+" via "+e.Path)
	}
	require.Equal(t, []string{"create by " + opBob + " via explicit", "archive by " + opAdmin + " via cli", "restore by " + opAdmin + " via cli"}, trail)

	code, out, errs = b.run("history", "--as", opBob, "--team", "T1", "--table", id)
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^AT\s+ACTION\s+BY\s+PATH\s+REASON$`, out)
	require.Regexp(t, `(?m)^\S+ \S+\s+archive\s+`+opAdmin+`\s+cli\s+forgotten with mnemo memories forget$`, out)

	require.Equal(t, []string{
		opAdmin + " forget " + id + " cli", opAdmin + " restore " + id + " cli",
		opAdmin + " history " + id + " cli", opBob + " history " + id + " cli",
	}, b.audits())
}

// export prints every memory of a person, as /mnemo export sends them.
func TestMemoriesExport(t *testing.T) {
	t.Parallel()
	b := newMemoriesBundle(t)
	b.remember("T1", opAlice, memory.ScopePersonal, "Prefers green tea in the morning")
	b.remember("T1", opAlice, memory.ScopeChannel, "The team standup is at nine every weekday")
	gone := b.remember("T1", opAlice, memory.ScopePersonal, "Lives in Lyon since last spring")
	_, err := b.store.ForgetMemory(context.Background(), memory.Viewer{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: opAlice}, Place: provenance.Place{Team: "T1"}, Private: true}, gone, "moved", memory.PathSlash)
	require.NoError(t, err)
	b.remember("T1", opBob, memory.ScopePersonal, "Prefers black coffee without sugar")

	type export struct {
		User     string       `json:"user"`
		Team     string       `json:"team"`
		Memories []memoryJSON `json:"memories"`
	}
	code, out, errs := b.run("export", "--as", opAlice, "--team", "T1")
	require.Equal(t, 0, code, errs)
	var e export
	require.NoError(t, json.Unmarshal([]byte(out), &e), out)
	require.Equal(t, opAlice, e.User)
	require.ElementsMatch(t, []string{"Prefers green tea in the morning", "Lives in Lyon since last spring", "The team standup is at nine every weekday"}, contents(e.Memories), "her own, archived and written for others too")

	code, _, errs = b.run("export", "--as", opBob, "--team", "T1", "--user", opAlice)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "only an admin can export someone else's memories")

	code, out, errs = b.run("export", "--as", opAdmin, "--team", "T1", "--user", opAlice)
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &e), out)
	require.ElementsMatch(t, []string{"Prefers green tea in the morning", "Lives in Lyon since last spring"}, contents(e.Memories), "her personal memories")
	require.Equal(t, []string{opAlice + " export " + opAlice + " cli 3 memories", opAdmin + " export " + opAlice + " cli 2 memories"}, b.audits())
}

var nextPage = regexp.MustCompile(`(?m)^mnemo memories (?:list|search): more may match; the next page: --after (\S+)$`)

// Lists have no cap: --limit pages through them with a cursor, and every
// memory is printed once, whatever is forgotten between pages.
func TestMemoriesPagination(t *testing.T) {
	t.Parallel()
	b := newMemoriesBundle(t)
	var want []string
	for _, s := range []string{"one", "two", "three", "four", "five", "six", "seven"} {
		want = append(want, b.remember("T1", opAlice, memory.ScopePersonal, "Prefers seat number "+s+" on the morning train").Content)
	}
	for _, sub := range [][]string{{"list", "--team", "T1"}, {"search", "--as", opAlice, "--team", "T1"}} {
		var got []string
		args := append(append([]string(nil), sub...), "--limit", "3")
		for page := 0; ; page++ {
			require.Less(t, page, 4, "three pages hold seven")
			code, out, errs := b.run(args...)
			require.Equal(t, 0, code, errs)
			ms := b.listed(out)
			got = append(got, contents(ms)...)
			m := nextPage.FindStringSubmatch(errs)
			if m == nil {
				require.Empty(t, errs)
				require.Len(t, ms, 1, "the last page")
				break
			}
			require.Len(t, ms, 3)
			args = append(append([]string(nil), sub...), "--limit", "3", "--after", m[1])
		}
		require.Len(t, got, 7, sub[0])
		require.ElementsMatch(t, want, got, sub[0])
	}

	// Without --limit, every page is printed: the stream reads the database
	// a page at a time (two here) and prints one array.
	c := newMemoriesCmd("list", listUsage, nil, &bytes.Buffer{}, &bytes.Buffer{})
	limit := 0
	c.limit = &limit
	var out bytes.Buffer
	c.stdout = &out
	reads := 0
	n, err := c.streamPages(context.Background(), memory.Filter{Team: "T1"}, 2, func(f memory.Filter) (memory.Page, error) {
		reads++
		return b.store.ListAllPage(context.Background(), f)
	})
	require.NoError(t, err)
	require.Equal(t, 7, n)
	require.Equal(t, 4, reads)
	require.ElementsMatch(t, want, contents(b.listed(out.String())))

	code, _, errs := b.run("list", "--after", "nonsense")
	require.Equal(t, 2, code)
	require.True(t, strings.HasPrefix(errs, `mnemo memories list: --after "nonsense" is not a cursor that mnemo memories printed`), errs)
}
