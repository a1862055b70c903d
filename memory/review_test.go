package memory

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"I prefer terse PR summaries":                "Prefers terse PR summaries",
		"remember that I like dark mode.":            "Likes dark mode",
		"Please remember: I always review PRs first": "Always review PRs first",
		"The user prefers Go over Rust":              "Prefers Go over Rust",
		"I hate long meetings!":                      "Dislikes long meetings",
		"My timezone is CET":                         "Timezone is CET",
		"Deploys go out on Tuesdays":                 "Deploys go out on Tuesdays",
		"i'm the release captain":                    "Is the release captain",
	} {
		require.Equal(t, want, Canonicalize(in), in)
	}
}

func TestReviewHeuristics(t *testing.T) {
	t.Parallel()
	require.True(t, IsVolatile("Today's conversion is 8.4%"))
	require.True(t, IsVolatile("We have 1200 signups this week"))
	require.True(t, IsVolatile("Churn is 3% right now"))
	require.False(t, IsVolatile("Deploys go out on Tuesdays after QA sign-off"))
	require.False(t, IsVolatile("Prefers 2-space indentation"))

	require.True(t, ThirdParty("David prefers long meetings", "Alice"))
	require.True(t, ThirdParty("<@U0BOB> prefers tabs", "Alice"))
	require.True(t, ThirdParty("My wife likes sushi", "Alice"))
	require.True(t, ThirdParty("She prefers email", "Alice"))
	require.False(t, ThirdParty("Prefers terse PR summaries", "Alice"))
	require.False(t, ThirdParty("Alice prefers terse PR summaries", "Alice"))
	require.False(t, ThirdParty("The team prefers async standups", "Alice"))

	require.True(t, IsVague("that thing"))
	require.True(t, IsVague("this is important"))
	require.False(t, IsVague("Prefers terse PR summaries"))

	require.Equal(t, KindPreference, InferKind("Prefers terse PR summaries"))
	require.Equal(t, KindProcedure, InferKind("To release, tag main then run make publish"))
	require.Equal(t, KindKnowledge, InferKind("The staging database is refreshed nightly"))

	require.True(t, sameWords(Normalize("Prefers terse PR summaries"), Normalize("prefers terse PR summary")))
	require.False(t, sameWords(Normalize("Project A uses the blue pipeline"), Normalize("Project B uses the blue pipeline")))
}
