package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/memory"
)

// Someone who wrote more shared memories than a Home page holds pages
// through them on their Home, as through their personal ones: the first
// page shows the newest, Next shows the older ones, Previous comes back.
func TestHomePagesTheSharedMemoriesSomeoneWrote(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	said := []string{
		"Deploys go out on Tuesdays after QA sign-off",
		"Staging is refreshed nightly from production snapshots",
		"The on-call rotation changes every Monday at noon",
		"Database migrations need two reviewers",
		"Feature flags live in the config service",
		"Incident reviews are blameless and written within a week",
		"The design system's tokens are owned by the web team",
		"Customer data never leaves the EU region",
		"Release notes are drafted by the product manager",
		"Load tests run against the perf cluster only",
		"Secrets rotate quarterly through the vault",
		"Mobile builds are signed by the release bot",
	}
	for _, s := range said { // the last is the newest
		b.seed(alice, memory.ScopeChannel, "C0TEAM", s)
	}
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "app_home_opened", "user": alice, "channel": "D0ALICE", "tab": "home", "event_ts": "1800000000.000100"}), 5*time.Second)
	first := string(b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), said[11]) }))
	for _, s := range said[2:] {
		require.Contains(t, first, s)
	}
	for _, s := range said[:2] {
		require.NotContains(t, first, s, "the oldest two are on the next page")
	}
	require.Contains(t, first, `"value":"-10"`, "a Next button for the shared memories")

	b.click(alice, "", "mnemo_home_page", "-10")
	second := string(b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), said[0]) }))
	require.Contains(t, second, said[1])
	require.NotContains(t, second, said[2])
	require.Contains(t, second, "What you asked mnemo to remember for others")
	require.Contains(t, second, `"text":"Previous"`)

	b.click(alice, "", "mnemo_home_page", "0")
	back := string(b.slack.WaitView(alice, 10*time.Second, func(v json.RawMessage) bool { return strings.Contains(string(v), said[11]) }))
	require.NotContains(t, back, said[0])
}
