package install

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// watch starts Watch, logging to w.logs, and waits until it listens. It
// is stopped when the test ends.
func (w *workspaces) watch() {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.clients.Watch(ctx, zerolog.New(w.logs).Level(zerolog.DebugLevel))
	}()
	w.t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			w.t.Error("Watch did not return when its context ended")
		}
	})
	w.listening(1)
}

// listening waits until Watch has started listening n times.
func (w *workspaces) listening(n int) {
	w.t.Helper()
	require.True(w.t, w.logs.Await(10*time.Second, func(log string) bool {
		return strings.Count(log, "listening for workspaces' erasures") >= n
	}), "Watch listens (%d times):\n%s", n, w.logs.String())
}

// A workspace erased (`mnemo teams erase`, in another process) is no
// longer served from the cache once its erasure commits, and only it:
// T0KEPT, whose installation is deleted behind the cache's back, is still
// served from it, so the cache was not read again for T0GONE by chance.
func TestWatchDropsAnErasedWorkspaceFromTheCache(t *testing.T) {
	t.Parallel()
	w := newWorkspaces(t)
	w.watch()
	require.NoError(t, w.served("T0GONE"))
	require.NoError(t, w.served("T0KEPT"))
	w.forgetRow("T0KEPT")

	_, err := w.d.DB.EraseTeam(context.Background(), "T0GONE")
	require.NoError(t, err)
	require.True(t, w.logs.WaitFor(`"team":"T0GONE","message":"workspace erased or its installation changed: read again"`, 10*time.Second), w.logs.String())
	require.ErrorIs(t, w.served("T0GONE"), ErrNotInstalled, "the erased workspace is not served")
	require.NoError(t, w.served("T0KEPT"), "the control: a cached bot is served without its row")
}

// A notification may be missed while Watch is not listening: when it
// listens again, after its connection failed, it drops every team's bot,
// and each team's installation is read again.
func TestWatchDropsTheWholeCacheWhenItListensAgain(t *testing.T) {
	t.Parallel()
	w := newWorkspaces(t)
	w.watch()
	require.NoError(t, w.served("T0KEPT"))
	w.forgetRow("T0KEPT")
	require.NoError(t, w.served("T0KEPT"), "the control: a cached bot is served without its row")

	var ended int
	require.NoError(t, w.d.Pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%name: EraseTeamListen %'`).Scan(&ended))
	require.Equal(t, 1, ended, "Watch's connection is found, and ended")
	w.listening(2)
	require.Contains(t, w.logs.String(), "not told of workspaces' erasures", "the failure is logged")
	require.ErrorIs(t, w.served("T0KEPT"), ErrNotInstalled, "the installation is read again")
}
