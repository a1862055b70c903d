package db

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

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
	TableErasedMemories  = "erased_memories"
)

// DeleteExpired deletes at most max rows of table older than before, oldest
// first, and says how many it deleted:
//   - session_messages and turns by when they were written (a turn's
//     learning record and feedback go with it);
//   - memories archived (forgotten, superseded, expired) before then, with
//     their history;
//   - inbox_arrivals moved into River before then;
//   - river_job finished (completed, cancelled, discarded) before then;
//   - erased_memories erased before then (as long as an archived memory
//     would have been kept).
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
	case TableErasedMemories:
		n, err = s.q.RetentionErasedMemories(ctx, s.e, dbsqlc.RetentionErasedMemoriesParams{Before: before, MaxRows: int32(max)})
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
	// KeepShared keeps the active shared memories the person wrote,
	// attributed to a former member, instead of deleting them.
	KeepShared bool
	// Home is the person's own workspace when it is not Team: an external
	// member of Team's Slack Connect channels, whose personal and thread
	// memories Team's conversations stored under their own team
	// (memory.HomeOf). Those, and only those (their source key is one of
	// Team's), are erased too.
	Home string
}

// ReceiptLine is what erasure did to one table.
type ReceiptLine struct {
	Table  string
	Action string // deleted, tombstoned, unattributed, scrubbed
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

// Erase removes a person from the team's data, in one transaction
// (docs/lifecycle.md says it table by table):
//   - their DMs with mnemo are theirs alone: every row of one (log, turns
//     with their usage, memories, inbox posts, jobs, settings, backfills,
//     thread leases and waiters) is deleted, so that no row keeps a DM's
//     channel id;
//   - every memory whose subject they are, in every scope and state, and
//     the shared memories they wrote (archived ones always, active ones
//     unless KeepShared) are deleted with their history; their ids are
//     kept, alone, so that restore can say why one is gone;
//   - other people's answers that recalled one of those memories (or an
//     external member's, below), named it in their tool trace, or ran in a
//     thread where the person spoke, lose their tool trace and any
//     word-for-word quote of such a memory, or of a whole message of the
//     person's in that thread (minQuotedMessage);
//   - what they wrote or did to the memories that stay is nobody's;
//   - their posts in the inbox and their jobs, in every state, are
//     deleted; a running job's args name nobody and nowhere;
//   - their messages elsewhere in the log, mnemo's answers to them, and
//     the answers their turns keep for a retry are tombstones, and they are
//     nobody there; their model usage is nobody's (the channels' budgets
//     stay true);
//   - their feedback and settings are deleted; the admin record and the
//     installations (the team's, and the org-wide one of its organisation)
//     name them nowhere;
//   - an external member's (e.Home): the memories the team's conversations
//     stored under their own team, about them or by them, are deleted
//     with their history, and scrubbed from the team's answers as the
//     team's own are;
//   - their organisation's memories (org-scope ones, stored under the
//     enterprise id of the organisation whose installation served the
//     team) go as the team's do: those about them and those they wrote
//     are deleted, and what they did to the others is nobody's.
//
// No memory is written past it: a write under way when it starts, from any
// workspace, is waited for and deleted with the rest
// (Memories.HoldErasure); one that began before it (a slash command's, the
// App Home's, MCP's, whose review calls a model) and is stored after it
// finds its record gone and is refused (Memories.EndWrite), and so is a
// turn of theirs that writes after it (Memories.TurnSourceKept). Erasing
// someone with nothing left is a receipt of zeros.
func (d *DB) Erase(ctx context.Context, e Erasure) (Receipt, error) {
	if e.Team == "" || e.User == "" {
		return nil, fmt.Errorf("erase: a team and a person are needed")
	}
	var r Receipt
	err := d.InTxRetrying(ctx, func(tx *Tx) error {
		r = nil // a deadlocked attempt's lines are not the receipt
		q, x, team, user := tx.q, tx.tx, e.Team, e.User
		add := func(table, action string, n int64, err error) error {
			if err != nil {
				return fmt.Errorf("erase %s: %w", table, mapErr(err))
			}
			r = append(r, ReceiptLine{Table: table, Action: action, Rows: n})
			return nil
		}
		// First, the lock every memory write by or about them holds while
		// it writes (Memories.HoldErasure), in any workspace (a Grid
		// member's id is the organisation's): a write under way commits
		// before any statement below reads, so they see and delete what it
		// wrote; a later one waits for this transaction, and then finds its
		// record (below), or its turn, gone. Erasure takes no other
		// advisory lock (a team's takes the team's alone), so none waits on
		// it in another order.
		if err := q.EraseHoldPerson(ctx, x, user); err != nil {
			return fmt.Errorf("erase: hold off the memory writes by or about them: %w", mapErr(err))
		}
		// What is theirs, found before anything changes: their DMs, their
		// turns, the memories that go.
		dms, err := q.EraseDMChannels(ctx, x, dbsqlc.EraseDMChannelsParams{TeamID: team, UserID: user})
		if err != nil {
			return fmt.Errorf("erase: their DMs: %w", mapErr(err))
		}
		dms = nonNil(dms)
		turns, err := q.EraseTurnIDs(ctx, x, dbsqlc.EraseTurnIDsParams{TeamID: team, UserID: user, DmChannels: dms})
		if err != nil {
			return fmt.Errorf("erase: their turns: %w", mapErr(err))
		}
		doomed, err := q.EraseDoomedMemories(ctx, x, dbsqlc.EraseDoomedMemoriesParams{TeamID: team, UserID: user, DmChannels: dms, KeepShared: e.KeepShared})
		if err != nil {
			return fmt.Errorf("erase memories: %w", mapErr(err))
		}
		// The organisation's memories are the team's too (every workspace
		// it serves reads them), keyed by its enterprise id: the person's
		// are found there by the same rules. A DM's memory is never the
		// organisation's, so no DM is looked for.
		org, err := q.EraseOrganisationOf(ctx, x, team)
		if err != nil {
			return fmt.Errorf("erase: their organisation: %w", mapErr(err))
		}
		hasOrg := org != "" && org != team
		// The writes of theirs that began before this and are not stored
		// yet (their review calls a model): their records go, and they
		// store nothing (Memories.EndWrite). Those said in the team, or
		// stored under it or its organisation, are those whose memory this
		// would delete (an external member's, stored under their own team,
		// is said in this one).
		writes := []string{team}
		if hasOrg {
			writes = append(writes, org)
		}
		n, err := q.EraseMemoryWrites(ctx, x, dbsqlc.EraseMemoryWritesParams{UserID: user, Teams: writes})
		if err := add("memory_writes", "deleted", n, err); err != nil {
			return err
		}
		var orgDoomed []dbsqlc.EraseDoomedMemoriesRow
		if hasOrg {
			orgDoomed, err = q.EraseDoomedMemories(ctx, x, dbsqlc.EraseDoomedMemoriesParams{TeamID: org, UserID: user, DmChannels: []string{}, KeepShared: e.KeepShared})
			if err != nil {
				return fmt.Errorf("erase memories in %s: %w", org, mapErr(err))
			}
		}
		// An external member's memories kept under their own team, found
		// as the team's are: the team's turns recall them too (a second
		// guest of their organisation in the same thread).
		guest := e.Home != "" && e.Home != team
		var guestDoomed []dbsqlc.EraseDoomedMemoriesRow
		if guest {
			rows, err := q.EraseGuestMemories(ctx, x, dbsqlc.EraseGuestMemoriesParams{TeamID: e.Home, UserID: user, SourcePrefix: "slack:" + team + ":"})
			if err != nil {
				return fmt.Errorf("erase their memories in %s: %w", e.Home, mapErr(err))
			}
			for _, m := range rows {
				guestDoomed = append(guestDoomed, dbsqlc.EraseDoomedMemoriesRow(m))
			}
		}
		ids, orgIDs, guestIDs := doomedIDs(doomed), doomedIDs(orgDoomed), doomedIDs(guestDoomed)

		// Other people's traces, while the recall records and the log still
		// say what they used: the team's turns recall its organisation's
		// memories, and a guest's kept under their own team, as they do its
		// own.
		all := slices.Concat(doomed, orgDoomed, guestDoomed)
		if err := scrubTraces(ctx, q, x, team, user, dms, all, add); err != nil {
			return err
		}

		if err := deleteMemories(ctx, q, x, team, ids, "", add); err != nil {
			return err
		}
		inOrg := " in their organisation " + org
		if hasOrg {
			if err := deleteMemories(ctx, q, x, org, orgIDs, inOrg, add); err != nil {
				return err
			}
		}
		// What the team's conversations stored of an external member
		// under their own team; the receipt's lines name that team.
		if guest {
			if err := deleteMemories(ctx, q, x, e.Home, guestIDs, " in their own workspace "+e.Home, add); err != nil {
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
		if hasOrg {
			n, err = q.EraseAttributeAuthored(ctx, x, dbsqlc.EraseAttributeAuthoredParams{TeamID: org, UserID: user})
			if err := add("memories", "unattributed"+inOrg, n, err); err != nil {
				return err
			}
			n, err = q.EraseMemoryEventsBy(ctx, x, dbsqlc.EraseMemoryEventsByParams{TeamID: org, UserID: user})
			if err := add("memory_events", "unattributed"+inOrg, n, err); err != nil {
				return err
			}
		}

		// The log before the turns: its answers are found by their turn's asker.
		n, err = q.EraseDMSessionMessages(ctx, x, dbsqlc.EraseDMSessionMessagesParams{TeamID: team, DmChannels: dms})
		if err := add("session_messages", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseSessionMessages(ctx, x, dbsqlc.EraseSessionMessagesParams{TeamID: team, UserID: user, Tombstone: Tombstone})
		if err := add("session_messages", "tombstoned", n, err); err != nil {
			return err
		}
		n, err = q.EraseFeedback(ctx, x, dbsqlc.EraseFeedbackParams{TeamID: team, UserID: user})
		if err := add("turn_feedback", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseDMUsage(ctx, x, dbsqlc.EraseDMUsageParams{TeamID: team, DmChannels: dms})
		if err := add("model_usage", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.UsageErase(ctx, x, dbsqlc.UsageEraseParams{TeamID: team, PersonID: user})
		if err := add("model_usage", "unattributed", n, err); err != nil {
			return err
		}
		n, err = q.EraseDMTurns(ctx, x, dbsqlc.EraseDMTurnsParams{TeamID: team, DmChannels: dms})
		if err := add("turns", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseTurns(ctx, x, dbsqlc.EraseTurnsParams{TeamID: team, UserID: user, Tombstone: Tombstone})
		if err := add("turns", "tombstoned", n, err); err != nil {
			return err
		}

		n, err = q.EraseInboxArrivals(ctx, x, dbsqlc.EraseInboxArrivalsParams{TeamID: team, UserID: user, DmChannels: dms})
		if err := add("inbox_arrivals", "deleted", n, err); err != nil {
			return err
		}
		turnIDs := make([]string, len(turns))
		for i, id := range turns {
			turnIDs[i] = strconv.FormatInt(id, 10)
		}
		n, err = q.EraseJobs(ctx, x, dbsqlc.EraseJobsParams{TeamID: team, UserID: user, DmChannels: dms, TurnIds: turnIDs})
		if err := add("river_job", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseRunningJobs(ctx, x, dbsqlc.EraseRunningJobsParams{TeamID: team, UserID: user, DmChannels: dms, TurnIds: turnIDs, Tombstone: Tombstone})
		if err := add("river_job", "tombstoned", n, err); err != nil {
			return err
		}
		n, err = q.EraseBackfills(ctx, x, dbsqlc.EraseBackfillsParams{TeamID: team, DmChannels: dms})
		if err := add("thread_backfills", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseDMLeases(ctx, x, dbsqlc.EraseDMLeasesParams{TeamID: team, DmChannels: dms})
		if err := add("thread_leases", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseUserSettings(ctx, x, dbsqlc.EraseUserSettingsParams{TeamID: team, UserID: user})
		if err := add("user_settings", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseDMChannelSettings(ctx, x, dbsqlc.EraseDMChannelSettingsParams{TeamID: team, DmChannels: dms})
		if err := add("channel_settings", "deleted", n, err); err != nil {
			return err
		}
		n, err = q.EraseChannelSettings(ctx, x, dbsqlc.EraseChannelSettingsParams{TeamID: team, UserID: user})
		if err := add("channel_settings", "unattributed", n, err); err != nil {
			return err
		}
		n, err = q.EraseInstaller(ctx, x, dbsqlc.EraseInstallerParams{TeamID: team, UserID: user})
		if err := add("installations", "unattributed", n, err); err != nil {
			return err
		}
		// An org-wide installation is stored with no team: the
		// organisation's, which served the team.
		if hasOrg {
			n, err = q.EraseOrgInstaller(ctx, x, dbsqlc.EraseOrgInstallerParams{EnterpriseID: org, UserID: user})
			if err := add("installations", "unattributed"+inOrg, n, err); err != nil {
				return err
			}
		}
		// The team's admin record may name a memory of its organisation's
		// (an admin of the team forgot or restored it).
		memoryIDs := make([]string, 0, len(ids)+len(orgIDs))
		for _, id := range append(slices.Clip(ids), orgIDs...) {
			memoryIDs = append(memoryIDs, id.String())
		}
		n, err = q.EraseAudit(ctx, x, dbsqlc.EraseAuditParams{TeamID: team, UserID: user, DmChannels: dms, MemoryIds: memoryIDs, Tombstone: Tombstone})
		return add("admin_audit", "unattributed", n, err)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// minQuotedMessage is the length, in characters, from which a message of
// the person's is looked for, whole, in the answers of its thread. Below
// it are acknowledgements and stock phrases ("ok", "yes please", "sounds
// good to me", "I'm not sure about that") that an answer says in its own
// words as often as it quotes them: taking those out would blank other
// people's answers that never quoted the person. A message this long,
// found whole in an answer of its own thread, is a quote.
const minQuotedMessage = 24

// scrubTraces takes out of other people's turns what they hold of the
// person: the tool trace of each answer tied to a memory erasure deletes
// (by its recall record, its trace, or its thread, where the person
// spoke), and every word-for-word quote, in those answers and in the
// answers their turns keep for a retry, of such a memory, and of a
// message of theirs in the answer's thread (minQuotedMessage characters
// at least). A paraphrase, or part of a message, is not found.
func scrubTraces(ctx context.Context, q *dbsqlc.Queries, x dbsqlc.DBTX, team, user string, dms []string, doomed []dbsqlc.EraseDoomedMemoriesRow,
	add func(table, action string, n int64, err error) error) error {
	ids := make([]uuid.UUID, len(doomed))
	short := make([]string, len(doomed))
	quotes := make([]string, 0, len(doomed))
	for i, m := range doomed {
		ids[i], short[i] = m.ID, m.ID.String()[:8]
		if strings.TrimSpace(m.Content) != "" {
			quotes = append(quotes, m.Content)
		}
	}
	// The longest first, so a quote that holds another is taken whole.
	longest := func(qs []string) {
		sort.SliceStable(qs, func(i, j int) bool { return len(qs[i]) > len(qs[j]) })
	}
	longest(quotes)
	// said are the person's messages of the answer's thread that it holds,
	// as the queries found them: a few at most.
	unquote := func(s string, said []string) string {
		all := quotes
		if len(said) > 0 {
			all = append(slices.Clip(quotes), said...)
			longest(all)
		}
		for _, c := range all {
			s = strings.ReplaceAll(s, c, Tombstone)
		}
		return s
	}
	msgs, err := q.EraseTraceCandidates(ctx, x, dbsqlc.EraseTraceCandidatesParams{TeamID: team, UserID: user, DmChannels: dms, MemoryIds: ids, ShortIds: short,
		Quotes: quotes, MinQuote: minQuotedMessage})
	if err != nil {
		return fmt.Errorf("erase traces: %w", mapErr(err))
	}
	m := dbsqlc.EraseScrubMessagesParams{TeamID: team}
	for _, c := range msgs {
		m.Ids, m.Texts, m.Tools = append(m.Ids, c.ID), append(m.Texts, unquote(c.Text, c.Said)), append(m.Tools, "")
	}
	n, err := q.EraseScrubMessages(ctx, x, m)
	if err := add("session_messages", "scrubbed", n, err); err != nil {
		return err
	}
	turns, err := q.EraseTraceTurns(ctx, x, dbsqlc.EraseTraceTurnsParams{TeamID: team, UserID: user, DmChannels: dms, MemoryIds: ids, MessageIds: nonNil(m.Ids),
		Quotes: quotes, MinQuote: minQuotedMessage})
	if err != nil {
		return fmt.Errorf("erase traces: %w", mapErr(err))
	}
	t := dbsqlc.EraseScrubTurnsParams{TeamID: team}
	for _, c := range turns {
		t.Ids, t.Texts = append(t.Ids, c.ID), append(t.Texts, unquote(c.PendingText, c.Said))
	}
	n, err = q.EraseScrubTurns(ctx, x, t)
	return add("turns", "scrubbed", n, err)
}

// doomedIDs are the ids of the memories erasure deletes, never nil.
func doomedIDs(doomed []dbsqlc.EraseDoomedMemoriesRow) []uuid.UUID {
	ids := make([]uuid.UUID, len(doomed))
	for i, m := range doomed {
		ids[i] = m.ID
	}
	return ids
}

// deleteMemories deletes team's memories ids with their history, and
// records their ids, so that restore can say why one is gone. in, when
// team is not the erasure's, says where on the receipt's lines.
func deleteMemories(ctx context.Context, q *dbsqlc.Queries, x dbsqlc.DBTX, team string, ids []uuid.UUID, in string,
	add func(table, action string, n int64, err error) error) error {
	n, err := q.EraseRecordErased(ctx, x, dbsqlc.EraseRecordErasedParams{TeamID: team, MemoryIds: ids})
	if err := add("erased_memories", "recorded"+in, n, err); err != nil {
		return err
	}
	events, err := q.EraseCountEvents(ctx, x, dbsqlc.EraseCountEventsParams{TeamID: team, MemoryIds: ids})
	if err != nil {
		return fmt.Errorf("erase memory events%s: %w", in, mapErr(err))
	}
	n, err = q.EraseMemories(ctx, x, dbsqlc.EraseMemoriesParams{TeamID: team, MemoryIds: ids})
	if err := add("memories", "deleted"+in, n, err); err != nil {
		return err
	}
	return add("memory_events", "deleted"+in, events, nil)
}

// nonNil is s, or an empty slice for nil: a nil slice is NULL to
// PostgreSQL, and x = ANY(NULL) is never true but never false either.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// EraseTeam deletes everything mnemo holds of a team, in one transaction:
// its memories with their history and index, the session log, turns with
// their learning records and feedback, settings, the inbox, jobs, thread
// leases and backfills, the ids of memories its erasures deleted, the
// admin record and the installation with its token. What was said in its
// conversations but stored under another team goes too: its Slack Connect
// external members' memories, kept under their own team (memory.HomeOf),
// whose organisation may never install mnemo to erase them, and its
// organisation's memories said there.
//
// No memory is written past it: a write said in the team or stored under
// it, under way when it starts, is waited for and deleted with the rest
// (Memories.HoldErasure), and a turn's after it finds its turn gone
// (Memories.TurnSourceKept). The session log's lines of no turn, backfills
// and inbox arrivals hold the same lock: those under way are waited for,
// and while it runs they are refused (ErrErasing). When it commits, each
// serve listening (ListenErasures) is told. Erasing a team with
// nothing left is a receipt of zeros.
func (d *DB) EraseTeam(ctx context.Context, team string) (Receipt, error) {
	if team == "" {
		return nil, fmt.Errorf("erase team: a team is needed")
	}
	var r Receipt
	err := d.InTxRetrying(ctx, func(tx *Tx) error {
		r = nil // a deadlocked attempt's lines are not the receipt
		q, x := tx.q, tx.tx
		// First, the lock the team's turns' memory writes hold while they
		// write, as a person's erasure takes theirs: every memory a turn
		// writes, under any team, is said in the team's conversations and
		// found below by its team or its source key; the context lines,
		// backfills and inbox arrivals of the team hold it too. Its only
		// advisory lock.
		if err := q.EraseHoldTeam(ctx, x, team); err != nil {
			return fmt.Errorf("erase team: hold off the memory writes said in or stored under it: %w", mapErr(err))
		}
		steps := []struct {
			table, action string
			run           func() (int64, error)
		}{
			{"memories", "", func() (int64, error) { return q.EraseTeamMemories(ctx, x, team) }},
			{"memories", " under other teams, said in its conversations", func() (int64, error) { return q.EraseTeamSaidMemories(ctx, x, team) }},
			{"memory_events", "", func() (int64, error) { return q.EraseTeamMemoryEvents(ctx, x, team) }},
			{"session_messages", "", func() (int64, error) { return q.EraseTeamSessionMessages(ctx, x, team) }},
			{"model_usage", "", func() (int64, error) { return q.EraseTeamUsage(ctx, x, team) }},
			// The inbox before the jobs: the mover takes an arrival and
			// inserts its job in one transaction, and skips an arrival
			// locked, so once these are deleted none is moved, and a move
			// under way is waited for and its job deleted below. Arrivals
			// later are refused (Inbox.Arrive).
			{"inbox_arrivals", "", func() (int64, error) { return q.EraseTeamInboxArrivals(ctx, x, team) }},
			// The writes under way that began before this (their review
			// calls a model): they store nothing once their record is gone
			// (Memories.WriteKept).
			{"memory_writes", "", func() (int64, error) { return q.EraseTeamMemoryWrites(ctx, x, team) }},
			// The jobs before the turns: a learning job is found by its turn.
			{"river_job", "", func() (int64, error) { return q.EraseTeamJobs(ctx, x, team) }},
			{"turns", "", func() (int64, error) { return q.EraseTeamTurns(ctx, x, team) }},
			// The log again after the turns, for a line a running turn
			// appended since the first pass: it took a key-share lock on
			// its turn, so deleting the turns waited for it to commit, and
			// this statement sees it (turn_id is ON DELETE SET NULL, so
			// deleting its turn alone kept it). A line appended later has
			// no turn to name. The first pass keeps the bulk of the log
			// from being rewritten by that SET NULL before it is deleted.
			{"session_messages", " (appended while it ran)", func() (int64, error) { return q.EraseTeamSessionMessages(ctx, x, team) }},
			{"channel_settings", "", func() (int64, error) { return q.EraseTeamChannelSettings(ctx, x, team) }},
			{"user_settings", "", func() (int64, error) { return q.EraseTeamUserSettings(ctx, x, team) }},
			{"thread_leases", "", func() (int64, error) { return q.EraseTeamLeases(ctx, x, team) }},
			{"thread_backfills", "", func() (int64, error) { return q.EraseTeamBackfills(ctx, x, team) }},
			{"erased_memories", "", func() (int64, error) { return q.EraseTeamErasedMemories(ctx, x, team) }},
			{"admin_audit", "", func() (int64, error) { return q.EraseTeamAudit(ctx, x, team) }},
			{"installations", "", func() (int64, error) { return q.EraseTeamInstallations(ctx, x, team) }},
			{"installation_teams", "", func() (int64, error) { return q.EraseTeamInstallationTeams(ctx, x, team) }},
		}
		for _, s := range steps {
			n, err := s.run()
			if err != nil {
				return fmt.Errorf("erase team %s: %w", s.table, mapErr(err))
			}
			r = append(r, ReceiptLine{Table: s.table, Action: "deleted" + s.action, Rows: n})
		}
		// Sent when it commits: a serve running drops the team's
		// installation from its cache (install.Clients.Watch).
		if err := q.EraseTeamNotify(ctx, x, team); err != nil {
			return fmt.Errorf("erase team: tell serve: %w", mapErr(err))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// EraseOrganisation erases an organisation's org-wide installation: every
// workspace it served that has no active installation of its own is erased
// (EraseTeam, a transaction each, listed in teams), then, in one
// transaction, the organisation's own data (the receipt): its memories
// (org-scope ones, stored under the enterprise id) with their history and
// index, the ids of those its members' erasures deleted, its record of the
// workspaces it served and its installation with the sealed token. A
// workspace with an installation of its own keeps its data and is served
// by it alone; the organisation's memories said there are the
// organisation's, and go.
//
// The memory writes said in the erased workspaces are held off by each
// one's erasure (EraseTeam), which comes before the organisation's own
// transaction; that transaction holds off those stored under the
// organisation as EraseTeam does a team's (EraseHoldTeam on the enterprise
// id), for a write that began between the two.
func (d *DB) EraseOrganisation(ctx context.Context, enterprise string) (teams []string, r Receipt, err error) {
	if enterprise == "" {
		return nil, nil, fmt.Errorf("erase organisation: an enterprise id is needed")
	}
	served, err := d.q.InstallationOrgTeamsToErase(ctx, d.pool, enterprise)
	if err != nil {
		return nil, nil, fmt.Errorf("erase organisation %s: its workspaces: %w", enterprise, mapErr(err))
	}
	for _, team := range served {
		if _, err := d.EraseTeam(ctx, team); err != nil {
			return teams, nil, fmt.Errorf("erase organisation %s: %w", enterprise, err)
		}
		teams = append(teams, team)
	}
	err = d.InTxRetrying(ctx, func(tx *Tx) error {
		r = nil // a deadlocked attempt's lines are not the receipt
		q, x := tx.q, tx.tx
		// First, as a workspace's erasure does, the lock the writes stored
		// under the organisation hold (Memories.HoldErasure, BeginWrite):
		// one under way is waited for and deleted below, and one beginning
		// while this runs is refused.
		if err := q.EraseHoldTeam(ctx, x, enterprise); err != nil {
			return fmt.Errorf("erase organisation %s: hold off the memory writes stored under it: %w", enterprise, mapErr(err))
		}
		// Its memories, their history and erased ids are keyed by its
		// enterprise id as a workspace's are by its team id.
		steps := []struct {
			table string
			run   func() (int64, error)
		}{
			{"memory_writes", func() (int64, error) { return q.EraseTeamMemoryWrites(ctx, x, enterprise) }},
			{"memories", func() (int64, error) { return q.EraseTeamMemories(ctx, x, enterprise) }},
			{"memory_events", func() (int64, error) { return q.EraseTeamMemoryEvents(ctx, x, enterprise) }},
			{"erased_memories", func() (int64, error) { return q.EraseTeamErasedMemories(ctx, x, enterprise) }},
			{"installation_teams", func() (int64, error) { return q.InstallationForgetOrgTeams(ctx, x, enterprise) }},
			{"installations", func() (int64, error) { return q.InstallationForgetOrg(ctx, x, enterprise) }},
		}
		for _, s := range steps {
			n, err := s.run()
			if err != nil {
				return fmt.Errorf("erase organisation %s: %w", s.table, mapErr(err))
			}
			r = append(r, ReceiptLine{Table: s.table, Action: "deleted", Rows: n})
		}
		return nil
	})
	if err != nil {
		return teams, nil, err
	}
	return teams, r, nil
}

// ErasedAt says when the team's memory whose id is ref, or starts with it
// (4 characters at least), was deleted by an erasure; ErrNotFound when none
// was.
func (s Lifecycle) ErasedAt(ctx context.Context, team, ref string) (time.Time, error) {
	ref = strings.TrimSpace(ref)
	lo, hi, ok := idRange(ref)
	if !ok || len(ref) < 4 {
		return time.Time{}, fmt.Errorf("erased memory %q: %w", ref, ErrNotFound)
	}
	at, err := s.q.ErasedMemoryAt(ctx, s.e, dbsqlc.ErasedMemoryAtParams{TeamID: team, Lo: lo, Hi: hi})
	if err != nil {
		return time.Time{}, fmt.Errorf("erased memory %q: %w", ref, mapErr(err))
	}
	return at, nil
}
