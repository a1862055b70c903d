package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db/dbsqlc"
	"github.com/mnemo-bot/mnemo/provenance"
)

// ErrTurnClaimed is returned by ClaimTurn when the post's turn was already
// claimed: the same post delivered twice, or by another replica.
var ErrTurnClaimed = errors.New("turn already claimed")

// TurnStart names the post a turn answers.
type TurnStart struct {
	Place     provenance.Place
	MessageTS string
	ActorID   string
}

// ClaimTurn records the turn for one post, once: a second claim of the same
// post gets ErrTurnClaimed.
func ClaimTurn(ctx context.Context, pool *pgxpool.Pool, s TurnStart) (int64, error) {
	row, err := dbsqlc.New().TurnClaim(ctx, pool, dbsqlc.TurnClaimParams{
		TeamID: s.Place.Team, ChannelID: s.Place.Channel, MessageTs: s.MessageTS, SourceKey: s.Place.SourceKey,
		ActorID: s.ActorID, Visibility: string(s.Place.Visibility),
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrTurnClaimed
	}
	if err != nil {
		return 0, fmt.Errorf("claim turn: %w", err)
	}
	return row.ID, nil
}

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

// FailStaleTurns marks failed the turns still running since before, which a
// process that died left behind.
func FailStaleTurns(ctx context.Context, pool *pgxpool.Pool, before time.Time) (int64, error) {
	n, err := dbsqlc.New().TurnFailStale(ctx, pool, before)
	if err != nil {
		return 0, fmt.Errorf("fail stale turns: %w", err)
	}
	return n, nil
}
