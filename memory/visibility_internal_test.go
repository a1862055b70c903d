package memory

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
)

// The search query pre-filters with the visibility rule so it can use its
// indexes; Visible has the last word. They must agree exactly, or recall
// misses what it may show (query too strict) or pays for rows it drops
// (too loose). Every combination of scope, subject, place, sensitivity and
// kind is written, and every viewer shape asks for both uses.
func TestSearchAgreesWithVisible(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	places := []provenance.Place{
		{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public},
		{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000009.000100", Visibility: provenance.Public},
		{Team: "T1", Channel: "C2", SourceKey: "slack:T1:C2:1800000000.000100", Visibility: provenance.Public},
		{Team: "T1", Channel: "G1", SourceKey: "slack:T1:G1:1800000000.000100", Visibility: provenance.Private},
		{Team: "T1", Channel: "DA", SourceKey: "slack:T1:DA:1800000000.000100", Visibility: provenance.DM},
		{Team: "T1", Channel: "DB", SourceKey: "slack:T1:DB:1800000000.000100", Visibility: provenance.DM},
		{Team: "T2", Channel: "C1", SourceKey: "slack:T2:C1:1800000000.000100", Visibility: provenance.Public},
		// An organisation's org-scope memories, keyed by its enterprise id.
		{Team: "E1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public},
		{Team: "E1", Channel: "G1", SourceKey: "slack:T1:G1:1800000000.000100", Visibility: provenance.Private},
	}
	users := []string{"UA", "UB"}
	n := 0
	for _, p := range places {
		for _, scope := range []Scope{ScopePersonal, ScopeConversation, ScopeChannel, ScopeWorkspace} {
			for _, u := range users {
				for _, sensitive := range []string{"", "health"} {
					for _, kind := range []Kind{KindPreference, KindKnowledge} {
						if p.Team == "E1" && scope != ScopeWorkspace {
							continue // an organisation holds workspace memories only (memory.Store's scope)
						}
						n++
						subject := subjectID(scope, provenance.Actor{ID: u}, p)
						subjectType := scope.DefaultSubject()
						if scope == ScopeConversation && kind == KindPreference {
							subjectType, subject = SubjectUser, u // a thread-only instruction
						}
						content := fmt.Sprintf("memory %d about the release train", n)
						_, err := d.DB.Memories().Insert(ctx, db.MemoryInsert{
							Team: p.Team, Scope: string(scope), SubjectType: string(subjectType), SubjectID: subject, Kind: string(kind),
							Content: content, Normalized: Normalize(content), SourceKey: p.SourceKey, ChannelID: p.Channel,
							Visibility: p.Visibility, ActorID: u, WrittenBy: "explicit", ObservedAt: time.Now(),
							IdempotencyKey: fmt.Sprint(n), Sensitive: sensitive,
						})
						require.NoError(t, err)
					}
				}
			}
		}
	}
	all, err := d.DB.Memories().List(ctx, db.ListQuery{Limit: 10000})
	require.NoError(t, err)
	require.Len(t, all, n)

	// Each place also as a Slack Connect channel (Place.Shared), where what
	// was said elsewhere stays out unless only the actor sees the answer.
	checked, seen, sharedOut := 0, 0, 0
	for _, p := range places {
		for _, shared := range []bool{false, true} {
			p.Shared = shared
			for _, u := range users {
				for _, private := range []bool{false, true} {
					for _, use := range []Use{Show, Apply} {
						v := Viewer{Actor: provenance.Actor{Kind: provenance.KindUser, Team: p.Team, ID: u}, Place: p, Private: private}
						rows, err := d.DB.Memories().Search(ctx, db.SearchQuery{
							Team: p.Team, Channel: p.Channel, SourceKey: p.SourceKey, Actor: u, Only: v.only(),
							PrivateViewer: private, Apply: use == Apply, Limit: 10000,
						})
						require.NoError(t, err)
						var got, want []string
						for _, r := range rows {
							got = append(got, r.Content)
						}
						for _, r := range all {
							if Visible(v, fromRow(r), use) {
								want = append(want, r.Content)
							} else if shared && !private {
								unshared := v
								unshared.Place.Shared = false
								if Visible(unshared, fromRow(r), use) {
									sharedOut++
								}
							}
						}
						sort.Strings(got)
						sort.Strings(want)
						require.Equal(t, want, got, "viewer %s in %s (shared %v, private %v, use %v)", u, p.SourceKey, shared, private, use)

						// The text search's branches mirror the rule too: every
						// memory matches the query, so it returns the same set.
						rows, err = d.DB.Memories().Search(ctx, db.SearchQuery{
							Team: p.Team, Channel: p.Channel, SourceKey: p.SourceKey, Actor: u, Only: v.only(),
							PrivateViewer: private, Apply: use == Apply, Query: "release train", RequireMatch: true,
							Limit: 10000,
						})
						require.NoError(t, err)
						got = got[:0]
						for _, r := range rows {
							got = append(got, r.Content)
						}
						sort.Strings(got)
						require.Equal(t, want, got, "text search: viewer %s in %s (shared %v, private %v, use %v)", u, p.SourceKey, shared, private, use)
						checked++
						seen += len(want)
					}
				}
			}
		}
	}
	require.Equal(t, len(places)*2*len(users)*4, checked)
	require.Greater(t, seen, checked, "the viewers see memories: the comparison is not of empty sets")
	require.Positive(t, sharedOut, "a shared channel keeps out memories its place would see unshared")

	// An external member of a Slack Connect channel: UA of T2 in T1's
	// places. The query reads their own team, then the host's as a guest;
	// together the two agree with Visible.
	guests := 0
	for _, p := range places[:len(places)-3] {
		p.Shared = true // an external member is in a Slack Connect channel
		for _, private := range []bool{false, true} {
			for _, use := range []Use{Show, Apply} {
				v := Viewer{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T2", ID: "UA"}, Place: p, Private: private}
				var got, text, want []string
				for _, q := range []db.SearchQuery{
					{Team: "T2", Only: v.only(), Channel: p.Channel, SourceKey: p.SourceKey, Actor: "UA", PrivateViewer: private, Apply: use == Apply, Limit: 10000},
					{Team: "T1", Only: "channel", Channel: p.Channel, SourceKey: p.SourceKey, Actor: "UA", PrivateViewer: private, Apply: use == Apply, Limit: 10000},
				} {
					for _, words := range []string{"", "release train"} {
						q.Query, q.RequireMatch = words, words != ""
						rows, err := d.DB.Memories().Search(ctx, q)
						require.NoError(t, err)
						for _, r := range rows {
							if words == "" {
								got = append(got, r.Content)
							} else {
								text = append(text, r.Content)
							}
						}
					}
				}
				for _, r := range all {
					if Visible(v, fromRow(r), use) {
						want = append(want, r.Content)
						if r.Team == "T1" {
							guests++
							require.Equal(t, string(ScopeChannel), r.Scope)
							require.Equal(t, p.Channel, r.ChannelID)
						}
					}
				}
				sort.Strings(got)
				sort.Strings(text)
				sort.Strings(want)
				require.Equal(t, want, got, "external member in %s (private %v, use %v)", p.SourceKey, private, use)
				require.Equal(t, want, text, "text search: external member in %s (private %v, use %v)", p.SourceKey, private, use)
			}
		}
	}
	require.Positive(t, guests, "the host's channel memories are an external member's there")

	// A member of T1, whose organisation E1 opted into org-scope memories:
	// their own team, then the organisation's workspace memories.
	orgs := 0
	for _, p := range places[:len(places)-3] {
		p.Org = "E1"
		for _, shared := range []bool{false, true} {
			p.Shared = shared
			for _, private := range []bool{false, true} {
				for _, use := range []Use{Show, Apply} {
					v := Viewer{Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UA"}, Place: p, Private: private}
					var got, want []string
					for _, q := range []db.SearchQuery{
						{Team: "T1", Only: v.only(), Channel: p.Channel, SourceKey: p.SourceKey, Actor: "UA", PrivateViewer: private, Apply: use == Apply, Limit: 10000},
						{Team: "E1", Only: cmp.Or(v.only(), "workspace"), Channel: p.Channel, SourceKey: p.SourceKey, Actor: "UA", PrivateViewer: private, Apply: use == Apply, Limit: 10000},
					} {
						rows, err := d.DB.Memories().Search(ctx, q)
						require.NoError(t, err)
						for _, r := range rows {
							got = append(got, r.Content)
						}
					}
					for _, r := range all {
						if Visible(v, fromRow(r), use) {
							want = append(want, r.Content)
							if r.Team == "E1" {
								orgs++
								require.Equal(t, string(ScopeWorkspace), r.Scope)
							}
						}
					}
					sort.Strings(got)
					sort.Strings(want)
					require.Equal(t, want, got, "org member in %s (shared %v, private %v, use %v)", p.SourceKey, shared, private, use)
				}
			}
		}
	}
	require.Positive(t, orgs, "the organisation's workspace memories are its members'")
}
