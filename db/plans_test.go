package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// notOnServesPaths are the queries sqlc generates that the plan test does
// not explain, each with the reason. Every other query must be explained:
// a new query fails the test until it runs in it or is listed here.
var notOnServesPaths = map[string]string{
	// Recall's plans, memory_bm25's own statements included, are explained
	// at 100,000 memories by memory's TestRecallPlansReadNoTableWhole.
	"MemorySearch": "recall: explained by memory's recall plan test",
	"MemoryRecent": "recall: explained by memory's recall plan test",
	// `/mnemo stats`, an admin's question now and then, counts every row
	// of the team: no index makes a count cheaper than what it counts.
	"StatsForTeam": "counts the team's memories and turns, on an admin's demand",
	// mnemo embeddings status, an operator's command, counts every active
	// memory, by model.
	"MemoryEmbeddingStatus":  "counts every active memory, on an operator's demand",
	"MemoryEmbeddingModels":  "counts every active memory by model, on an operator's demand",
	"MemoryEmbedQueueLength": "counts the embedding job's queue, on an operator's demand or once per backfill",
	// The embedding job's requeue, once per process, reads every active
	// memory: it is what finds those another model embedded.
	"MemoryEmbedRequeueOtherModels": "once per process start, every active memory",
	// Erasure runs once per purge an admin confirms (or per deleted
	// account, when enabled): it finds a person's rows in every table,
	// some of them by text (job args, audit detail), which no index serves.
	"EraseAttributeAuthored": "erasure: once per confirmed purge",
	"EraseAudit":             "erasure: once per confirmed purge",
	"EraseBackfills":         "erasure: once per confirmed purge",
	"EraseChannelSettings":   "erasure: once per confirmed purge",
	"EraseCountEvents":       "erasure: once per confirmed purge",
	"EraseDMChannelSettings": "erasure: once per confirmed purge",
	"EraseDMChannels":        "erasure: once per confirmed purge",
	"EraseDMLeases":          "erasure: once per confirmed purge",
	"EraseDMSessionMessages": "erasure: once per confirmed purge",
	"EraseDMTurns":           "erasure: once per confirmed purge",
	"EraseDMUsage":           "erasure: once per confirmed purge",
	"EraseDoomedMemories":    "erasure: once per confirmed purge",
	"EraseGuestMemories":     "erasure: once per confirmed purge of an external member",
	"EraseHoldPerson":        "erasure: once per confirmed purge, an advisory lock that reads no table",
	"EraseMemoryWrites":      "erasure: once per confirmed purge, of the few writes under way",
	"EraseOrganisationOf":    "erasure: once per confirmed purge",
	"EraseFeedback":          "erasure: once per confirmed purge",
	"EraseInboxArrivals":     "erasure: once per confirmed purge",
	"EraseInstaller":         "erasure: once per confirmed purge",
	"EraseOrgInstaller":      "erasure: once per confirmed purge in a workspace an organisation served",
	"EraseJobs":              "erasure: once per confirmed purge",
	"EraseMemories":          "erasure: once per confirmed purge",
	"EraseMemoryEventsBy":    "erasure: once per confirmed purge",
	"EraseRecordErased":      "erasure: once per confirmed purge",
	"EraseRunningJobs":       "erasure: once per confirmed purge",
	"EraseScrubMessages":     "erasure: once per confirmed purge",
	"EraseScrubTurns":        "erasure: once per confirmed purge",
	"EraseSessionMessages":   "erasure: once per confirmed purge",
	"EraseTraceCandidates":   "erasure: once per confirmed purge",
	"EraseTraceTurns":        "erasure: once per confirmed purge",
	"EraseTurnIDs":           "erasure: once per confirmed purge",
	"EraseTurns":             "erasure: once per confirmed purge",
	"EraseUserSettings":      "erasure: once per confirmed purge",
	"FeedbackCounts":         "counts the team's feedback, on an admin's demand",
	"UsageErase":             "erasure: once per confirmed purge",
	// `mnemo turns show <permalink>`: an operator's command, by channel and
	// ts without the team (channel ids are unique across workspaces).
	"TurnGetByMessage": "an operator's command, by permalink, and an admin's Inspect of a post",
	// `/mnemo stats` and `mnemo stats` sum a week of the team's usage, on
	// demand: what they sum grows with the team's turns.
	"UsageByDay":       "sums a week of the team's usage, on demand",
	"UsageTopChannels": "sums a week of the team's usage, on demand",
	"UsageTopPeople":   "sums a week of the team's usage, on demand",
	// A whole workspace's erasure (mnemo teams erase, or retention once an
	// uninstalled team's grace period ends) deletes every row it has: a
	// read of the team's rows, and of river_job's by text (job args).
	"EraseTeamAudit":             "team erasure: once per workspace",
	"EraseTeamBackfills":         "team erasure: once per workspace",
	"EraseTeamErasedMemories":    "team erasure: once per workspace",
	"EraseHoldTeam":              "team erasure: once per workspace, an advisory lock that reads no table",
	"EraseTeamChannelSettings":   "team erasure: once per workspace",
	"EraseTeamInboxArrivals":     "team erasure: once per workspace",
	"EraseTeamMemoryWrites":      "team erasure: once per workspace, of the few writes under way",
	"EraseTeamInstallations":     "team erasure: once per workspace",
	"EraseTeamInstallationTeams": "team erasure: once per workspace",
	// mnemo installs: an operator's listing.
	"InstallationTeamsOf":         "mnemo installs: an operator's command",
	"InstallationOrgTeamsToErase": "an organisation's erasure: once per organisation, by the operator or retention",
	"InstallationForgetOrgTeams":  "an organisation's erasure: once per organisation, by the operator or retention",
	"InstallationForgetOrg":       "an organisation's erasure: once per organisation, by the operator or retention",
	"InstallationOrgsErasable":    "retention: once per sweep, over the few org-wide installations",
	"EraseTeamJobs":               "team erasure: once per workspace",
	"EraseTeamLeases":             "team erasure: once per workspace",
	"EraseTeamMemories":           "team erasure: once per workspace",
	"EraseTeamMemoryEvents":       "team erasure: once per workspace",
	"EraseTeamSaidMemories":       "team erasure: once per workspace, every team's memories by source key prefix",
	"EraseTeamSessionMessages":    "team erasure: once per workspace",
	"EraseTeamTurns":              "team erasure: once per workspace",
	"EraseTeamUsage":              "team erasure: once per workspace",
	"EraseTeamUserSettings":       "team erasure: once per workspace",
	"EraseTeamNotify":             "team erasure: once per workspace, a notification that reads no table",
	"EraseTeamListen":             "once per serve's connection for erasures, a LISTEN that reads no table",
	// mnemo keys rotate reads and reseals every installation, one per team.
	"InstallationList":   "key rotation: an operator's command",
	"InstallationReseal": "key rotation: an operator's command",
}

// bigTables are filled with 100,000 rows: a sequential scan of one fails.
// thread_leases and thread_waiters hold a row per thread busy or post
// waiting right now, a few hundred at most, and are not among them.
var bigTables = []string{"memories", "memory_events", "session_messages", "turns", "turn_learning", "turn_feedback", "inbox_arrivals", "river_job", "admin_audit", "thread_backfills", "model_usage", "turn_steps"}

// manyRows is a read that grows with a table: a scan that reads this many
// rows reads a large part of it, through an index or not.
const manyRows = 10_000

// TestServePlansReadNoBigTableWhole: at 100,000 rows in each large table,
// no statement serve runs per turn, per event or on a timer (the sweeps,
// the mover, the reaper) reads a large table whole. Each is explained as it
// ran, with its arguments and its transaction's settings.
func TestServePlansReadNoBigTableWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	now := time.Now()
	require.NoError(t, corpus.Load(ctx, d.Pool, corpus.Spec{Rows: 100_000, Seed: 11, Now: now}))
	fill(t, d.Pool)

	rec := &testdb.Recorder{Prefix: ""}
	pool := d.Traced(t, rec)
	runServesQueries(t, db.New(pool), d.Pool)

	// Control: the check below does see a whole-table read.
	control := explain(t, d.Pool, testdb.Statement{Name: "control", SQL: "SELECT count(*) FROM session_messages WHERE text ILIKE $1", Args: []any{"%deploy%"}})
	require.NotEmpty(t, bigTableReads(t, control))

	explained := map[string]bool{}
	var whole []string
	for _, s := range rec.Got() {
		if _, skip := notOnServesPaths[s.Name]; skip {
			continue
		}
		explained[s.Name] = true
		for _, r := range bigTableReads(t, explain(t, d.Pool, s)) {
			whole = append(whole, s.Name+": "+r)
		}
	}
	require.Empty(t, whole, "statements that read a large table whole")
	var missing []string
	for _, name := range generatedQueries(t) {
		if _, skip := notOnServesPaths[name]; !skip && !explained[name] {
			missing = append(missing, name)
		}
	}
	require.Empty(t, missing, "queries neither explained nor listed in notOnServesPaths")
}

// fill puts 100,000 rows in each large table but memories (the corpus
// fills that), spread over many threads, channels and people, with one
// busy channel (a fifth of the turns), and analyzes them, as autovacuum
// would have.
func fill(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id, status, visibility, finished_at, reply_ts, created_at, updated_at)
		 SELECT 'TBENCH01', c, (1700000000 + i) || '.000100', 'slack:TBENCH01:' || c || ':' || (1700000000 + i - i % 7) || '.000100',
		        'U' || (i % 2000), 'done', 'public', now(), (1700000000 + i) || '.000200', now() - (100000 - i) * interval '1 minute', now() - (100000 - i) * interval '1 minute'
		 FROM generate_series(1, 100000) i, LATERAL (SELECT CASE WHEN i % 5 = 0 THEN 'CBUSY' ELSE 'C' || (i % 500) END AS c) ch`,
		`INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, authority, text, turn_id, created_at)
		 SELECT t.source_key, t.team_id, t.channel_id, t.message_ts, 'user', 'user', t.actor_id, 'instruction', 'how do we deploy the payments service', t.id, t.created_at
		 FROM turns t WHERE t.id % 2 = 0
		 UNION ALL
		 SELECT t.source_key, t.team_id, t.channel_id, t.reply_ts, 'assistant', 'bot', 'U0MNEMO', 'context', 'on Tuesdays after QA sign-off', t.id, t.created_at
		 FROM turns t WHERE t.id % 2 = 0`,
		`INSERT INTO turn_learning (turn_id, stored, dropped) SELECT id, 1, 0 FROM turns`,
		`INSERT INTO model_usage (turn_id, team_id, person_id, channel_id, provider, model, input_tokens, output_tokens, cached_tokens, at)
		 SELECT id, team_id, actor_id, channel_id, 'anthropic', 'm', 900, 100, 0, created_at FROM turns`,
		`INSERT INTO turn_steps (turn_id, kind, name, outcome, at) SELECT id, 'tool', 'memory__remember', 'ok', created_at FROM turns`,
		`INSERT INTO turn_feedback (turn_id, user_id, value, at) SELECT id, actor_id, 'positive', now() FROM turns`,
		`INSERT INTO memory_events (memory_id, team_id, action, actor_id, path)
		 SELECT id, team_id, 'create', actor_id, written_by FROM memories LIMIT 100000`,
		`INSERT INTO inbox_arrivals (team, channel, ts, args, arrived_at, moved_at)
		 SELECT 'TBENCH01', 'C' || (i % 500), (1700000000 + i) || '.000100', '{}', now() - interval '2 hours', now() - interval '2 hours' + interval '1 second'
		 FROM generate_series(1, 100000) i`,
		`INSERT INTO river_job (args, kind, queue, state, finalized_at, created_at)
		 SELECT '{}', 'turn', 'turns', 'completed', now() - interval '1 hour', now() - interval '1 hour' FROM generate_series(1, 100000)`,
		`INSERT INTO admin_audit (team_id, actor_id, action, target) SELECT 'TBENCH01', 'U0ADMIN', 'forget', 'x' FROM generate_series(1, 100000)`,
		`INSERT INTO thread_backfills (source_key, messages) SELECT DISTINCT source_key, 3 FROM turns`,
		`INSERT INTO thread_leases (source_key, post_ts, job_id, holder, expires_at)
		 SELECT 'slack:TBENCH01:CLEASE:' || i || '.000100', i || '.000100', i, 'replica-a', now() + interval '1 minute' FROM generate_series(1, 200) i`,
		`INSERT INTO thread_waiters (source_key, post_ts) SELECT 'slack:TBENCH01:CLEASE:' || i || '.000100', (i + 1) || '.000100' FROM generate_series(1, 200) i`,
		`ANALYZE`,
	} {
		_, err := pool.Exec(ctx, q)
		require.NoError(t, err, q)
	}
}

// runServesQueries runs every store method serve calls, with arguments that
// find rows, so each of its statements is recorded.
func runServesQueries(t *testing.T, d *db.DB, raw *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	var m struct {
		id                                    uuid.UUID
		team, subject, actor, channel, source string
	}
	require.NoError(t, raw.QueryRow(ctx, `SELECT id, team_id, subject_id, actor_id, channel_id, source_key FROM memories
		WHERE scope = 'personal' AND archived_at IS NULL AND team_id = $1 ORDER BY created_at DESC LIMIT 1`, corpus.Team).
		Scan(&m.id, &m.team, &m.subject, &m.actor, &m.channel, &m.source))
	var turnID int64
	var team, channel, ts, replyTS, source string
	require.NoError(t, raw.QueryRow(ctx, `SELECT id, team_id, channel_id, message_ts, reply_ts, source_key FROM turns WHERE id = 50000`).
		Scan(&turnID, &team, &channel, &ts, &replyTS, &source))
	key, err := threads.ParseSourceKey(source)
	require.NoError(t, err)
	ok := func(_ any, err error) { t.Helper(); require.NoError(t, err) }

	// A post arrives, is moved into River, accepted and answered.
	ok(d.Inbox().Arrive(ctx, db.Arrival{Team: team, Channel: channel, TS: "1800000000.000100", Args: []byte(`{}`)}))
	ok(nil, d.InTx(ctx, func(tx *db.Tx) error { _, _, err := tx.Inbox().TakeArrival(ctx); return err }))
	_, _, err = d.Inbox().Arrivals(ctx)
	ok(nil, err)
	ok(d.Inbox().Depth(ctx, "turns"))
	ok(d.Inbox().PruneMoved(ctx, db.KeepMoved, 500))
	ok(d.Turns().Find(ctx, team, channel, ts))
	ok(d.Sessions().BackfillNeeded(ctx, threads.Key{Team: key.Team, Channel: "CNEW", Root: "1800000000.000100"}))
	ok(d.Sessions().Backfill(ctx, threads.Key{Team: key.Team, Channel: "CNEW", Root: "1800000000.000100"}, []threads.Message{
		{TS: "1800000000.000100", Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "U1"}, Text: "the root"},
	}))
	var opened db.Turn
	ok(nil, d.InTxRelaxed(ctx, func(tx *db.Tx) error {
		var err error
		if opened, _, err = tx.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: team, Channel: channel, SourceKey: source, Visibility: provenance.Public}, MessageTS: "1800000001.000100", ActorID: "U1"}); err != nil {
			return err
		}
		_, err = tx.Sessions().Append(ctx, key, threads.Message{TS: "1800000001.000100", Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "U1"}, Text: "hi", TurnID: &opened.ID})
		return err
	}))
	ok(d.Leases().Acquire(ctx, db.Lease{SourceKey: source, PostTS: "1800000001.000100", JobID: 1, Holder: "a"}, time.Minute))
	ok(d.Leases().Acquire(ctx, db.Lease{SourceKey: "slack:TBENCH01:CLEASE:1.000100", PostTS: "9.000100", JobID: 2, Holder: "b"}, time.Minute))
	ok(d.Leases().Renew(ctx, source, 1, time.Minute))
	ok(d.Turns().Attempt(ctx, opened.ID))
	ok(d.Sessions().History(ctx, key, threads.HistoryLimit))
	ok(d.Sessions().RecentInChannel(ctx, key, time.Now().Add(-24*time.Hour), 20))
	ok(d.Settings().LearningEnabled(ctx, team, channel))
	ok(d.Settings().UserLearningEnabled(ctx, team, "U1"))
	ok(nil, d.Usage().SetTrace(ctx, opened.ID, "4bf92f3577b34da6a3ce929d0e0e4736"))
	// Before each model call, the budgets; after it, its usage.
	ok(d.Usage().Spent(ctx, team, "U1", "CBUSY", opened.ID, time.Now().UTC().Truncate(24*time.Hour)))
	ok(nil, d.Usage().Record(ctx, db.ModelCall{TurnID: opened.ID, Team: team, Person: "U1", Channel: channel, Provider: "anthropic", Model: "m", InputTokens: 10, OutputTokens: 2, At: time.Now()}))
	ok(nil, d.Usage().RecordRecall(ctx, opened.ID, []db.Recalled{{Rank: 1, MemoryID: m.id, Score: 0.5}}, db.Step{Kind: db.StepRecall, Name: "recall", Outcome: "ok", At: time.Now()}))
	ok(nil, d.Usage().RecordStep(ctx, opened.ID, db.Step{Kind: db.StepTool, Name: "memory__remember", Outcome: "ok", At: time.Now()}))
	ok(nil, d.Turns().Streamed(ctx, opened.ID, "1800000001.000200"))
	ok(d.Turns().Decide(ctx, opened.ID, db.Pending{Kind: db.PendingAnswer, Text: "hello"}, false))
	ok(nil, d.Turns().Finish(ctx, opened.ID, db.TurnDone, false, "1800000001.000200"))
	ok(nil, d.Leases().Release(ctx, source, 1))
	// The next post of the thread, taken up in one batch with its lease.
	ok(d.Turns().Take(ctx, db.TurnTake{
		Start: db.TurnStart{Place: provenance.Place{Team: team, Channel: channel, SourceKey: source, Visibility: provenance.Public}, MessageTS: "1800000002.000100", ActorID: "U1"},
		Key:   key, Post: threads.Message{TS: "1800000002.000100", Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: "U1"}, Text: "and again"},
		Lease: &db.Lease{SourceKey: source, PostTS: "1800000002.000100", JobID: 3, Holder: "c"}, TTL: time.Minute,
	}))
	ok(d.Turns().Get(ctx, turnID))
	// `mnemo turns show` and the Inspect shortcut read one turn.
	ok(d.Usage().OfTurn(ctx, turnID))
	ok(d.Usage().Steps(ctx, turnID))
	ok(d.Usage().Recalls(ctx, opened.ID))

	// Learning after the turn.
	_, _, err = d.Sessions().ForTurn(ctx, source, turnID, 40)
	ok(nil, err)
	ok(d.Turns().Learned(ctx, turnID))
	ok(d.Turns().RecordLearning(ctx, opened.ID, 0, 0))

	// A memory write, as remember does it: it records that it is under
	// way, then holds off the erasures that would delete it, finds its
	// record, and a turn's its turn and the message it came from; at the
	// end its record goes.
	var asker string
	require.NoError(t, raw.QueryRow(ctx, `SELECT actor_id FROM turns WHERE id = $1`, turnID).Scan(&asker))
	began, err := d.Memories().BeginWrite(ctx, db.Writer{Team: team, Author: asker})
	require.NoError(t, err)
	ok(nil, d.InTx(ctx, func(tx *db.Tx) error {
		if err := tx.Memories().LockSubject(ctx, "k"); err != nil {
			return err
		}
		if err := tx.Memories().HoldErasure(ctx, db.Writer{Team: team, Author: asker}); err != nil {
			return err
		}
		kept, err := tx.Memories().TurnSourceKept(ctx, db.TurnSource{Team: team, Turn: turnID, MessageTS: ts, Author: asker})
		if err != nil {
			return err
		}
		if !kept {
			return fmt.Errorf("turn %d: its source is not found", turnID)
		}
		if kept, err = tx.Memories().WriteKept(ctx, team, began); err != nil || !kept {
			return fmt.Errorf("write %d: its record is not found (%v)", began, err)
		}
		if kept, err = tx.Memories().EndWrite(ctx, team, began); err != nil || !kept {
			return fmt.Errorf("write %d: its record is not ended (%v)", began, err)
		}
		if _, err := tx.Memories().FindSimilar(ctx, db.SimilarQuery{Team: m.team, Scope: "personal", SubjectType: "user", SubjectID: m.subject, Normalized: "deploys go out on tuesdays", MinSimilarity: 0.5, Limit: 8}); err != nil {
			return err
		}
		ins, err := tx.Memories().Insert(ctx, db.MemoryInsert{Team: m.team, Scope: "personal", SubjectType: "user", SubjectID: m.subject, Kind: "preference",
			Content: "I prefer tabs", Normalized: "i prefer tabs", SourceKey: source, ChannelID: channel, Visibility: "public", ActorID: m.subject,
			WrittenBy: "explicit", MessageTS: "1800000001.000100", ObservedAt: time.Now(), IdempotencyKey: uuid.NewString(), Embedding: []float32{0.1, 0.2}})
		if err != nil {
			return err
		}
		if err := tx.Memories().SetEmbeddings(ctx, "test-model", map[uuid.UUID][]float32{ins.ID: {0.3, 0.4}}); err != nil {
			return err
		}
		return tx.Memories().RecordEvent(ctx, db.MemoryEvent{MemoryID: ins.ID, Team: m.team, Action: "create", ActorID: m.subject, Path: "explicit"})
	}))
	// The background embedding job's read of its queue.
	ok(d.Memories().EmbedPending(ctx, 64))
	ok(d.Memories().Embeddings(ctx, []uuid.UUID{m.id}))

	// Forget, restore, history, the App Home, the admin's commands.
	ok(d.Memories().Get(ctx, m.team, m.id))
	ok(d.Memories().ListByIDPrefix(ctx, m.team, m.id.String()[:6]))
	// A write's check that what it merges or replaces is still active.
	ok(d.Memories().ActiveIDs(ctx, m.team, []uuid.UUID{m.id}))
	ok(d.Memories().Archive(ctx, m.id, "forgotten", m.subject, nil))
	// Restore's checks: expired, replaced by an active memory, identical
	// to an active one (none here: ErrNotFound); and the archiving, as the
	// sweep's, of an identical one past its expiry (by id, and by key as a
	// write does when its insert meets one).
	_, _, err = d.Memories().ForRestore(ctx, m.team, m.id)
	ok(nil, err)
	notFound := func(_ any, err error) {
		t.Helper()
		if !errors.Is(err, db.ErrNotFound) {
			require.NoError(t, err)
		}
	}
	notFound(d.Memories().ActiveReplacement(ctx, m.team, m.id))
	notFound(d.Memories().ActiveIdentical(ctx, m.team, m.id))
	ok(d.Memories().ArchiveExpiredIdentical(ctx, m.team, "", m.id))
	ok(d.Memories().ArchiveExpiredIdentical(ctx, m.team, "0123456789abcdef", uuid.Nil))
	ok(d.Memories().Restore(ctx, m.id))
	// A restore of a memory that is gone asks whether an erasure deleted it.
	if _, err := d.Lifecycle().ErasedAt(ctx, m.team, m.id.String()[:8]); !errors.Is(err, db.ErrNotFound) {
		require.NoError(t, err)
	}
	ok(d.Memories().History(ctx, m.id))
	ok(d.Memories().ListBySubject(ctx, db.SubjectQuery{Team: m.team, User: m.subject, Limit: 20}))
	ok(d.Memories().ListBySubject(ctx, db.SubjectQuery{Team: m.team, User: m.actor, Authored: true, Limit: 20}))
	ok(d.Memories().CountPersonal(ctx, m.team, m.subject))
	ok(d.Memories().List(ctx, db.ListQuery{Team: m.team, Limit: 20}))
	ok(d.Memories().List(ctx, db.ListQuery{Team: m.team, Query: "staging", Limit: 20}))
	ok(d.Memories().List(ctx, db.ListQuery{Team: m.team, Query: "kubernetz", Limit: 20}))
	ok(d.Memories().List(ctx, db.ListQuery{Team: m.team, SubjectUser: m.subject, Limit: 20}))
	ok(d.Memories().List(ctx, db.ListQuery{Team: m.team, Channel: m.channel, Limit: 20}))
	ok(nil, d.Settings().SetLearning(ctx, team, channel, false, "U0ADMIN"))
	ok(nil, d.Settings().SetUserLearning(ctx, team, "U1", false))
	ok(nil, d.Audit().Record(ctx, db.AuditEntry{Team: team, ActorID: "U0ADMIN", Action: db.AuditLearningOff, Target: channel}))

	// A 👍 on a reply.
	ok(d.Feedback().TurnOfReply(ctx, team, channel, replyTS))
	ok(nil, d.Feedback().Record(ctx, db.TurnFeedback{TurnID: turnID, UserID: "U1", Value: db.Positive, At: time.Now()}))
	ok(d.Feedback().Get(ctx, turnID, "U1"))

	// The timers: retention, expiry, abandoned turns, leases and waiters.
	for _, table := range []string{db.TableSessionMessages, db.TableTurns, db.TableMemories, db.TableInboxArrivals, db.TableJobs, db.TableErasedMemories} {
		ok(d.Lifecycle().DeleteExpired(ctx, table, time.Now().Add(-90*24*time.Hour), 1000))
	}
	ok(d.Memories().ArchiveExpired(ctx))
	ok(d.Turns().ClaimAbandoned(ctx, time.Now().Add(-time.Hour), 10))
	ok(d.Leases().ReapExpired(ctx, 10))
	ok(d.Leases().PruneWaiters(ctx, time.Now().Add(-time.Minute)))

	// Installations: an install, the per-team lookup of events on a cache
	// miss, an org's lookup, an uninstall and retention's look for teams
	// past their grace period.
	ok(nil, d.Installations().Save(ctx, db.Installation{Team: team, Token: db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}, BotUserID: "UBOT", InstallerID: "U1"}))
	ok(d.Installations().Find(ctx, team, ""))
	ok(d.Installations().Find(ctx, team, "E1"))
	ok(nil, d.Installations().Save(ctx, db.Installation{Enterprise: "E1", Token: db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}, BotUserID: "UBOT", InstallerID: "U1"}))
	ok(nil, d.Installations().ServeTeam(ctx, "T0ORGMEMBER", "E1"))
	ok(d.Installations().Find(ctx, "T0ORGMEMBER", ""))
	// An org admin removes the org-wide installation from a workspace, and
	// adds it again.
	ok(d.Installations().ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E1", Teams: []string{"T0ORGMEMBER"}, Revoked: true, EventID: "Ev0ACCESS1", Sent: time.Now()}))
	ok(d.Installations().ChangeTeamAccess(ctx, db.TeamAccess{Enterprise: "E1", Teams: []string{"T0ORGMEMBER"}, EventID: "Ev0ACCESS2", Sent: time.Now()}))
	// The two in one second: Slack, asked with the organisation's token,
	// settles the tie.
	ok(d.Installations().FindOrg(ctx, "E1"))
	ok(d.Installations().SettleTeamAccess(ctx, "E1", []string{"T0ORGMEMBER"}, []string{"T0ORGMEMBER"}, time.Now()))
	ok(d.Installations().Disable(ctx, db.Uninstall{Team: team, Why: "app_uninstalled", EventID: "Ev1", Sent: time.Now()}))
	ok(d.Installations().DisabledBefore(ctx, time.Now(), 100))
	ok(d.Installations().SpendOAuthState(ctx, []byte("nonce hash"), time.Now().Add(10*time.Minute)))
}

// generatedQueries are the names of every query in db/internal/dbsqlc.
func generatedQueries(t *testing.T) []string {
	files, err := filepath.Glob("internal/dbsqlc/*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var names []string
	re := regexp.MustCompile(`(?m)^-- name: (\w+)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}

// explain runs EXPLAIN (ANALYZE, BUFFERS) on s with its arguments, in a
// transaction with its settings that is rolled back.
func explain(t *testing.T, pool *pgxpool.Pool, s testdb.Statement) string {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	if s.Settings != "" {
		_, err := tx.Exec(ctx, strings.TrimPrefix(strings.TrimPrefix(s.Settings, "BEGIN READ ONLY;"), "BEGIN;"))
		require.NoError(t, err)
	}
	var plan string
	err = tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+s.SQL, s.Args...).Scan(&plan)
	require.NoError(t, err, s.Name)
	return plan
}

// bigTableReads lists the plan's reads of large tables that grow with them:
// sequential scans, and scans that read manyRows or more.
func bigTableReads(t *testing.T, plan string) []string {
	var out []struct {
		Plan map[string]any `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal([]byte(plan), &out))
	var reads []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		for _, b := range bigTables {
			if n["Relation Name"] != b {
				continue
			}
			// Rows read: those the node returned and those its filter
			// dropped, in every loop.
			loops, _ := n["Actual Loops"].(float64)
			rows, _ := n["Actual Rows"].(float64)
			removed, _ := n["Rows Removed by Filter"].(float64)
			switch read := rows*loops + removed; {
			case n["Node Type"] == "Seq Scan":
				reads = append(reads, fmt.Sprintf("Seq Scan on %s, filter %v", b, n["Filter"]))
			case read >= manyRows:
				reads = append(reads, fmt.Sprintf("%s on %s reads %.0f rows, filter %v", n["Node Type"], b, read, n["Filter"]))
			}
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	walk(out[0].Plan)
	return reads
}
