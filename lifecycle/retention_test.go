package lifecycle_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/lifecycle"
)

// deleted is a retention observer that counts.
type deleted struct {
	mu      sync.Mutex
	batches map[string]int
	rows    map[string]int64
}

func (d *deleted) RetentionDeleted(table string, n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.batches[table]++
	d.rows[table] += n
}

// TestRetentionDeletesOnlyWhatIsPastItsTime: rows older than their
// retention go, in batches, with what depends on them; everything newer,
// still active, or not yet delivered stays.
func TestRetentionDeletesOnlyWhatIsPastItsTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	now := time.Now()
	old, recent := now.Add(-100*24*time.Hour), now.Add(-time.Hour)
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := d.Pool.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		require.NoError(t, d.Pool.QueryRow(ctx, sql, args...).Scan(&n), sql)
		return n
	}
	// Conversations: three old turns with their messages, learning record
	// and feedback; one recent.
	for i, at := range []time.Time{old, old, old, recent} {
		var turn int64
		require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id, status, created_at)
			VALUES ('T1', 'C1', $1, 'k', 'U1', 'done', $2) RETURNING id`, fmt.Sprintf("1700000000.%06d", i), at).Scan(&turn))
		exec(`INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, authority, text, turn_id, created_at)
			VALUES ('k', 'T1', 'C1', $1, 'user', 'user', 'U1', 'instruction', 'hello', $2, $3)`, fmt.Sprintf("1700000000.%06d", i), turn, at)
		exec(`INSERT INTO turn_learning (turn_id, stored, dropped) VALUES ($1, 0, 0)`, turn)
		exec(`INSERT INTO turn_feedback (turn_id, user_id, value, at) VALUES ($1, 'U2', 'positive', $2)`, turn, at)
	}
	// Memories: three archived long ago (with history), one archived
	// recently, one old and still active.
	for i, archived := range []*time.Time{&old, &old, &old, &recent, nil} {
		var id string
		require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized, source_key, channel_id,
			visibility, actor_id, written_by, message_ts, observed_at, created_at, archived_at, idempotency_key)
			VALUES ('T1', 'personal', 'user', 'U1', 'preference', $1, $1, 'k', 'C1', 'public', 'U1', 'explicit', '1', $2, $2, $3, $1) RETURNING id::text`,
			fmt.Sprintf("memory %d", i), old, archived).Scan(&id))
		exec(`INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason) VALUES ($1, 'T1', 'create', 'U1', 'explicit', 'a reason')`, id)
	}
	// One superseded by a memory retention deletes: the link goes, the row stays.
	exec(`UPDATE memories SET superseded_by = (SELECT id FROM memories WHERE content = 'memory 0') WHERE content = 'memory 4'`)
	// The inbox: two delivered long ago, one recently, one never delivered.
	for i, moved := range []*time.Time{&old, &old, &recent, nil} {
		exec(`INSERT INTO inbox_arrivals (team, channel, ts, args, arrived_at, moved_at) VALUES ('T1', 'C1', $1, '{}', $2, $3)`, fmt.Sprintf("1700000001.%06d", i), old, moved)
	}
	// River's jobs: two finished long ago, one recently, one still waiting.
	for _, j := range []struct {
		state string
		at    *time.Time
	}{{"completed", &old}, {"discarded", &old}, {"completed", &recent}, {"available", nil}} {
		exec(`INSERT INTO river_job (args, kind, max_attempts, state, finalized_at, created_at) VALUES ('{"text":"hi"}', 'mnemo_turn', 5, $1::river_job_state, $2, $3)`, j.state, j.at, old)
	}

	// The ids of memories erasures deleted: two long ago, one recently.
	for _, at := range []time.Time{old, old, recent} {
		exec(`INSERT INTO erased_memories (team_id, id, erased_at) VALUES ('T1', gen_random_uuid(), $1)`, at)
	}

	obs := &deleted{batches: map[string]int{}, rows: map[string]int64{}}
	got, err := lifecycle.Sweeper{DB: d.DB, Retention: lifecycle.Defaults, Observer: obs, Batch: 2}.Sweep(ctx, now)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"session_messages": 3, "turns": 3, "memories": 3, "inbox_arrivals": 2, "river_job": 2, "erased_memories": 2}, got)
	require.Equal(t, got, obs.rows, "the metric counts every row deleted")
	require.Greater(t, obs.batches["session_messages"], 1, "deleted in batches")

	require.Equal(t, 1, count(`SELECT count(*) FROM session_messages`))
	require.Equal(t, 1, count(`SELECT count(*) FROM turns`))
	require.Equal(t, 1, count(`SELECT count(*) FROM turn_learning`), "a turn's learning record goes with it")
	require.Equal(t, 1, count(`SELECT count(*) FROM turn_feedback`))
	require.Equal(t, "memory 3,memory 4", collect(t, d, `SELECT content FROM memories ORDER BY content`))
	require.Equal(t, 2, count(`SELECT count(*) FROM memory_events`), "history goes with its memory")
	require.Equal(t, 0, count(`SELECT count(*) FROM memories WHERE superseded_by IS NOT NULL`))
	require.Equal(t, 2, count(`SELECT count(*) FROM inbox_arrivals`), "the recent delivery and the waiting post stay")
	require.Equal(t, 1, count(`SELECT count(*) FROM inbox_arrivals WHERE moved_at IS NULL`))
	require.Equal(t, 2, count(`SELECT count(*) FROM river_job`))
	require.Equal(t, 1, count(`SELECT count(*) FROM river_job WHERE state = 'available'`))
	require.Equal(t, 1, count(`SELECT count(*) FROM erased_memories`), "an erased memory's id lives as long as an archived memory")
}

func collect(t *testing.T, d *testdb.DB, sql string) string {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), sql)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return strings.Join(out, ",")
}

// Issue 23: a workspace uninstalled longer ago than its grace period is
// erased whole by the sweep; one uninstalled more recently, and one still
// installed, are kept (the controls).
func TestRetentionErasesAWorkspaceUninstalledPastItsGracePeriod(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	now := time.Now()
	for _, q := range []string{
		`INSERT INTO installations (team_id, token_ciphertext, token_nonce, token_key_id, bot_user_id, installer_id, disabled_at, disabled_why)
		 VALUES ('T0GONE', '\x01', '\x02', 'k1', 'UB', 'U1', now() - interval '31 days', 'app_uninstalled'),
		        ('T0RECENT', '\x01', '\x02', 'k1', 'UB', 'U1', now() - interval '2 days', 'app_uninstalled'),
		        ('T0LIVE', '\x01', '\x02', 'k1', 'UB', 'U1', NULL, '')`,
		`INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized, source_key, channel_id, visibility, actor_id, written_by, message_ts, observed_at, idempotency_key)
		 SELECT t, 'personal', 'user', 'U1', 'preference', 'Prefers tea', 'prefers tea', 'slack:' || t || ':D1:1.000100', 'D1', 'dm', 'U1', 'explicit', '1.000100', now(), t
		 FROM unnest(ARRAY['T0GONE', 'T0RECENT', 'T0LIVE']) t`,
		`INSERT INTO user_settings (team_id, user_id, learning_enabled) VALUES ('T0GONE', 'U1', false), ('T0LIVE', 'U1', false)`,
	} {
		_, err := d.Pool.Exec(ctx, q)
		require.NoError(t, err)
	}
	obs := &deleted{batches: map[string]int{}, rows: map[string]int64{}}
	got, err := lifecycle.Sweeper{DB: d.DB, Uninstalled: 30 * lifecycle.Day, Observer: obs}.Sweep(ctx, now)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{lifecycle.TableTeams: 1}, got)
	count := func(sql string) string {
		return collect(t, d, sql)
	}
	require.Equal(t, "T0LIVE,T0RECENT", count(`SELECT team_id FROM memories ORDER BY team_id`))
	require.Equal(t, "T0LIVE,T0RECENT", count(`SELECT team_id FROM installations ORDER BY team_id`))
	require.Equal(t, "T0LIVE", count(`SELECT team_id FROM user_settings ORDER BY team_id`))
}

// Issue 33: an organisation's org-wide installation uninstalled past its
// grace period is erased with the workspaces it served: their data, its
// record of them (installation_teams) and its installation with the
// sealed token. A workspace of it with an installation of its own keeps
// its data and is served by that alone; an organisation uninstalled more
// recently is kept whole (the control).
func TestRetentionErasesAnOrganisationUninstalledPastItsGracePeriod(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	now := time.Now()
	for _, q := range []string{
		`INSERT INTO installations (team_id, enterprise_id, token_ciphertext, token_nonce, token_key_id, bot_user_id, installer_id, disabled_at, disabled_why)
		 VALUES ('', 'E0GONE', '\x01', '\x02', 'k1', 'UB', 'U1', now() - interval '31 days', 'tokens_revoked'),
		        ('', 'E0RECENT', '\x01', '\x02', 'k1', 'UB', 'U1', now() - interval '2 days', 'app_uninstalled'),
		        ('T0OWN', '', '\x01', '\x02', 'k1', 'UB', 'U1', NULL, '')`,
		`INSERT INTO installation_teams (team_id, enterprise_id) VALUES ('T0GA', 'E0GONE'), ('T0GB', 'E0GONE'), ('T0OWN', 'E0GONE'), ('T0RA', 'E0RECENT')`,
		`INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized, source_key, channel_id, visibility, actor_id, written_by, message_ts, observed_at, idempotency_key)
		 SELECT t, 'personal', 'user', 'U1', 'preference', 'Prefers tea', 'prefers tea', 'slack:' || t || ':D1:1.000100', 'D1', 'dm', 'U1', 'explicit', '1.000100', now(), t
		 FROM unnest(ARRAY['T0GA', 'T0GB', 'T0OWN', 'T0RA']) t`,
	} {
		_, err := d.Pool.Exec(ctx, q)
		require.NoError(t, err)
	}
	sweep := lifecycle.Sweeper{DB: d.DB, Uninstalled: 30 * lifecycle.Day, Batch: 1}
	got, err := sweep.Sweep(ctx, now)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{lifecycle.TableTeams: 1}, got, "one workspace a sweep at a batch of one; the organisation waits for the other")
	require.Equal(t, "E0GONE,E0RECENT", collect(t, d, `SELECT enterprise_id FROM installations WHERE team_id = '' ORDER BY 1`))
	got, err = sweep.Sweep(ctx, now)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{lifecycle.TableTeams: 1, lifecycle.TableOrganisations: 1}, got)
	require.Equal(t, "T0OWN,T0RA", collect(t, d, `SELECT team_id FROM memories ORDER BY team_id`))
	require.Equal(t, "E0RECENT,T0OWN", collect(t, d, `SELECT team_id || enterprise_id FROM installations ORDER BY 1`))
	require.Equal(t, "T0RA", collect(t, d, `SELECT team_id FROM installation_teams ORDER BY team_id`))
}
