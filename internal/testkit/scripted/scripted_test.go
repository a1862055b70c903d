package scripted

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

func TestDecideAnswersEachUpdateDecision(t *testing.T) {
	t.Parallel()
	const a, b = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	tests := []struct {
		name   string
		newer  string
		stored []Candidate
		want   Decision
	}{
		{"nothing stored is added", "Prefers terse PR summaries", nil, Decision{Decision: "add"}},
		{"unrelated is added", "Prefers terse commit messages", []Candidate{{a, "Prefers dark mode in every editor"}}, Decision{Decision: "add"}},
		{"other words, same meaning, is a duplicate", "Wants risk notes first in PR summaries",
			[]Candidate{{a, "Prefers risk notes at the start of PR summaries"}}, Decision{Decision: "duplicate", Target: a}},
		{"another value of one slot supersedes", "Prefers light mode in every editor",
			[]Candidate{{a, "Prefers dark mode in every editor"}, {b, "Prefers terse PR summaries"}}, Decision{Decision: "supersede", Supersedes: []string{a}}},
		{"a stated change supersedes", "Deploys now go out after the release review",
			[]Candidate{{a, "Deploys go out after QA sign-off"}}, Decision{Decision: "supersede", Supersedes: []string{a}}},
		{"also merges into the stored one", "I also want PR summaries with a test plan",
			[]Candidate{{a, "Prefers PR summaries with risk notes first"}}, Decision{Decision: "update", Target: a, Merged: "Prefers PR summaries with risk notes first, and wants PR summaries with a test plan"}},
		{"more of the same refines it", "Prefers terse PR summaries with a risk section",
			[]Candidate{{a, "Prefers terse PR summaries"}}, Decision{Decision: "update", Target: a, Merged: "Prefers terse PR summaries with a risk section"}},
		{"the same frame about another thing is distinct", "Prefers risk notes first in incident reports",
			[]Candidate{{a, "Prefers risk notes first in PR summaries"}}, Decision{Decision: "add"}},
		{"another project is distinct", "Project Apollo deploys on Tuesdays",
			[]Candidate{{a, "Project Hermes deploys on Tuesdays"}}, Decision{Decision: "add"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, Decide(tt.newer, tt.stored))
		})
	}
}

func TestPreferenceStatesItWithoutI(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"I prefer tabs for indentation":                      "Prefers tabs for indentation",
		"I want risk notes at the start of PR summaries.":    "Wants risk notes at the start of PR summaries",
		"For PR summaries, I still want risk notes first":    "Wants risk notes first for PR summaries",
		"I also want a test plan in PR summaries":            "Also wants a test plan in PR summaries",
		"i think tabs are better tbh":                        "Prefers tabs over spaces",
		"i think rust is better than go":                     "Prefers rust over go",
		"I want you to summarize PR 7":                       "",
		"deploys go out on Tuesdays":                         "",
		"Prefers terse PR summaries":                         "",
		"honestly I really prefer dark mode in every editor": "Prefers dark mode in every editor",
	}
	for in, want := range tests {
		require.Equal(t, want, Preference(in), in)
	}
}

func TestCuesComeFromWhatTheMemoryMentions(t *testing.T) {
	t.Parallel()
	require.Contains(t, Cues("Located in San Francisco and uses Pacific Time"), "what time is it")
	require.Contains(t, Cues("Located in San Francisco and uses Pacific Time"), "location")
	require.Contains(t, Cues("Prefers Neovim for editing"), "editor")
	require.Empty(t, Cues("Retro is held every other Friday"))
	require.LessOrEqual(t, len(Cues("Prefers tabs in Neovim, dark mode, terse PR summaries, Pacific Time")), 8)
}

func TestKeywordsDropTheQuestion(t *testing.T) {
	t.Parallel()
	require.Equal(t, "staging database refreshed", keywords("when the staging database is refreshed?"))
	require.Equal(t, "staging database backups kept", keywords("how long staging database backups are kept"))
}

// Extraction proposes figures too (the router and the review refuse them),
// and a preference as its speaker would want it stated.
func TestExtractProposesPreferencesProceduresAndFigures(t *testing.T) {
	t.Parallel()
	req := &fakellm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "[0] Alice (U1), instruction: For PR summaries, I still want risk notes first. Can you summarize PR 8?\n" +
		"[1] mnemo (the bot), context: Sure.\n" +
		"[2] Bob (U2), instruction: FYI: the metrics dashboard is rebuilt every night after the ETL job.\n" +
		"[3] Bob (U2), instruction: conversion was 8.4% yesterday and signups are up 12% this week. Can you draft it?\n"}}}
	var got struct {
		Memories []struct {
			Kind     string `json:"kind"`
			Content  string `json:"content"`
			Evidence []int  `json:"evidence"`
		} `json:"memories"`
	}
	require.NoError(t, json.Unmarshal([]byte(extract(req).JSON), &got))
	require.Len(t, got.Memories, 3)
	require.Equal(t, "preference", got.Memories[0].Kind)
	require.Equal(t, "Wants risk notes first for PR summaries", got.Memories[0].Content)
	require.Equal(t, []int{0}, got.Memories[0].Evidence)
	require.Equal(t, "procedure", got.Memories[1].Kind)
	require.Equal(t, "The metrics dashboard is rebuilt every night after the ETL job", got.Memories[1].Content)
	require.Equal(t, "knowledge", got.Memories[2].Kind)
	require.Equal(t, "Conversion was 8.4% yesterday and signups are up 12% this week", got.Memories[2].Content)
	require.Equal(t, []int{3}, got.Memories[2].Evidence)
}

// "forget the second one" names the memory by the id of the bot's last
// list; without a list it asks instead of guessing.
func TestForgetByReferenceUsesTheListedID(t *testing.T) {
	t.Parallel()
	listing := "Here is what I remember:\n1. [id aaaa1111] Prefers terse PR summaries\n2. [id bbbb2222] Prefers dark mode in every editor"
	with := &fakellm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "Alice: list my memories"},
		{Role: llm.RoleAssistant, Text: listing},
		{Role: llm.RoleUser, Text: "Alice: forget the one about dark mode"},
	}}
	require.Equal(t, "bbbb2222", intentOf(with).args["memory"])
	with.Messages[2].Text = "Alice: forget the first one"
	require.Equal(t, "aaaa1111", intentOf(with).args["memory"])
	without := &fakellm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "Alice: forget the second one"}}}
	require.NotEmpty(t, intentOf(without).refuse)
}

// Told "yes", it acts on the offer it made earlier in the conversation,
// and only if it can see one.
func TestAffirmationFollowsTheOffer(t *testing.T) {
	t.Parallel()
	offer := converse(&fakellm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "Alice: can you help with the release notes for 2.3?"}}})
	require.Equal(t, "Happy to. Want me to take care of the release notes for 2.3 now?", offer.Text)
	yes := converse(&fakellm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "Alice: can you help with the release notes for 2.3?"},
		{Role: llm.RoleAssistant, Text: offer.Text},
		{Role: llm.RoleUser, Text: "Alice: Yes please do"},
	}})
	require.Equal(t, "On it: I'll take care of the release notes for 2.3 now.", yes.Text)
	alone := converse(&fakellm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "Alice: Yes please do"}}})
	require.Contains(t, alone.Text, "not sure")
}
