package slackapp

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
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
	b, err := json.MarshalIndent(HomeView(Home{Personal: ms, Total: 2, Shared: []memory.Memory{shared}, LearningHere: SettingOn, LearningMe: SettingOn}, now), "", "  ")
	require.NoError(t, err)
	golden(t, "home.json", b)

	// Paging: more than a page shows Next; a later page shows Previous.
	var many []memory.Memory
	for i := 0; i < HomePageSize+1; i++ {
		many = append(many, mk(i%10, "Prefers something durable", provenance.Public, "C1", provenance.ByExplicit, time.Hour))
	}
	b, _ = json.Marshal(HomeView(Home{Personal: many, Total: 25, Offset: 10, LearningHere: SettingOff, LearningMe: SettingOff}, now))
	require.Contains(t, string(b), `"text":"Previous"`)
	require.Contains(t, string(b), `"text":"Next"`)
	require.Contains(t, string(b), "in our DM is off")
	require.Contains(t, string(b), "learning about you is off")
	b, _ = json.Marshal(HomeView(Home{LearningHere: SettingOn, LearningMe: SettingOn}, now))
	require.Contains(t, string(b), "Nothing yet")

	// Settings that could not be read are said to be, with no toggle.
	b, _ = json.Marshal(HomeView(Home{Personal: ms, Total: 2}, now))
	require.Contains(t, string(b), "passive learning in our DM could not be read")
	require.Contains(t, string(b), "learning about you could not be read")
	require.NotContains(t, string(b), "learning me on|off")
	require.NotRegexp(t, `is (on|off)\b`, string(b))
	require.Contains(t, string(b), "Prefers terse PR summaries")
}

// The App Home pages the shared memories a person wrote, as it pages their
// personal ones: a page of HomePageSize, Next when there are more, and
// Previous back; a shared page keeps the personal section on its first
// page. The two pagers have block ids of their own (Slack refuses a view
// with two equal ones), and the fullest Home stays under Slack's 100
// blocks.
func TestHomeViewPagesSharedMemories(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	mk := func(i int, scope memory.Scope) memory.Memory {
		return memory.Memory{ID: uuid.New(), Team: "T1", Scope: scope, SubjectID: "UA", ActorID: "UA", Kind: memory.KindKnowledge,
			Content: fmt.Sprintf("memory %02d", i), ChannelID: "C1", Visibility: provenance.Public, WrittenBy: provenance.ByExplicit, ObservedAt: now}
	}
	var personal, shared []memory.Memory
	for i := 0; i < HomePageSize+1; i++ {
		personal = append(personal, mk(i, memory.ScopePersonal))
		shared = append(shared, mk(i, memory.ScopeChannel))
	}
	buttons := func(v slack.HomeTabViewRequest) map[string][]string { // block id → "label=value"
		out := map[string][]string{}
		for _, b := range v.Blocks.BlockSet {
			if ab, ok := b.(*slack.ActionBlock); ok {
				for _, e := range ab.Elements.ElementSet {
					btn := e.(*slack.ButtonBlockElement)
					require.Equal(t, ActionHomePage, btn.ActionID)
					out[ab.BlockID] = append(out[ab.BlockID], btn.Text.Text+"="+btn.Value)
				}
			}
		}
		return out
	}

	first := HomeView(Home{Personal: personal, Shared: shared, Total: 11}, now)
	require.Less(t, len(first.Blocks.BlockSet), 100)
	b, _ := json.Marshal(first)
	require.Equal(t, 1, strings.Count(string(b), "What you asked mnemo to remember for others"))
	require.Contains(t, string(b), "memory 09")
	require.Equal(t, map[string][]string{"mnemo_pager": {"Next=10"}, "mnemo_shared_pager": {"Next=-10"}}, buttons(first))

	// The second shared page (the value -10 above): the personal section
	// on its first page, the shared one from its 11th memory.
	off, sharedOff := homePage(-10)
	require.Equal(t, []int{0, 10}, []int{off, sharedOff})
	second := HomeView(Home{Personal: personal, Shared: shared[10:], SharedOffset: 10, Total: 11}, now)
	require.Equal(t, map[string][]string{"mnemo_pager": {"Next=10"}, "mnemo_shared_pager": {"Previous=0"}}, buttons(second))
	b, _ = json.Marshal(second)
	require.Contains(t, string(b), "memory 10")

	// A later personal page shows no shared section, as before.
	b, _ = json.Marshal(HomeView(Home{Personal: personal[:1], Shared: shared, Offset: 10, Total: 11}, now))
	require.NotContains(t, string(b), "What you asked mnemo to remember for others")
	off, sharedOff = homePage(20)
	require.Equal(t, []int{20, 0}, []int{off, sharedOff})
}

// An archived memory's reason can be the model's own words (its "forget"
// reason): it is escaped, as the memory's text is, so it can't ping a
// channel or forge a link.
func TestArchivedReasonIsEscaped(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	m := memory.Memory{ID: uuid.New(), Team: "T1", Scope: memory.ScopePersonal, SubjectID: "UA", ActorID: "UA", Kind: memory.KindKnowledge,
		Content: "Uses vim", Visibility: provenance.DM, ChannelID: "D1", WrittenBy: provenance.ByPassive, ObservedAt: now,
		ArchivedAt: &at, ArchivedReason: "outdated <!channel> see <https://evil.example|docs> & more"}
	b, _ := json.Marshal(memoryBlock(m, now))
	require.Contains(t, string(b), `outdated \u0026lt;!channel\u0026gt; see \u0026lt;https://evil.example|docs\u0026gt; \u0026amp; more`)
	require.NotContains(t, string(b), `\u003c!channel`)
}

// A notice (a Forget the Home refused) is shown at the top of the Home,
// escaped.
func TestHomeViewShowsNotice(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	b, _ := json.Marshal(HomeView(Home{Notice: "You can't forget that: <only> its author can"}, now))
	require.Contains(t, string(b), `You can't forget that: \u0026lt;only\u0026gt; its author can`)
	b, _ = json.Marshal(HomeView(Home{}, now))
	require.NotContains(t, string(b), "You can't forget")
}

// A burst of changes to one person's memories queues one republish, not
// one each: the publish reads their memories when it runs, so it shows
// them all. A burst for one person no longer fills the queue and drops
// someone else's.
func TestQueueHomeCoalescesPerPerson(t *testing.T) {
	t.Parallel()
	a := New(Config{Memory: memory.New(nil, memory.Options{}), Logger: zerolog.Nop()})
	for i := 0; i < 2*homeQueueSize; i++ {
		a.queueHome("T1", "UALICE")
	}
	a.queueHome("T1", "UBOB")
	a.queueHome("T2", "UALICE")                                                 // another workspace's Alice is another Home
	take := func() homeRequest { r := <-a.homeQueue; a.homeTaken(r); return r } // as publishHomes does
	require.Len(t, a.homeQueue, 3)
	require.Equal(t, homeRequest{"T1", "UALICE"}, take())
	// Taken by the publisher, Alice's Home is queued again by her next
	// change (that publish may have read her memories before it).
	a.queueHome("T1", "UALICE")
	a.queueHome("T1", "UALICE")
	require.Len(t, a.homeQueue, 3)
	require.Equal(t, homeRequest{"T1", "UBOB"}, take())
	require.Equal(t, homeRequest{"T2", "UALICE"}, take())
	require.Equal(t, homeRequest{"T1", "UALICE"}, take())
}
