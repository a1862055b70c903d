package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrErasing is a write of a workspace's data refused because the
// workspace's erasure is under way: what it wrote could outlive the
// erasure.
var ErrErasing = errors.New("the workspace is being erased")

// Bounds of ListenErasures: listenTimeout for each call it makes to the
// server (connect, LISTEN, a ping, the close), listenIdle for how long it
// waits for a notification before it checks the connection is alive.
const (
	listenTimeout = 10 * time.Second
	listenIdle    = 30 * time.Second
)

// ListenErasures tells of each workspace's erasure (EraseTeam, run by any
// process on this database) when it commits, and of each installation
// disabled or organisation's access changed (Installations' Disable,
// ChangeTeamAccess, SettleTeamAccess): the team, "" for an organisation's
// installation. On a connection of its own it
// listens, then calls listening (an erasure committed before then was not
// told, nor while the last connection was down), then erased with each
// erased team, in the caller's goroutine. It returns nil when ctx ends,
// and an error when the connection can't be opened or fails: the caller
// listens again.
func (d *DB) ListenErasures(ctx context.Context, listening func(), erased func(team string)) error {
	cctx, cancel := context.WithTimeout(ctx, listenTimeout)
	conn, err := pgx.ConnectConfig(cctx, d.pool.Config().ConnConfig.Copy())
	if err == nil {
		err = d.q.EraseTeamListen(cctx, conn)
	}
	cancel()
	if conn != nil {
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listenTimeout)
			defer cancel()
			_ = conn.Close(cctx)
		}()
	}
	if err != nil {
		return listenEnded(ctx, fmt.Errorf("listen for erasures: %w", err))
	}
	listening()
	for {
		wctx, cancel := context.WithTimeout(ctx, listenIdle)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			erased(n.Payload)
			continue
		case ctx.Err() == nil && pgconn.Timeout(err):
			// Nothing for a while: a connection the network dropped
			// silently would wait forever.
			pctx, cancel := context.WithTimeout(ctx, listenTimeout)
			err = conn.Ping(pctx)
			cancel()
			if err == nil {
				continue
			}
		}
		return listenEnded(ctx, fmt.Errorf("erasure notifications: %w", err))
	}
}

// listenEnded is ListenErasures' return: nil once ctx has ended, which
// ended what it was doing, else err.
func listenEnded(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
