package testdb

import (
	"context"
	"time"

	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
)

// AwaitLockWait returns once a backend of d's database waits on a lock
// in the statement sqlc names name (its "-- name: " line), polling
// pg_stat_activity: the signal that a transaction under test is held
// behind another. When done yields first, the statement ran without
// waiting: AwaitLockWait returns what done yielded, and false. t fails
// when ctx ends first.
func AwaitLockWait[T any](ctx context.Context, t harness.TB, d *DB, name string, done <-chan T) (T, bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case v := <-done:
			return v, false
		case <-tick.C:
			var n int
			if err := d.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%name: ' || $1 || ' %'`, name).Scan(&n); err != nil {
				t.Fatalf("testdb: lock waits of %s: %v", name, err)
			}
			if n > 0 {
				var zero T
				return zero, true
			}
		case <-ctx.Done():
			t.Fatalf("testdb: %s neither finished nor waited on a lock: %v", name, ctx.Err())
		}
	}
}
