package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// ListenErasures tells of each workspace's erasure as it commits, and of
// no other: the control, a person's erasure in the same team, is not told.
// It returns nil when its context ends.
func TestListenErasuresTellsOfEachWorkspaceErased(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	lctx, stop := context.WithCancel(ctx)
	listening, erased, done := make(chan struct{}), make(chan string, 4), make(chan error, 1)
	go func() {
		done <- d.DB.ListenErasures(lctx, func() { close(listening) }, func(team string) { erased <- team })
	}()
	<-listening

	_, err := d.DB.Erase(ctx, db.Erasure{Team: "T0KEPT", User: "U1", By: "U9"})
	require.NoError(t, err)
	_, err = d.DB.EraseTeam(ctx, "T0GONE")
	require.NoError(t, err)
	require.Equal(t, "T0GONE", <-erased, "the workspace's erasure is told, and the person's before it was not")
	_, err = d.DB.EraseTeam(ctx, "T0GONETOO")
	require.NoError(t, err)
	require.Equal(t, "T0GONETOO", <-erased)

	stop()
	require.NoError(t, <-done)
}
