package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
)

var groupDM = provenance.Place{Team: team, Channel: "G0MPIM", SourceKey: "slack:T1:G0MPIM:1800000000.000100", Visibility: provenance.VisibilityOf("mpim", "G0MPIM")}

func (b *testBundle) write(t *testing.T, actor provenance.Actor, place provenance.Place, by provenance.WrittenBy, content string) memory.Outcome {
	t.Helper()
	out, err := b.store.Remember(context.Background(), memory.WriteRequest{Actor: actor, Place: place, Content: content, WrittenBy: by})
	require.NoError(t, err)
	return out
}

// Defect 3: sensitive personal data was accepted. Each of the reproduction's
// texts is refused where it was refused nowhere before; health and pay said
// in a DM are kept only there, flagged; passive learning never keeps them.
func TestSensitivePersonalDataIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	for _, text := range []string{"My SSN is 123-45-6789", "my card number is 4111 1111 1111 1111", "My IBAN is DE89 3704 0044 0532 0130 00", "call me on +1 415 555 0134 after six"} {
		for _, place := range []provenance.Place{publicThread, dmAlice} {
			out := b.write(t, alice, place, provenance.ByExplicit, text)
			require.Equal(t, memory.Rejected, out.Status, "%q in %s", text, place.Channel)
			require.Contains(t, out.Reason, "personal data")
		}
	}
	for _, text := range []string{"I have ADHD and take my medication at noon", "Salary is 180k and I am interviewing elsewhere"} {
		out := b.write(t, alice, publicThread, provenance.ByExplicit, text)
		require.Equal(t, memory.Rejected, out.Status, "%q said in public", text)
		require.Contains(t, out.Reason, "sensitive personal data")
		out = b.write(t, alice, dmAlice, provenance.ByPassive, text)
		require.Equal(t, memory.Rejected, out.Status, "%q learned passively", text)

		out = b.write(t, alice, dmAlice, provenance.ByExplicit, text)
		require.Equal(t, memory.Stored, out.Status, "%q asked in a DM: %s", text, out.Reason)
		require.NotEmpty(t, out.Memory.Sensitive)
		require.True(t, b.visible(t, alice, dmAlice)[out.Memory.Content], "visible where it was said")
		require.False(t, b.visible(t, alice, publicThread)[out.Memory.Content], "never shown elsewhere")
		applied, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(alice, publicThread), "")
		require.NoError(t, err)
		for _, m := range applied {
			require.NotEqual(t, out.Memory.ID, m.ID, "never applied elsewhere")
		}
	}
	// Control: an ordinary preference is stored on every path.
	for _, by := range []provenance.WrittenBy{provenance.ByExplicit, provenance.ByPassive} {
		out := b.write(t, alice, publicThread, by, fmt.Sprintf("I prefer release notes as bullet lists (%s)", by))
		require.Equal(t, memory.Stored, out.Status, out.Reason)
	}
}

// The detector corpus runs through the real write path: every labelled
// secret or personal-data text is refused or kept as sensitive, and no
// ordinary work text is refused for looking like one.
func TestDetectorCorpusThroughRemember(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/detectors.json")
	require.NoError(t, err)
	var corpus []struct{ Text, Want, Note string }
	require.NoError(t, json.Unmarshal(raw, &corpus))
	require.GreaterOrEqual(t, len(corpus), 60)
	b := setup(t)
	alice := user("UA")
	positives, negatives := 0, 0
	for i, c := range corpus {
		place := publicThread
		out := b.write(t, alice, place, provenance.ByExplicit, c.Text)
		flagged := out.Status == memory.Rejected && (strings.Contains(out.Reason, "secret") || strings.Contains(out.Reason, "personal data"))
		if c.Want != "" {
			positives++
			require.True(t, flagged, "entry %d (%s): %q was %s: %s", i, c.Note, c.Text, out.Status, out.Reason)
			continue
		}
		negatives++
		require.False(t, flagged, "entry %d (%s): ordinary text %q was refused: %s", i, c.Note, c.Text, out.Reason)
	}
	require.Positive(t, positives)
	require.Positive(t, negatives)
}

// Defect 8: secrets the detectors missed were stored, and a secret said in a
// thread went back to the model on every later turn. Each is refused now,
// and the session log keeps it redacted.
func TestSecretsTheDetectorsMissed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	missed := []string{
		"pw is hunter2hunter2",
		"the billing key is sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"publish with npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
		"admin / S3cr3t!Pass2024",
	}
	for _, text := range missed {
		out := b.write(t, alice, dmAlice, provenance.ByExplicit, text)
		require.Equal(t, memory.Rejected, out.Status, text)
		require.Contains(t, out.Reason, "secret")
	}
	key := threads.Key{Team: team, Channel: "C1", Root: "1800000000.000100"}
	sessions := b.db.DB.Sessions()
	for i, text := range missed {
		_, err := sessions.Append(context.Background(), key, threads.Message{TS: threads.TS(fmt.Sprintf("18000000%02d.000100", i+1)), Role: threads.RoleUser, Actor: alice, Text: "note: " + text})
		require.NoError(t, err)
	}
	_, err := sessions.Append(context.Background(), key, threads.Message{TS: "1800000099.000100", Role: threads.RoleUser, Actor: alice, Text: "deploys go out on Tuesdays"})
	require.NoError(t, err)
	logged, err := sessions.History(context.Background(), key, 50)
	require.NoError(t, err)
	require.Len(t, logged, len(missed)+1)
	for i, m := range logged[:len(missed)] {
		require.Contains(t, m.Text, detect.RedactedMarker, missed[i])
		for _, part := range []string{"hunter2hunter2", "sk_live_4eC39", "npm_abcdefghij", "MIIEvQIBADAN", "S3cr3t!Pass2024"} {
			require.NotContains(t, m.Text, part)
		}
	}
	require.Equal(t, "deploys go out on Tuesdays", logged[len(missed)].Text, "control: ordinary text is logged as said")
}

// Defect 7: a DM preference was quoted in public. A preference said in a DM
// may still shape answers anywhere, but it is marked private in the prompt
// and never shown in a public place; a sensitive one never leaves the DM.
func TestDMPreferenceIsNeverQuotedInPublic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	diabetes := b.write(t, alice, dmAlice, provenance.ByExplicit, "I prefer nobody mentions my diabetes diagnosis at team lunches")
	require.Equal(t, memory.Stored, diabetes.Status, diabetes.Reason)
	require.Equal(t, string(detect.CategoryHealth), diabetes.Memory.Sensitive)
	french := b.write(t, alice, dmAlice, provenance.ByExplicit, "I prefer replies in French")
	require.Equal(t, memory.Stored, french.Status, french.Reason)

	v := memory.ViewerAt(alice, publicThread)
	applied, err := b.store.ForPrompt(context.Background(), v, "")
	require.NoError(t, err)
	var ids []uuid.UUID
	for _, m := range applied {
		ids = append(ids, m.ID)
	}
	require.Contains(t, ids, french.Memory.ID, "the preference still shapes the answer")
	require.NotContains(t, ids, diabetes.Memory.ID, "a sensitive memory never leaves its DM")
	prompt := agent.SystemPrompt(tools.Invocation{Actor: alice, Place: publicThread}, applied, "", time.Now())
	require.Contains(t, prompt, "private: apply it; never quote, list or mention it here] Prefers replies in French")
	require.NotContains(t, prompt, "diabetes")

	shown, err := b.store.Search(context.Background(), v, "", 50, false)
	require.NoError(t, err)
	for _, m := range shown {
		require.NotEqual(t, french.Memory.ID, m.ID, "not listed in public")
	}
	// Control: in her DM both are shown, and applied unmarked.
	require.True(t, b.visible(t, alice, dmAlice)[diabetes.Memory.Content])
	require.True(t, b.visible(t, alice, dmAlice)[french.Memory.Content])
	inDM, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(alice, dmAlice), "")
	require.NoError(t, err)
	require.NotContains(t, agent.SystemPrompt(tools.Invocation{Actor: alice, Place: dmAlice}, inDM, "", time.Now()), "private: apply it")
}

// Defect 9: group DMs. What is said in one stays there, except a person's
// own preferences, which apply (marked private) elsewhere.
func TestGroupDMMemoriesNeverLeave(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := user("UA"), user("UB")
	require.Equal(t, provenance.Private, groupDM.Visibility)
	fact := b.write(t, alice, groupDM, provenance.ByExplicit, "I am moving to the Berlin office in March")
	require.Equal(t, memory.Stored, fact.Status, fact.Reason)
	shared := b.write(t, bob, groupDM, provenance.ByExplicit, "The offsite planning doc lives in the shared drive")
	require.Equal(t, memory.Stored, shared.Status, shared.Reason)
	pref := b.write(t, alice, groupDM, provenance.ByExplicit, "I prefer meeting notes as bullet lists")
	require.Equal(t, memory.Stored, pref.Status, pref.Reason)

	for _, where := range []provenance.Place{publicThread, privateChan} {
		seen := b.visible(t, alice, where)
		require.False(t, seen[fact.Memory.Content], "personal fact shown in %s", where.Channel)
		require.False(t, seen[shared.Memory.Content], "group DM knowledge shown in %s", where.Channel)
		require.False(t, seen[pref.Memory.Content], "preference listed in %s", where.Channel)
		applied, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(alice, where), "")
		require.NoError(t, err)
		var got []string
		for _, m := range applied {
			got = append(got, m.Content)
		}
		require.Contains(t, got, pref.Memory.Content, "her preference applies in %s", where.Channel)
		require.NotContains(t, got, fact.Memory.Content)
		require.NotContains(t, got, shared.Memory.Content)
	}
	// Control: in the group DM all three are there.
	seen := b.visible(t, alice, groupDM)
	require.True(t, seen[fact.Memory.Content] && seen[shared.Memory.Content] && seen[pref.Memory.Content])
}

// blockingAdjudicator holds its first call until released, like a slow model.
type blockingAdjudicator struct {
	entered chan struct{}
	release chan struct{}
	calls   atomic.Int32
}

func (a *blockingAdjudicator) Decide(ctx context.Context, _ string, _ memory.Kind, _ []memory.Memory) (memory.Decision, error) {
	if a.calls.Add(1) == 1 {
		close(a.entered)
		select {
		case <-a.release:
		case <-ctx.Done():
			return memory.Decision{}, ctx.Err()
		}
	}
	return memory.Decision{Action: memory.ActionAdd}, nil
}

// Defect 6: Remember asked the model to adjudicate inside a transaction
// that held the subject's lock, so a slow model held a pooled connection and
// blocked every writer of that subject. Now the model is asked first: while
// one write waits on a slow adjudicator, other writes of the same subject
// complete, on a pool of two connections.
func TestNoModelCallInsideTheWriteTransaction(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	small, err := db2(t, d.URL)
	require.NoError(t, err)
	adj := &blockingAdjudicator{entered: make(chan struct{}), release: make(chan struct{})}
	store := memory.New(small, memory.Options{Decider: adj})
	alice := user("UA")
	ctx := context.Background()
	_, err = store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Content: "I prefer terse PR summaries", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)

	slow := make(chan error, 1)
	go func() {
		_, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Content: "I prefer detailed PR summaries", WrittenBy: provenance.ByExplicit})
		slow <- err
	}()
	<-adj.entered // the slow write is now waiting on the model

	done := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func(i int) {
			_, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Kind: memory.KindKnowledge, Content: fmt.Sprintf("Works from the Lisbon office on weekday number %d", i), WrittenBy: provenance.ByExplicit})
			done <- err
		}(i)
	}
	for i := 0; i < 3; i++ {
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(20 * time.Second):
			t.Fatal("a write of the same subject was blocked by a model call in progress")
		}
	}
	close(adj.release)
	require.NoError(t, <-slow)
	ms, err := store.ListAll(ctx, memory.Filter{SubjectUser: "UA"})
	require.NoError(t, err)
	require.Len(t, ms, 5, "all writes stored")
}

// Passive learning runs the same review as explicit writes, the model's
// included.
func TestPassiveWritesGetTheModelReview(t *testing.T) {
	t.Parallel()
	var reviews atomic.Int32
	srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		reviews.Add(1)
		return fakellm.Reply{JSON: `{"store": false, "reason": "a one-off remark", "canonical": "", "sensitive": "none", "restated": "", "cues": [], "expires": ""}`}
	})
	store := memory.New(testdb.New(t).DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer window seats on long flights", WrittenBy: provenance.ByPassive})
	require.NoError(t, err)
	require.Equal(t, memory.Rejected, out.Status)
	require.Equal(t, "a one-off remark", out.Reason)
	require.Equal(t, int32(1), reviews.Load())
}

func db2(t *testing.T, url string) (*db.DB, error) {
	d, err := db.Open(context.Background(), url, 2)
	if err == nil {
		t.Cleanup(d.Close)
	}
	return d, err
}

// Defect 1: forget leaked other people's memories. An ambiguous id prefix
// brought back every candidate of the team, and the forget tool rendered
// their text: Bob, in a public channel, read Alice's DM-only memories.
func TestForgetByPrefixNeverShowsAnotherPersonsMemories(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := user("UA"), user("UB")
	ctx := context.Background()
	var ids []uuid.UUID
	for i, text := range []string{"I prefer decaf after 3pm", "My badge number is 4411 at the Lisbon office"} {
		out := b.write(t, alice, dmAlice, provenance.ByExplicit, text)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		id := uuid.MustParse(fmt.Sprintf("abcd0000-0000-4000-8000-00000000000%d", i+1))
		_, err := b.db.Pool.Exec(ctx, "UPDATE memories SET id = $1 WHERE id = $2", id, out.Memory.ID)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	got, err := b.store.Forget(ctx, memory.ViewerAt(bob, publicThread), "abcd", "", memory.PathSlash)
	require.ErrorContains(t, err, "no active memory")
	require.Empty(t, got.Candidates)
	_, err = b.store.Resolve(ctx, memory.ViewerAt(bob, publicThread), "abcd")
	require.ErrorIs(t, err, memory.ErrNotFound)
	_, _, err = b.store.History(ctx, memory.ViewerAt(bob, publicThread), ids[1].String())
	require.ErrorIs(t, err, memory.ErrNotFound)

	// Control: Alice, in her DM, gets both candidates from the same prefix.
	got, err = b.store.Forget(ctx, memory.ViewerAt(alice, dmAlice), "abcd", "", memory.PathSlash)
	require.NoError(t, err)
	require.Len(t, got.Candidates, 2)
	// In a public channel even Alice is not shown her DM memories' text.
	_, err = b.store.Resolve(ctx, memory.ViewerAt(alice, publicThread), "abcd")
	require.ErrorIs(t, err, memory.ErrNotFound)
}
