package memory_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// saidInTeam counts the memories said in the team's conversations, under
// every team (its own, its organisation's enterprise id), in every state.
func saidInTeam(t *testing.T, d *testdb.DB) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM memories WHERE starts_with(source_key, 'slack:' || $1::text || ':')`, team).Scan(&n))
	return n
}

// A turn's write under way when its workspace's erasure starts, or its
// organisation's (which erases each workspace it served), holds the erasure
// off until it commits; the erasure then deletes what it wrote, in the
// team or under the organisation's enterprise id, and a write of the same
// turn after it is refused. The write is stopped inside its transaction,
// the erasure started, and the write let go only once the erasure is seen
// waiting for its lock. The count that finds nothing at the end finds the
// write's memory once it commits (the failure message says so).
func TestTeamErasureWaitsForATurnWriteUnderWayAndDeletesIt(t *testing.T) {
	t.Parallel()
	const enterprise = "E1"
	orgThread := provenance.Place{Team: team, Org: enterprise, Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public}
	for name, tc := range map[string]struct {
		place  provenance.Place
		req    memory.WriteRequest
		stored string // the team the memory is stored under
		erase  func(context.Context, *db.DB) error
	}{
		"a workspace's erasure, a DM's preference": {
			place:  dmAlice,
			req:    memory.WriteRequest{Actor: user("UA"), Kind: memory.KindPreference, Content: "Prefers terse release notes"},
			stored: team,
			erase: func(ctx context.Context, d *db.DB) error {
				_, err := d.EraseTeam(ctx, team)
				return err
			},
		},
		"an organisation's erasure, an org-scope memory": {
			place: orgThread,
			req: memory.WriteRequest{Actor: adminUser("UA"), Scope: memory.ScopeWorkspace, Kind: memory.KindProcedure,
				Content: "Deploys go out on Tuesdays after QA sign-off"},
			stored: enterprise,
			erase: func(ctx context.Context, d *db.DB) error {
				teams, _, err := d.EraseOrganisation(ctx, enterprise)
				if err == nil && !slices.Equal(teams, []string{team}) {
					return fmt.Errorf("the organisation's erasure erased workspaces %v, not %s", teams, team)
				}
				return err
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d := testdb.New(t)
			if tc.place.Org != "" {
				// The organisation's installation, uninstalled, served the
				// team, which has none of its own.
				for _, sql := range []string{
					`INSERT INTO installations (team_id, enterprise_id, token_ciphertext, token_nonce, token_key_id, bot_user_id, installer_id, disabled_at, disabled_why)
					 VALUES ('', 'E1', '\x01', '\x02', 'k1', 'UB', 'U1', now(), 'app_uninstalled')`,
					`INSERT INTO installation_teams (team_id, enterprise_id) VALUES ('T1', 'E1')`,
				} {
					_, err := d.Pool.Exec(ctx, sql)
					require.NoError(t, err, sql)
				}
			}
			store := memory.New(d.DB, memory.Options{})
			turn, ts := eraseRaceTurn(t, d, tc.place, "UA", nil)
			req := tc.req
			req.Place, req.MessageTS, req.WrittenBy, req.Turn = tc.place, ts, provenance.ByExplicit, turn

			h, ended := holdWrite(ctx, store, req)
			if ended != nil {
				t.Fatalf("the write ended before its transaction held: %v", ended.err)
			}
			release, wrote := h.release, h.wrote

			erased := make(chan error, 1)
			go func() { erased <- tc.erase(ctx, d.DB) }()
			// The signal that the erasure waits for the write: its backend
			// waits on a lock in the team's erasure's first statement.
			if err, waited := testdb.AwaitLockWait(ctx, t, d, "EraseHoldTeam", erased); !waited {
				close(release)
				w := <-wrote
				t.Fatalf("the erasure finished (err %v) while a write of the team's turn was under way (err %v); %d memories said in the team left after the write",
					err, w.err, saidInTeam(t, d))
			}
			close(release)
			w := <-wrote
			require.NoError(t, w.err)
			require.Equal(t, memory.Stored, w.out.Status, "the write under way was stored")
			require.Equal(t, tc.stored, w.out.Memory.Team)
			require.NoError(t, <-erased)
			require.Zero(t, saidInTeam(t, d), "and the erasure that waited for it deleted it")

			// A write of the same turn after the erasure finds its turn gone.
			req.Content = "Release notes go in the changelog channel"
			_, err := store.Remember(ctx, req)
			require.ErrorIs(t, err, memory.ErrErased)
			require.Zero(t, saidInTeam(t, d), "nothing is written after the erasure")
		})
	}
}
