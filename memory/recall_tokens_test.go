package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
)

// A query is split into terms as the memories' text is: a decimal, a
// version, an address are one term there, so they are one term here too,
// and a memory is found by them. (Split at every mark, "99.95" was searched
// as "99" and "95", which no memory's text holds: it matched nothing.)
func TestQueryTermsAreTheMemoriesTerms(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	alice := user("UA")
	for _, c := range []struct{ content, query, other string }{
		{"Our availability target for billing is 99.95 monthly", "what is 99.95?", "The billing dashboard moved to Grafana"},
		{"The mobile app release v2.3.1 pinned the old SDK", "what about v2.3.1?", "The mobile app team demos on Fridays"},
		{"Escalations go to ops-oncall@example.com first", "is it ops-oncall@example.com?", "Escalations of security issues page the CISO"},
	} {
		m := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, c.content)
		// Other memories share the query's ordinary words but not the term.
		b.remember(t, alice, publicThread2, memory.ScopeChannel, memory.KindKnowledge, c.other)
		found, err := b.store.Search(ctx, memory.ViewerAt(alice, publicThread2), c.query, 5, true)
		require.NoError(t, err)
		require.NotEmpty(t, found, "%q finds memories", c.query)
		require.Equal(t, m.ID, found[0].ID, "%q finds %q first: %v", c.query, c.content, found)
	}
}
