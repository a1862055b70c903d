package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// deadlockOnce runs run(fn) where fn's first attempt deadlocks with another
// transaction, and PostgreSQL ends fn's (its deadlock_timeout is the
// shorter, so it is the one that finds the cycle). It returns
// how many times fn ran, and run's error. The other transaction then finishes.
func deadlockOnce(t *testing.T, d *testdb.DB, run func(context.Context, func(*db.Tx) error) error) (int, error) {
	t.Helper()
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS locks (id int PRIMARY KEY, v int NOT NULL);
		TRUNCATE locks; INSERT INTO locks VALUES (1, 0), (2, 0)`)
	require.NoError(t, err)

	otherDone := make(chan error, 1)
	attempts := 0
	err = run(ctx, func(tx *db.Tx) error {
		attempts++
		if _, err := tx.Pgx().Exec(ctx, "SET LOCAL deadlock_timeout = '50ms'"); err != nil {
			return err
		}
		if _, err := tx.Pgx().Exec(ctx, "UPDATE locks SET v = v + 1 WHERE id = 1"); err != nil {
			return err
		}
		if attempts == 1 {
			go func() { // joined through otherDone below
				otherDone <- func() error {
					o, err := d.Pool.Begin(ctx)
					if err != nil {
						return err
					}
					defer o.Rollback(ctx) //nolint:errcheck
					if _, err := o.Exec(ctx, "SET LOCAL deadlock_timeout = '60s'; UPDATE locks SET v = v + 10 WHERE id = 2"); err != nil {
						return err
					}
					if _, err := o.Exec(ctx, "UPDATE locks SET v = v + 10 WHERE id = 1"); err != nil {
						return err
					}
					return o.Commit(ctx)
				}()
			}()
			// The other transaction holds row 2 and waits for row 1.
			require.Eventually(t, func() bool {
				var waiting bool
				err := d.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
					WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE locks SET v = v + 10 WHERE id = 1%')`).Scan(&waiting)
				return err == nil && waiting
			}, 10*time.Second, 5*time.Millisecond)
		}
		_, err := tx.Pgx().Exec(ctx, "UPDATE locks SET v = v + 1 WHERE id = 2")
		return err
	})
	select {
	case oerr := <-otherDone:
		require.NoError(t, oerr, "the other transaction goes on once fn's is ended")
	case <-time.After(30 * time.Second):
		t.Fatal("the other transaction never finished")
	}
	return attempts, err
}

// Erasure locks rows of river_job, which River's completer and producer
// lock in their own order: PostgreSQL may end the erasure as one side of a
// deadlock (seen in TestDeletedAccountIsErasedWhenEnabled: "erase
// river_job: deadlock detected"). InTxRetrying runs it again.
func TestInTxRetryingRunsADeadlockedTransactionAgain(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)

	// Control: the scenario deadlocks, and a plain transaction is ended.
	n, err := deadlockOnce(t, d, d.DB.InTx)
	var pg *pgconn.PgError
	require.True(t, errors.As(err, &pg), "want PostgreSQL's error, got %v", err)
	require.Equal(t, "40P01", pg.Code)
	require.Equal(t, 1, n)

	n, err = deadlockOnce(t, d, d.DB.InTxRetrying)
	require.NoError(t, err)
	require.Equal(t, 2, n, "run once more after the deadlock")
	var v1, v2 int
	require.NoError(t, d.Pool.QueryRow(context.Background(), "SELECT (SELECT v FROM locks WHERE id = 1), (SELECT v FROM locks WHERE id = 2)").Scan(&v1, &v2))
	require.Equal(t, []int{11, 11}, []int{v1, v2}, "both transactions' writes, each once")
}
