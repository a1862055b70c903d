package learn

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

func TestRoute(t *testing.T) {
	t.Parallel()
	alice := provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UA"}
	bob := provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UB"}
	bot := provenance.Actor{Kind: provenance.KindBot, Team: "T1", ID: "UBOT"}
	lines := []Line{
		{Index: 0, Actor: bob, Authority: provenance.Context, Text: "I prefer terse reviews", TS: "1800000000.000100"},
		{Index: 1, Actor: alice, Authority: provenance.Instruction, Text: "@mnemo I prefer bullet points", TS: "1800000001.000100"},
		{Index: 2, Actor: alice, Authority: provenance.Instruction, Text: "@mnemo can you summarize the PR?", TS: "1800000002.000100"},
		{Index: 3, Actor: bot, FromBot: true, Authority: provenance.Context, Text: "Deploys go out on Tuesdays", TS: "1800000003.000100"},
		{Index: 4, Actor: bob, Authority: provenance.Context, Text: "Deploys go out on Tuesdays after QA sign-off.", TS: "1800000004.000100"},
		{Index: 5, Actor: bob, Authority: provenance.Context, Text: "Signups are at 1200 this week", TS: "1800000005.000100"},
		{Index: 6, Actor: alice, Authority: provenance.Context, Text: "QA sign-off happens on Mondays.", TS: "1800000006.000100"},
		{Index: 7, Actor: bob, Authority: provenance.Context, Text: "Staging deploys need a second reviewer.", TS: "1800000007.000100"},
	}
	public := provenance.Place{Team: "T1", Channel: "C1", Visibility: provenance.Public}
	dm := provenance.Place{Team: "T1", Channel: "D1", Visibility: provenance.DM}
	cases := []struct {
		name   string
		p      Proposal
		actors []string
		place  provenance.Place
		store  bool
		scope  memory.Scope
		who    string
	}{
		{"own stated preference", Proposal{Kind: memory.KindPreference, Content: "Prefers bullet points", Evidence: []int{1}}, []string{"UA"}, public, true, memory.ScopePersonal, "UA"},
		{"bystander preference", Proposal{Kind: memory.KindPreference, Content: "Prefers terse reviews", Evidence: []int{0}}, []string{"UA"}, public, false, "", ""},
		{"preference citing two people", Proposal{Kind: memory.KindPreference, Content: "Prefers bullets", Evidence: []int{0, 1}}, []string{"UA"}, public, false, "", ""},
		{"preference in a batched turn", Proposal{Kind: memory.KindPreference, Content: "Prefers bullet points", Evidence: []int{1}}, []string{"UA", "UB"}, public, false, "", ""},
		{"question as evidence", Proposal{Kind: memory.KindPreference, Content: "Prefers summaries", Evidence: []int{2}}, []string{"UA"}, public, false, "", ""},
		{"bot's words as evidence", Proposal{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays", Evidence: []int{3}}, []string{"UA"}, public, false, "", ""},
		{"shared procedure by another person", Proposal{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", Evidence: []int{4}}, []string{"UA"}, public, true, memory.ScopeChannel, "UB"},
		{"procedure in a DM is personal", Proposal{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", Evidence: []int{4}}, []string{"UB"}, dm, true, memory.ScopePersonal, "UB"},
		// Who a memory is attributed to, and so whose erasure deletes it,
		// is not the model's to choose by the order it cites lines in.
		{"knowledge citing two people", Proposal{Kind: memory.KindKnowledge, Content: "QA signs off on Mondays and deploys go out on Tuesdays", Evidence: []int{4, 6}}, []string{"UA"}, public, false, "", ""},
		{"knowledge citing two people, the other order", Proposal{Kind: memory.KindKnowledge, Content: "QA signs off on Mondays and deploys go out on Tuesdays", Evidence: []int{6, 4}}, []string{"UA"}, public, false, "", ""},
		{"point-in-time figure", Proposal{Kind: memory.KindKnowledge, Content: "Signups are at 1200 this week", Evidence: []int{5}}, []string{"UA"}, public, false, "", ""},
		{"no evidence", Proposal{Kind: memory.KindKnowledge, Content: "Something", Evidence: nil}, []string{"UA"}, public, false, "", ""},
		{"evidence out of range", Proposal{Kind: memory.KindKnowledge, Content: "Something", Evidence: []int{42}}, []string{"UA"}, public, false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Route(tc.p, lines, tc.actors, tc.place)
			require.Equal(t, tc.store, d.Store, d.Reason)
			require.NotEmpty(t, d.Reason, "every decision says why")
			if tc.store {
				require.Equal(t, tc.scope, d.Scope)
				require.Equal(t, tc.who, d.Speaker.ID)
			}
		})
	}
}

func TestIsEvidence(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"I prefer terse reviews":                               true,
		"@mnemo summarize the PR":                              false,
		"can you draft the notes?":                             false,
		"What time is the deploy":                              false,
		"Today's conversion is 8.4%":                           false,
		"FYI: deploys go out on Tuesdays. Can you draft this?": true,
		"<@U0MNEMO> please review this":                        false,
	} {
		require.Equal(t, want, IsEvidence(text), text)
	}
}

// A memory's message is its evidence's latest line, whatever order the
// model cited the lines in.
func TestRouteTakesTheLatestCitedLine(t *testing.T) {
	t.Parallel()
	bob := provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UB"}
	lines := []Line{
		{Index: 0, Actor: bob, Authority: provenance.Context, Text: "Deploys go out on Tuesdays.", TS: "1800000000.000100"},
		{Index: 1, Actor: bob, Authority: provenance.Context, Text: "They wait for QA sign-off.", TS: "1800000001.000100"},
	}
	public := provenance.Place{Team: "T1", Channel: "C1", Visibility: provenance.Public}
	for _, ev := range [][]int{{0, 1}, {1, 0}} {
		d := Route(Proposal{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", Evidence: ev}, lines, []string{"UB"}, public)
		require.True(t, d.Store, d.Reason)
		require.Equal(t, "UB", d.Speaker.ID)
		require.Equal(t, "1800000001.000100", d.MessageTS, "evidence %v", ev)
		require.Equal(t, []string{"Deploys go out on Tuesdays.", "They wait for QA sign-off."}, d.Evidence, "evidence %v", ev)
	}
}
