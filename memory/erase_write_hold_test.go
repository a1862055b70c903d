package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// storedUnder counts the memories under a team, in every state.
func storedUnder(t *testing.T, d *testdb.DB, team string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE team_id = $1`, team).Scan(&n))
	return n
}

// A write under way when an erasure that deletes what it writes starts
// holds the erasure off until it commits, and the erasure then deletes it:
// an external member's write, stored under their own team (memory.HomeOf),
// whose workspace erases them or is erased, and a write of no turn (a
// slash command, the App Home, MCP), whose person or workspace is erased.
// The write is stopped inside its transaction, the erasure started, and
// the write let go only once the erasure is seen waiting for its lock. A
// write after the erasure, by a person still in the conversation, is
// stored, and the count that found nothing finds it.
func TestErasureWaitsForEveryWriteUnderWayThatItDeletes(t *testing.T) {
	t.Parallel()
	const home = "T2" // the external member's own workspace
	guest := provenance.Actor{Kind: provenance.KindUser, Team: home, ID: "UX", Name: "Xavier"}
	shared := provenance.Place{Team: team, Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public}
	for name, tc := range map[string]struct {
		actor  provenance.Actor
		place  provenance.Place
		turn   bool
		stored string // the team the memory is stored under
		lock   string // the erasure's first statement, which waits
		erase  func(context.Context, *db.DB) error
	}{
		"an external member's turn, their workspace erases them": {
			actor: guest, place: shared, turn: true, stored: home, lock: "EraseHoldPerson",
			erase: func(ctx context.Context, d *db.DB) error {
				_, err := d.Erase(ctx, db.Erasure{Team: home, User: "UX", By: "U0ADMIN"})
				return err
			},
		},
		"an external member's turn, their workspace erased": {
			actor: guest, place: shared, turn: true, stored: home, lock: "EraseHoldTeam",
			erase: func(ctx context.Context, d *db.DB) error {
				_, err := d.EraseTeam(ctx, home)
				return err
			},
		},
		"no turn's, its person erased": {
			actor: user("UA"), place: dmAlice, stored: team, lock: "EraseHoldPerson",
			erase: func(ctx context.Context, d *db.DB) error {
				_, err := d.Erase(ctx, db.Erasure{Team: team, User: "UA", By: "U0ADMIN"})
				return err
			},
		},
		"no turn's, its workspace erased": {
			actor: user("UA"), place: shared, stored: team, lock: "EraseHoldTeam",
			erase: func(ctx context.Context, d *db.DB) error {
				_, err := d.EraseTeam(ctx, team)
				return err
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d := testdb.New(t)
			store := memory.New(d.DB, memory.Options{})
			req := memory.WriteRequest{Actor: tc.actor, Place: tc.place, MessageTS: "1800000001.000100", Kind: memory.KindPreference,
				Content: "Prefers terse release notes", WrittenBy: provenance.ByExplicit}
			if tc.turn {
				req.Turn, req.MessageTS = eraseRaceTurn(t, d, tc.place, tc.actor.ID, nil)
			}

			h, ended := holdWrite(ctx, store, req)
			if ended != nil {
				t.Fatalf("the write ended before its transaction held off erasures (err %v); %d memories under %s", ended.err, storedUnder(t, d, tc.stored), tc.stored)
			}
			release, wrote := h.release, h.wrote

			erased := make(chan error, 1)
			go func() { erased <- tc.erase(ctx, d.DB) }()
			if err, waited := testdb.AwaitLockWait(ctx, t, d, tc.lock, erased); !waited {
				close(release)
				w := <-wrote
				t.Fatalf("the erasure finished (err %v) while a write it deletes was under way (err %v); %d memories under %s left after the write",
					err, w.err, storedUnder(t, d, tc.stored), tc.stored)
			}
			close(release)
			w := <-wrote
			require.NoError(t, w.err)
			require.Equal(t, memory.Stored, w.out.Status, "the write under way was stored")
			require.Equal(t, tc.stored, w.out.Memory.Team)
			require.NoError(t, <-erased)
			require.Zero(t, storedUnder(t, d, tc.stored), "and the erasure that waited for it deleted it")

			// A later write of a person still in the conversation is a new
			// one, and stays.
			req.Content = "Prefers release notes in the changelog channel"
			out, err := store.Remember(ctx, req)
			require.NoError(t, err)
			require.Equal(t, memory.Stored, out.Status)
			require.Equal(t, 1, storedUnder(t, d, tc.stored), "the count finds a memory written")
		})
	}
}
