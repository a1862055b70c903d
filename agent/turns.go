package agent

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db/dbsqlc"
)

// TurnHook runs in the transaction that records a turn as delivered
// (passive learning enqueues its job there).
type TurnHook func(ctx context.Context, tx pgx.Tx, turnID int64) error

// FinishTurn records a turn's outcome; a delivered turn's hook runs in the
// same transaction, so the learning job exists exactly when the turn is done.
func FinishTurn(ctx context.Context, pool *pgxpool.Pool, hook TurnHook, turnID int64, ok, usedWrite bool) error {
	status := "done"
	if !ok {
		status = "failed"
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if err := dbsqlc.New().TurnFinish(ctx, tx, dbsqlc.TurnFinishParams{ID: turnID, Status: status, UsedMemoryWrite: usedWrite}); err != nil {
		return err
	}
	if ok && hook != nil {
		if err := hook(ctx, tx, turnID); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}
