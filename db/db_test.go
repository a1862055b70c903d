package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// TestInTxRelaxedIsLocalToItsTransaction: the relaxed commit is the
// transaction's alone. The next transaction on the same connection (the
// pool has one) commits durably again, a relaxed transaction's writes are
// committed, and an error rolls them back.
func TestInTxRelaxedIsLocalToItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	one, err := db.Open(ctx, d.URL+"&synchronous_commit=on", 1)
	require.NoError(t, err)
	t.Cleanup(one.Close)
	mode := func() string {
		var m string
		require.NoError(t, one.Pool().QueryRow(ctx, "SHOW synchronous_commit").Scan(&m))
		return m
	}
	require.Equal(t, "on", mode())

	var inside string
	require.NoError(t, one.InTxRelaxed(ctx, func(tx *db.Tx) error {
		if err := tx.Pgx().QueryRow(ctx, "SHOW synchronous_commit").Scan(&inside); err != nil {
			return err
		}
		_, err := tx.Pgx().Exec(ctx, "CREATE TABLE relaxed (n int)")
		return err
	}))
	require.Equal(t, "off", inside)
	require.Equal(t, "on", mode(), "the same connection commits durably again")

	var inTx string
	require.NoError(t, one.InTx(ctx, func(tx *db.Tx) error {
		return tx.Pgx().QueryRow(ctx, "SHOW synchronous_commit").Scan(&inTx)
	}))
	require.Equal(t, "on", inTx, "InTx is not relaxed")

	boom := errors.New("boom")
	require.ErrorIs(t, one.InTxRelaxed(ctx, func(tx *db.Tx) error {
		if _, err := tx.Pgx().Exec(ctx, "INSERT INTO relaxed VALUES (1)"); err != nil {
			return err
		}
		return boom
	}), boom)
	require.NoError(t, one.InTxRelaxed(ctx, func(tx *db.Tx) error {
		_, err := tx.Pgx().Exec(ctx, "INSERT INTO relaxed VALUES (2)")
		return err
	}))
	var got []int
	rows, err := one.Pool().Query(ctx, "SELECT n FROM relaxed ORDER BY n")
	require.NoError(t, err)
	for rows.Next() {
		var n int
		require.NoError(t, rows.Scan(&n))
		got = append(got, n)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []int{2}, got, "the failed transaction's row is rolled back, the other's committed")
}
