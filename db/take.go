package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// TurnTake is what taking a post up writes: its turn, the post in its
// thread's log, and, for a job that runs it, the thread's lease and one
// more attempt.
type TurnTake struct {
	Start TurnStart
	// Post is the post as the thread's log keeps it; it is logged with the
	// turn unless a message with its ts is logged already.
	Post threads.Message
	Key  threads.Key
	// Lease is the thread's lease to take for the post's job; nil takes
	// none, and counts no attempt.
	Lease *Lease
	TTL   time.Duration
}

// Taken is what Take found and did.
type Taken struct {
	// Turn is the post's turn as it stands: with the attempt counted when
	// Leased.
	Turn    Turn
	Created bool
	// Leased is true when the job took the thread's lease (and the turn is
	// running); false with a running turn means the thread is busy, and the
	// post now waits for it before later posts.
	Leased bool
}

// Take records a post's turn (or finds the one recorded), logs the post in
// its thread with it, takes the thread's lease for the post's job while
// the turn runs, and counts the attempt, in one round trip: one pipeline,
// which PostgreSQL runs as one implicit transaction, all or nothing. Like
// InTxRelaxed, its commit does not wait for the disk: a crash of the
// database that loses it is repaired by the job's next run. While the
// team's erasure runs it writes nothing (ErrErasing), and an erasure that
// starts later waits for it and deletes what it wrote.
func (s Turns) Take(ctx context.Context, t TurnTake) (Taken, error) {
	q := &queue{b: &pgx.Batch{}}
	q.b.Queue("SELECT set_config('synchronous_commit', 'off', true)")
	_, _ = s.q.TurnOpen(ctx, q, dbsqlc.TurnOpenParams{
		TeamID: t.Start.Place.Team, ChannelID: t.Start.Place.Channel, MessageTs: t.Start.MessageTS,
		SourceKey: t.Start.Place.SourceKey, ActorID: t.Start.ActorID, Visibility: string(t.Start.Place.Visibility),
		Shared: t.Start.Place.Shared, Org: t.Start.Place.Org,
	})
	m := t.Post
	authority, kind := m.Authority, m.Actor.Kind
	if authority == "" {
		authority = provenance.Context
	}
	if kind == "" {
		kind = provenance.KindSystem
	}
	_ = s.q.SessionMessageAppendPost(ctx, q, dbsqlc.SessionMessageAppendPostParams{
		SourceKey: t.Key.SourceKey(), TeamID: t.Key.Team, ChannelID: t.Key.Channel, Ts: string(m.TS),
		Role: string(m.Role), ActorKind: string(kind), ActorID: m.Actor.ID, ActorTeam: actorTeam(t.Key, m.Actor), Authority: string(authority), Text: detect.Redact(m.Text),
	})
	if l := t.Lease; l != nil {
		_ = s.q.ThreadLeaseAcquireForTurn(ctx, q, dbsqlc.ThreadLeaseAcquireForTurnParams{
			SourceKey: l.SourceKey, PostTs: l.PostTS, JobID: l.JobID, Holder: l.Holder,
			TtlSeconds: t.TTL.Seconds(), WaiterFreshSeconds: WaiterFresh.Seconds(),
			TeamID: t.Start.Place.Team, ChannelID: t.Start.Place.Channel,
		})
		_ = s.q.ThreadWaiterSettle(ctx, q, dbsqlc.ThreadWaiterSettleParams{
			SourceKey: l.SourceKey, PostTs: l.PostTS, TeamID: t.Start.Place.Team, ChannelID: t.Start.Place.Channel, JobID: l.JobID, Holder: l.Holder,
		})
		_, _ = s.q.TurnTakeAttempt(ctx, q, dbsqlc.TurnTakeAttemptParams{
			TeamID: t.Start.Place.Team, ChannelID: t.Start.Place.Channel, MessageTs: t.Start.MessageTS,
			SourceKey: l.SourceKey, JobID: l.JobID, Holder: l.Holder,
		})
	}

	br := s.e.SendBatch(ctx, q.b)
	taken, err := readTaken(br, t.Lease != nil)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return Taken{}, fmt.Errorf("take post %s: %w", t.Start.MessageTS, mapErr(err))
	}
	return taken, nil
}

// readTaken reads Take's batch results, in the order they were queued.
func readTaken(br pgx.BatchResults, leased bool) (Taken, error) {
	var out Taken
	if _, err := br.Exec(); err != nil { // set_config
		return out, err
	}
	rows, err := br.Query()
	if err != nil {
		return out, err
	}
	opened, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[dbsqlc.TurnOpenRow])
	if errors.Is(err, pgx.ErrNoRows) {
		// The turn finds no row only then, and the batch's later
		// statements write nothing either.
		return out, ErrErasing
	}
	if err != nil {
		return out, err
	}
	out.Created = opened.Created
	out.Turn = turnFromRow(dbsqlc.Turn{
		ID: opened.ID, TeamID: opened.TeamID, ChannelID: opened.ChannelID, MessageTs: opened.MessageTs, SourceKey: opened.SourceKey, ActorID: opened.ActorID,
		Status: opened.Status, UsedMemoryWrite: opened.UsedMemoryWrite, CreatedAt: opened.CreatedAt, FinishedAt: opened.FinishedAt, Visibility: opened.Visibility,
		Attempts: opened.Attempts, PendingKind: opened.PendingKind, PendingText: opened.PendingText, ReplyTs: opened.ReplyTs, UpdatedAt: opened.UpdatedAt,
		TraceID: opened.TraceID, StreamTs: opened.StreamTs, Shared: opened.Shared, Org: opened.Org,
	})
	if _, err := br.Exec(); err != nil { // the post logged
		return out, fmt.Errorf("log post: %w", err)
	}
	if !leased {
		return out, nil
	}
	for range 2 { // the lease, the waiter
		if _, err := br.Exec(); err != nil {
			return out, fmt.Errorf("lease: %w", err)
		}
	}
	rows, err = br.Query()
	if err != nil {
		return out, err
	}
	attempted, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[dbsqlc.Turn])
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return out, nil
	case err != nil:
		return out, fmt.Errorf("attempt: %w", err)
	}
	out.Turn, out.Leased = turnFromRow(attempted), true
	return out, nil
}

// queue is a DBTX that runs nothing: it queues the statements sqlc's
// functions would run into one batch, so that the batch's SQL and
// arguments are sqlc's own.
type queue struct{ b *pgx.Batch }

var errQueued = errors.New("db: statement queued in a batch")

func (q *queue) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (q *queue) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	q.b.Queue(sql, args...)
	return nil, errQueued
}

func (q *queue) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	q.b.Queue(sql, args...)
	return queuedRow{}
}

func (q *queue) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults {
	panic("db: a batch inside a batch")
}

type queuedRow struct{}

func (queuedRow) Scan(...any) error { return errQueued }
