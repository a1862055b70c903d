package memory_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// Issue 20, item 1: update, duplicate and supersede candidates are only the
// memories visible where the memory is written. Alice's health fact from her
// DM is never offered to the update decision in a public thread, so it can't
// be merged, superseded or named there; her public memory is (control).
func TestUpdateCandidatesAreOnlyThoseVisibleWhereWritten(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	ctx := context.Background()
	health := b.write(t, alice, dmAlice, provenance.ByExplicit, "I take antidepressants every morning at nine")
	require.Equal(t, memory.Stored, health.Status, health.Reason)
	require.Equal(t, "health", health.Memory.Sensitive)
	coffee := b.remember(t, alice, publicThread, memory.ScopePersonal, memory.KindKnowledge, "Drinks coffee every morning at nine")

	for _, action := range []memory.Action{memory.ActionUpdate, memory.ActionSupersede, memory.ActionDuplicate} {
		b.adj.calls = nil
		// A decider that picks the DM fact whenever it is offered.
		b.adj.decide = func(newer string, cands []memory.Memory) memory.Decision {
			for _, c := range cands {
				if c.ID == health.Memory.ID {
					return memory.Decision{Action: action, Target: c.ID, Replaces: []uuid.UUID{c.ID}, Merged: c.Content + ", and also takes vitamins"}
				}
			}
			return memory.Decision{Action: memory.ActionAdd}
		}
		out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Kind: memory.KindKnowledge, Content: "I also take vitamins every morning at nine (" + string(action) + ")", WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Len(t, b.adj.calls, 1, "the decider was asked")
		var offered []uuid.UUID
		for _, c := range b.adj.calls[0] {
			offered = append(offered, c.ID)
		}
		require.Contains(t, offered, coffee.ID, "control: her public memory is a candidate")
		require.NotContains(t, offered, health.Memory.ID, "%s: the DM fact was offered in public", action)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.NotContains(t, out.Memory.Content, "antidepressants")
		require.Empty(t, out.Superseded)
	}
	require.Nil(t, mustGet(t, b, health.Memory.ID).ArchivedAt, "the DM fact is untouched")
	// In her DM the fact is a candidate (control: the rule, not the kind of
	// memory, kept it out).
	b.adj.calls = nil
	b.adj.decide = nil
	_, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Kind: memory.KindKnowledge, Content: "I take antidepressants and vitamins every morning at nine", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Len(t, b.adj.calls, 1)
	var inDM []uuid.UUID
	for _, c := range b.adj.calls[0] {
		inDM = append(inDM, c.ID)
	}
	require.Contains(t, inDM, health.Memory.ID)
}

// The same words said first in a DM and then in public are two memories:
// the public write is not answered with the DM one ("already remembered"),
// which the remember tool would then quote in public.
func TestADuplicateInAPrivatePlaceIsNotQuotedInPublic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	ctx := context.Background()
	dm := b.remember(t, alice, dmAlice, memory.ScopePersonal, memory.KindKnowledge, "Works from the Lisbon office on Fridays")

	res := callTool(t, b.store, memory.ToolRemember, tools.Invocation{Actor: alice, Place: publicThread}, `{"content": "Works from the Lisbon office on Fridays", "kind": "knowledge", "scope": "personal"}`)
	require.Equal(t, true, res["stored"], "%v", res)
	require.NotContains(t, mustJSON(t, res), dm.ShortID(), "the DM memory is not named in public")
	ms, err := b.store.ListAll(ctx, memory.Filter{SubjectUser: "UA"})
	require.NoError(t, err)
	require.Len(t, ms, 2)

	// In the DM, the same words again are a duplicate of the DM memory
	// (control: the dedup still works where the memory is visible).
	res = callTool(t, b.store, memory.ToolRemember, tools.Invocation{Actor: alice, Place: dmAlice}, `{"content": "Works from the Lisbon office on Fridays", "kind": "knowledge", "scope": "personal"}`)
	require.Equal(t, "duplicate", res["status"], "%v", res)
}

// reviewScript is a model that reviews every memory as durable, answers
// the sensitive category and restatement answer gives ("none" and none
// without it), and records what it was asked to review.
type reviewScript struct {
	mu       sync.Mutex
	reviewed []string
	answer   func(content string) (sensitive, restated string)
}

func (r *reviewScript) script(_ int, req *fakellm.Request) fakellm.Reply {
	text := req.Messages[len(req.Messages)-1].Text
	content := strings.TrimSpace(text[strings.Index(text, "Memory: ")+len("Memory: "):])
	r.mu.Lock()
	r.reviewed = append(r.reviewed, content)
	r.mu.Unlock()
	sensitive, restated := "none", ""
	if r.answer != nil {
		sensitive, restated = r.answer(content)
	}
	b, _ := json.Marshal(map[string]any{"store": true, "reason": "durable", "canonical": content, "sensitive": sensitive, "restated": restated, "cues": []string{}, "expires": ""})
	return fakellm.Reply{JSON: string(b)}
}

// store is a store whose review model is r, with adj deciding updates.
func (r *reviewScript) store(t *testing.T, adj memory.Decider) (*memory.Store, *testdb.DB) {
	srv := fakellm.New(t, r.script)
	d := testdb.New(t)
	return memory.New(d.DB, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}, Decider: adj}), d
}

// Issue 20, item 1: a merge is reviewed as a new write is (the model's
// review, the detectors, the sensitive policy), and keeps the strongest
// sensitivity of its sources.
func TestAMergeIsReviewedLikeANewWrite(t *testing.T) {
	t.Parallel()
	rs := &reviewScript{answer: func(content string) (string, string) {
		if strings.Contains(content, "salary") {
			return "finances", ""
		}
		return "none", ""
	}}
	adj := &scriptedDecider{}
	store, _ := rs.store(t, adj)
	alice := user("UA")
	ctx := context.Background()
	write := func(place provenance.Place, content string) memory.Outcome {
		t.Helper()
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: place, Kind: memory.KindKnowledge, Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		return out
	}
	mergeWith := func(merged string) {
		adj.decide = func(newer string, cands []memory.Memory) memory.Decision {
			return memory.Decision{Action: memory.ActionUpdate, Target: cands[0].ID, Merged: merged}
		}
	}

	// The model reviews the merged text, and what it finds sensitive is
	// held to the policy: not kept in public.
	standup := write(publicThread, "I join the platform standup every morning at nine")
	require.Equal(t, memory.Stored, standup.Status, standup.Reason)
	mergeWith("Joins the platform standup every morning at nine and discusses her salary there")
	out := write(publicThread, "I also present the roadmap at the platform standup")
	require.Contains(t, rs.reviewed, "Joins the platform standup every morning at nine and discusses her salary there", "the merge was shown to the model's review")
	require.Equal(t, memory.Rejected, out.Status, "a merge the review finds sensitive is not kept in public")
	require.Contains(t, out.Reason, "sensitive personal data (finances)")

	// The detectors read the merged text: a secret the merge carries is
	// refused as one.
	mergeWith("Joins the platform standup every morning at nine; the deploy token is ghp_0123456789abcdefghijABCDEFGHIJ0123")
	out = write(publicThread, "I also run the deploy after the platform standup")
	require.Equal(t, memory.Rejected, out.Status)
	require.Contains(t, out.Reason, "looks like a secret")

	// A merge in the DM keeps the target's sensitivity, though the merged
	// words alone would not be flagged.
	adj.decide = nil
	health := write(dmAlice, "I take antidepressants every morning at nine")
	require.Equal(t, memory.Stored, health.Status, health.Reason)
	require.Equal(t, "health", health.Memory.Sensitive)
	adj.decide = func(newer string, cands []memory.Memory) memory.Decision {
		return memory.Decision{Action: memory.ActionUpdate, Target: health.Memory.ID, Merged: "Takes antidepressants every morning at nine, and vitamins too"}
	}
	out = write(dmAlice, "I also take vitamins every morning at nine")
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "Takes antidepressants every morning at nine, and vitamins too", out.Memory.Content)
	require.Equal(t, "health", out.Memory.Sensitive, "the merge keeps its source's sensitivity")
	require.Equal(t, provenance.DM, out.Memory.Visibility)
	require.Len(t, out.Superseded, 1)

	// Passive learning never keeps a sensitive memory, merged or not.
	adj.decide = func(newer string, cands []memory.Memory) memory.Decision {
		return memory.Decision{Action: memory.ActionUpdate, Target: out.Memory.ID, Merged: out.Memory.Content + ", and fish oil"}
	}
	passive, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: dmAlice, Kind: memory.KindKnowledge, Content: "Also takes fish oil every morning at nine", WrittenBy: provenance.ByPassive})
	require.NoError(t, err)
	require.Equal(t, memory.Rejected, passive.Status)
	require.Contains(t, passive.Reason, "never learned from conversation")
}

// Issue 20, item 1: a sensitive memory never enters a model request outside
// the place it was said. Alice's health fact from a private channel is not
// in her recall or list tool results in her DM (they go to the model), while
// `/mnemo memories`-style showing to her alone still finds it (control).
func TestSensitiveMemoryIsNotQuotedToAModelElsewhere(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	health := b.write(t, alice, privateChan, provenance.ByExplicit, "I have ADHD and take my medication at noon")
	require.Equal(t, memory.Stored, health.Status, health.Reason)
	require.NotEmpty(t, health.Memory.Sensitive)

	shown, err := b.store.Search(context.Background(), memory.ViewerAt(alice, dmAlice), "medication", 10, true)
	require.NoError(t, err)
	require.Len(t, shown, 1, "control: shown to her alone")

	for _, call := range []struct{ tool, args string }{
		{memory.ToolRecall, `{"query": "medication"}`},
		{memory.ToolList, `{}`},
		{memory.ToolForget, `{"memory": "` + health.Memory.ShortID() + `"}`},
	} {
		inDM := callToolRaw(t, b.store, call.tool, tools.Invocation{Actor: alice, Place: dmAlice}, call.args)
		require.NotContains(t, inDM, "medication", "%s in her DM", call.tool)
		// Where it was said, it is there (control).
		if call.tool != memory.ToolForget {
			require.Contains(t, callToolRaw(t, b.store, call.tool, tools.Invocation{Actor: alice, Place: privateChan}, call.args), "medication", call.tool)
		}
	}
	require.Nil(t, mustGet(t, b, health.Memory.ID).ArchivedAt)
}

func callToolRaw(t *testing.T, s *memory.Store, name string, inv tools.Invocation, args string) string {
	t.Helper()
	for _, tl := range s.Tools() {
		if tl.Name == name {
			res, err := tl.Handler(context.Background(), inv, json.RawMessage(args))
			if err != nil {
				return "error: " + err.Error()
			}
			return mustJSON(t, res)
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

func callTool(t *testing.T, s *memory.Store, name string, inv tools.Invocation, args string) map[string]any {
	t.Helper()
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(callToolRaw(t, s, name, inv, args)), &out))
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
