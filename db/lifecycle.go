package db

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Lifecycle deletes what mnemo must no longer keep: rows past their
// retention, and everything of a person who is erased. It reaches across
// the other stores' tables, and River's job table, on purpose: it is the
// one place that knows every table holding a person's text
// (docs/lifecycle.md lists them).
type Lifecycle struct {
	e executor
	q *dbsqlc.Queries
}

func (d *DB) Lifecycle() Lifecycle { return Lifecycle{d.pool, d.q} }

// Tombstone replaces erased text that stays in place (a thread's log, a
// running job) so that what remains still reads as a conversation.
const Tombstone = "[erased]"

// FormerMember is the author a memory is attributed to once its author is
// erased.
const FormerMember = "a former member"

// Retention tables, as the retention metric labels them.
const (
	TableSessionMessages = "session_messages"
	TableTurns           = "turns"
	TableMemories        = "memories"
	TableInboxArrivals   = "inbox_arrivals"
	TableJobs            = "river_job"
)

// DeleteExpired deletes at most max rows of table older than before, oldest
// first, and says how many it deleted:
//   - session_messages and turns by when they were written (a turn's
//     learning record and feedback go with it);
//   - memories archived (forgotten, superseded, expired) before then, with
//     their history;
//   - inbox_arrivals moved into River before then;
//   - river_job finished (completed, cancelled, discarded) before then.
func (s Lifecycle) DeleteExpired(ctx context.Context, table string, before time.Time, max int) (int64, error) {
	var (
		n   int64
		err error
	)
	switch table {
	case TableSessionMessages:
		n, err = s.q.RetentionSessionMessages(ctx, s.e, dbsqlc.RetentionSessionMessagesParams{Before: before, MaxRows: int32(max)})
	case TableTurns:
		n, err = s.q.RetentionTurns(ctx, s.e, dbsqlc.RetentionTurnsParams{Before: before, MaxRows: int32(max)})
	case TableMemories:
		n, err = s.q.RetentionMemories(ctx, s.e, dbsqlc.RetentionMemoriesParams{Before: before, MaxRows: int32(max)})
	case TableInboxArrivals:
		n, err = Inbox(s).PruneMoved(ctx, time.Since(before), max)
	case TableJobs:
		n, err = s.q.RetentionJobs(ctx, s.e, dbsqlc.RetentionJobsParams{Before: before, MaxRows: int32(max)})
	default:
		return 0, fmt.Errorf("retention: no table %q", table)
	}
	if err != nil {
		return n, fmt.Errorf("retention %s: %w", table, mapErr(err))
	}
	return n, nil
}

// Erasure says whom to erase and how.
type Erasure struct {
	Team, User string
	// By is who erases: an admin's id, or a system actor.
	By string
	// KeepShared keeps the shared memories the person wrote active,
	// attributed to a former member, instead of archiving them.
	KeepShared bool
}

// ReceiptLine is what erasure did to one table.
type ReceiptLine struct {
	Table  string
	Action string // deleted, tombstoned, archived, unattributed
	Rows   int64
}

// Receipt is erasure's account, table by table.
type Receipt []ReceiptLine

// Total is the rows erasure touched.
func (r Receipt) Total() int64 {
	var n int64
	for _, l := range r {
		n += l.Rows
	}
	return n
}

// Erase removes a person from the team's data, in one transaction:
//   - every memory whose subject they are, in every scope and state, is
//     deleted with its history (the recall index's triggers take its words
//     out of the postings and statistics in the same transaction);
//   - the shared memories they wrote are archived (retention then deletes
//     them) or, with KeepShared, kept; either way attributed to nobody, as
//     are their changes to memories that stay (their forget reasons go);
//   - their posts waiting or kept in the inbox, and their posts' jobs, are
//     deleted; a running job's text is a tombstone;
//   - their messages in the session log, mnemo's answers to them, and the
//     answers their turns keep for a retry are tombstones, and they are
//     nobody there;
//   - their model usage is nobody's (the totals and channel budgets stay
//     true; the rows go with their turns at retention);
//   - their feedback and their settings are deleted;
//   - the admin record names them nowhere, and an action's detail on a
//     memory deleted here is a tombstone.
//
// Erasing someone with nothing left is a receipt of zeros.
func (d *DB) Erase(ctx context.Context, e Erasure) (Receipt, error) {
	if e.Team == "" || e.User == "" {
		return nil, fmt.Errorf("erase: a team and a person are needed")
	}
	var r Receipt
	err := d.InTx(ctx, func(tx *Tx) error {
		q, x, team, user := tx.q, tx.tx, e.Team, e.User
		add := func(table, action string, n int64, err error) error {
			if err != nil {
				return fmt.Errorf("erase %s: %w", table, mapErr(err))
			}
			r = append(r, ReceiptLine{Table: table, Action: action, Rows: n})
			return nil
		}
		ids, err := q.EraseMemoryIDsAbout(ctx, x, dbsqlc.EraseMemoryIDsAboutParams{TeamID: team, UserID: user})
		if err != nil {
			return fmt.Errorf("erase memories: %w", mapErr(err))
		}
		events, err := q.EraseCountEventsAbout(ctx, x, dbsqlc.EraseCountEventsAboutParams{TeamID: team, UserID: user})
		if err != nil {
			return fmt.Errorf("erase memory events: %w", mapErr(err))
		}
		n, err := q.EraseMemoriesAbout(ctx, x, dbsqlc.EraseMemoriesAboutParams{TeamID: team, UserID: user})
		if err := add("memories", "deleted", n, err); err != nil {
			return err
		}
		if err := add("memory_events", "deleted", events, nil); err != nil {
			return err
		}
		if !e.KeepShared {
			n, err = q.EraseArchiveAuthored(ctx, x, dbsqlc.EraseArchiveAuthoredParams{TeamID: team, UserID: user, ErasedBy: e.By})
			if err := add("memories", "archived", n, err); err != nil {
				return err
			}
		}
		n, err = q.EraseAttributeAuthored(ctx, x, dbsqlc.EraseAttributeAuthoredParams{TeamID: team, UserID: user})
		if err := add("memories", "unattributed", n, err); err != nil {
			return err
		}
		n, err = q.EraseMemoryEventsBy(ctx, x, dbsqlc.EraseMemoryEventsByParams{TeamID: team, UserID: user})
		if err := add("memory_events", "unattributed", n, err); err != nil {
			return err
		}
		// The log before the turns: its answers are found by their turn's asker.
		n, err = q.EraseSessionMessages(ctx, x, dbsqlc.EraseSessionMessagesParams{TeamID: team, UserID: user, Tombstone: Tombstone})
		if err := add("session_messages", "tombstoned", n, err); err != nil {
			return err
		}
		n, err = q.EraseFeedback(ctx, x, dbsqlc.EraseFeedbackParams{TeamID: team, UserID: user})
		if err := add("turn_feedback", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseTurns(ctx, x, dbsqlc.EraseTurnsParams{TeamID: team, UserID: user, Tombstone: Tombstone})
		if err := add("turns", "tombstoned", n, err); err != nil {
			return err
		}
		n, err = q.UsageErase(ctx, x, dbsqlc.UsageEraseParams{TeamID: team, PersonID: user})
		if err := add("model_usage", "unattributed", n, err); err != nil {
			return err
		}
		n, err = q.EraseInboxArrivals(ctx, x, dbsqlc.EraseInboxArrivalsParams{TeamID: team, UserID: user})
		if err := add("inbox_arrivals", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseJobs(ctx, x, dbsqlc.EraseJobsParams{TeamID: team, UserID: user})
		if err := add("river_job", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseRunningJobs(ctx, x, dbsqlc.EraseRunningJobsParams{TeamID: team, UserID: user, Tombstone: Tombstone})
		if err := add("river_job", "tombstoned", n, err); err != nil {
			return err
		}
		n, err = q.EraseUserSettings(ctx, x, dbsqlc.EraseUserSettingsParams{TeamID: team, UserID: user})
		if err := add("user_settings", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseChannelSettings(ctx, x, dbsqlc.EraseChannelSettingsParams{TeamID: team, UserID: user})
		if err := add("channel_settings", "unattributed", n, err); err != nil {
			return err
		}
		if ids == nil {
			ids = []string{}
		}
		n, err = q.EraseAudit(ctx, x, dbsqlc.EraseAuditParams{TeamID: team, UserID: user, MemoryIds: ids, Tombstone: Tombstone})
		return add("admin_audit", "unattributed", n, err)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// EraseTeam deletes everything mnemo holds of a team, in one transaction:
// its memories with their history and index, the session log, turns with
// their learning records and feedback, settings, the inbox, jobs and
// thread leases, the admin record and the installation with its token.
// Erasing a team with nothing left is a receipt of zeros.
func (d *DB) EraseTeam(ctx context.Context, team string) (Receipt, error) {
	if team == "" {
		return nil, fmt.Errorf("erase team: a team is needed")
	}
	var r Receipt
	err := d.InTx(ctx, func(tx *Tx) error {
		q, x := tx.q, tx.tx
		steps := []struct {
			table string
			run   func() (int64, error)
		}{
			{"memories", func() (int64, error) { return q.EraseTeamMemories(ctx, x, team) }},
			{"memory_events", func() (int64, error) { return q.EraseTeamMemoryEvents(ctx, x, team) }},
			{"session_messages", func() (int64, error) { return q.EraseTeamSessionMessages(ctx, x, team) }},
			{"model_usage", func() (int64, error) { return q.EraseTeamUsage(ctx, x, team) }},
			{"turns", func() (int64, error) { return q.EraseTeamTurns(ctx, x, team) }},
			{"channel_settings", func() (int64, error) { return q.EraseTeamChannelSettings(ctx, x, team) }},
			{"user_settings", func() (int64, error) { return q.EraseTeamUserSettings(ctx, x, team) }},
			{"inbox_arrivals", func() (int64, error) { return q.EraseTeamInboxArrivals(ctx, x, team) }},
			{"river_job", func() (int64, error) { return q.EraseTeamJobs(ctx, x, team) }},
			{"thread_leases", func() (int64, error) { return q.EraseTeamLeases(ctx, x, team) }},
			{"admin_audit", func() (int64, error) { return q.EraseTeamAudit(ctx, x, team) }},
			{"installations", func() (int64, error) { return q.EraseTeamInstallations(ctx, x, team) }},
		}
		for _, s := range steps {
			n, err := s.run()
			if err != nil {
				return fmt.Errorf("erase team %s: %w", s.table, mapErr(err))
			}
			r = append(r, ReceiptLine{Table: s.table, Action: "deleted", Rows: n})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
