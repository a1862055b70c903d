package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// The App Home's Forget (ForgetMine) has the authorization of `/mnemo
// forget` said where each memory belongs: its author forgets the shared
// memories they wrote, its subject their personal ones, sensitive included;
// nobody else forgets anything through it but an admin's oversight.
func TestForgetMineHasTheAuthorizationOfForget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, ada := user("UA"), user("UB"), adminUser("UD")
	home := func(a provenance.Actor) memory.Viewer {
		return memory.Viewer{Actor: a, Place: provenance.Place{Team: team}, Private: true, Oversight: a.IsAdmin}
	}
	ctx := context.Background()
	type row struct {
		who    provenance.Actor
		mem    memory.Memory
		forget bool
	}
	channelMem := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, "Deploys go out on Tuesdays after QA sign-off")
	privateMem := b.remember(t, alice, privateChan, memory.ScopeChannel, memory.KindKnowledge, "The acquisition code name is Bluebird")
	threadMem := b.remember(t, alice, publicThread, memory.ScopeConversation, memory.KindKnowledge, "The incident in this thread was caused by the cache TTL")
	workspaceMem := b.remember(t, ada, publicThread, memory.ScopeWorkspace, memory.KindKnowledge, "The office wifi network is called mnemo-guest")
	health := b.write(t, alice, dmAlice, provenance.ByExplicit, "I have ADHD and take my medication at noon")
	require.Equal(t, memory.Stored, health.Status, health.Reason)
	bobs := b.remember(t, bob, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The design review happens on Thursdays at three")

	for _, r := range []row{
		{bob, channelMem, false},     // not its author, and no channel here
		{bob, *health.Memory, false}, // someone else's personal memory
		{alice, workspaceMem, false}, // Ada's workspace memory
		{ada, *health.Memory, false}, // an admin's oversight never reaches a sensitive memory said elsewhere
		{alice, channelMem, true},
		{alice, privateMem, true},
		{alice, threadMem, true},
		{alice, *health.Memory, true},
		{ada, workspaceMem, true},
		{ada, bobs, true}, // as `/mnemo forget` by an admin
	} {
		out, err := b.store.ForgetMine(ctx, home(r.who), r.mem.ID.String(), "test", memory.PathHome)
		forgotten := err == nil && out.Forgotten != nil
		require.Equal(t, r.forget, forgotten, "%s forgets %q: %v %s", r.who.ID, r.mem.Content, err, out.Refusal)
		require.Equal(t, r.forget, mustGet(t, b, r.mem.ID).ArchivedAt != nil, "%q", r.mem.Content)
	}
}
