package slackapp

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./slackapp -update to create %s", path)
	require.JSONEq(t, string(want), string(got))
}

func TestHomeViewGolden(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	mk := func(i int, content string, vis provenance.Visibility, ch string, by provenance.WrittenBy, age time.Duration) memory.Memory {
		return memory.Memory{ID: uuid.MustParse("00000000-0000-4000-8000-00000000000" + string(rune('0'+i))), Team: "T1", Scope: memory.ScopePersonal, SubjectID: "UA", ActorID: "UA",
			Kind: memory.KindPreference, Content: content, ChannelID: ch, Visibility: vis, WrittenBy: by, ObservedAt: now.Add(-age)}
	}
	ms := []memory.Memory{
		mk(1, "Prefers terse PR summaries", provenance.Public, "C1", provenance.ByExplicit, 3*time.Hour),
		mk(2, "Prefers replies in <French>", provenance.DM, "D1", provenance.ByPassive, 72*time.Hour),
	}
	shared := memory.Memory{ID: uuid.MustParse("00000000-0000-4000-8000-000000000009"), Team: "T1", Scope: memory.ScopeChannel, SubjectID: "C1", ActorID: "UA",
		Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays", ChannelID: "C1", Visibility: provenance.Public, WrittenBy: provenance.ByExplicit, ObservedAt: now.Add(-time.Hour)}
	b, err := json.MarshalIndent(HomeView(Home{Personal: ms, Total: 2, Shared: []memory.Memory{shared}, LearningHere: true, LearningMe: true}, now), "", "  ")
	require.NoError(t, err)
	golden(t, "home.json", b)

	// Paging: more than a page shows Next; a later page shows Previous.
	var many []memory.Memory
	for i := 0; i < HomePageSize+1; i++ {
		many = append(many, mk(i%10, "Prefers something durable", provenance.Public, "C1", provenance.ByExplicit, time.Hour))
	}
	b, _ = json.Marshal(HomeView(Home{Personal: many, Total: 25, Offset: 10, LearningMe: false}, now))
	require.Contains(t, string(b), `"text":"Previous"`)
	require.Contains(t, string(b), `"text":"Next"`)
	require.Contains(t, string(b), "in our DM is off")
	require.Contains(t, string(b), "learning about you is off")
	b, _ = json.Marshal(HomeView(Home{LearningHere: true, LearningMe: true}, now))
	require.Contains(t, string(b), "Nothing yet")
}
