package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
)

// A query with a NUL character or invalid UTF-8 (an MCP client's, a slash
// command's) was handed to PostgreSQL as it came, and came back as the
// database's "invalid byte sequence" error. Such characters mean nothing
// in a query: they are dropped, as from a memory's text, and the query
// finds what it would without them.
func TestAQueryWithNULOrInvalidUTF8FindsWhatItSays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice := user("UA")
	m := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, "Deploys go out on Tuesdays after QA sign-off")
	v := memory.ViewerAt(alice, publicThread)
	for _, q := range []string{"deploys", "deploys\x00", "depl\x00oys", "deploys\xff"} {
		found, err := b.store.Search(ctx, v, q, 5, true)
		require.NoError(t, err, "%q", q)
		require.NotEmpty(t, found, "%q finds the memory", q)
		require.Equal(t, m.ID, found[0].ID, "%q", q)
		listed, err := b.store.List(ctx, v, memory.Filter{Team: team, Query: q})
		require.NoError(t, err, "%q", q)
		require.NotEmpty(t, listed, "%q lists the memory", q)
	}
	out, err := b.store.Forget(ctx, v, "deploys\x00 tuesdays\xff", "", memory.PathSlash)
	require.NoError(t, err)
	require.NotNil(t, out.Forgotten, "forget by such words forgets what they say: %+v", out)
	require.Equal(t, m.ID, out.Forgotten.ID)
}
