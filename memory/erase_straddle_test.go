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

// A Grid organisation, E1, serves T1 and T2 with one installation; its
// members have one user id in both.
const (
	org     = "E1"
	sibling = "T2"
)

// gridMember is Alice, an admin, acting in sibling: the same person T1
// erases.
var gridMember = provenance.Actor{Kind: provenance.KindUser, Team: sibling, ID: "UA", Name: "Alice", IsAdmin: true}

// siblingChannel is a channel of sibling that shares the organisation's
// memories (MNEMO_ORG_MEMORIES): a workspace memory said there is E1's.
var siblingChannel = provenance.Place{Team: sibling, Org: org, Channel: "C9", SourceKey: "slack:T2:C9:1800000000.000100", Visibility: provenance.Public}

// grid records that E1's installation serves T1 and T2, as its installs do.
func grid(t *testing.T, d *testdb.DB) {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `INSERT INTO installation_teams (team_id, enterprise_id) VALUES ($1, $3), ($2, $3)`, team, sibling, org)
	require.NoError(t, err)
}

// A write of no turn (a slash command, the App Home, MCP) whose review is
// under way when its person is erased (Slack says their account was
// deleted, or an admin purges them) stores nothing: it began before the
// erasure, and is ErrErased. So does an org-wide memory of theirs said in
// another workspace of their organisation, which the erasure would have
// deleted. An erasure of someone else meanwhile leaves the write be, and
// a write that begins after the erasure is a new instruction, and is
// stored: the same counts find both.
func TestTurnlessWriteWhoseReviewAnErasureOvertakesIsRefused(t *testing.T) {
	t.Parallel()
	preference := memory.WriteRequest{Actor: user("UA"), Place: dmAlice, MessageTS: "1800000001.000100", Kind: memory.KindPreference,
		Content: "Prefers terse release notes", WrittenBy: provenance.ByExplicit}
	inChannel := preference
	inChannel.Place = publicThread
	orgWide := memory.WriteRequest{Actor: gridMember, Place: siblingChannel, MessageTS: "1800000001.000100", Scope: memory.ScopeWorkspace,
		Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", WrittenBy: provenance.ByExplicit}
	for name, tc := range map[string]struct {
		req     memory.WriteRequest
		erasure db.Erasure
		stored  string // the team the memory is stored under
		refused bool
	}{
		"in their DM, their account deleted":          {req: preference, erasure: db.Erasure{Team: team, User: "UA", By: "system:slack"}, stored: team, refused: true},
		"in a channel, an admin purges them":          {req: inChannel, erasure: db.Erasure{Team: team, User: "UA", By: "U0ADMIN"}, stored: team, refused: true},
		"org-wide, said in a sibling, erased in home": {req: orgWide, erasure: db.Erasure{Team: team, User: "UA", By: "system:slack"}, stored: org, refused: true},
		"control: someone else erased meanwhile":      {req: inChannel, erasure: db.Erasure{Team: team, User: "UB", By: "U0ADMIN"}, stored: team},
		"control: org-wide, someone else erased":      {req: orgWide, erasure: db.Erasure{Team: team, User: "UB", By: "U0ADMIN"}, stored: org},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			overtaken(t, tc.req, tc.stored, tc.refused, func(ctx context.Context, d *db.DB) error {
				_, err := d.Erase(ctx, tc.erasure)
				return err
			})
		})
	}
}

// overtaken writes req with a review that runs erase meanwhile, in a
// Grid organisation's database, and checks that the write stored under
// stored is refused (ErrErased, nothing stored; the same write begun
// after the erasure is stored, and the count finds it) or, when not
// refused, stored.
func overtaken(t *testing.T, req memory.WriteRequest, stored string, refused bool, erase func(context.Context, *db.DB) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	grid(t, d)
	erased := false
	r := &erasingReviewer{erase: func() {
		require.NoError(t, erase(ctx, d.DB))
		erased = true
	}}
	store := memory.New(d.DB, memory.Options{Reviewer: r})
	out, err := store.Remember(ctx, req)
	require.True(t, erased, "the erasure ran while the write was reviewed")
	if !refused {
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Equal(t, stored, out.Memory.Team)
		require.Equal(t, 1, storedUnder(t, d, stored), "the count finds the memory written")
		return
	}
	require.ErrorIs(t, err, memory.ErrErased, "outcome %+v", out)
	require.Zero(t, storedUnder(t, d, stored), "nothing is written past the erasure")
	// The next write begins after the erasure: a new instruction, stored,
	// and the count finds it.
	again := req
	again.Content += " on weekdays"
	out, err = store.Remember(ctx, again)
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, 1, storedUnder(t, d, stored), "the count finds a memory written")
}

// An erasure of a Grid member in one workspace waits for an org-wide
// memory of theirs being written from another workspace of the
// organisation, and deletes it: the write holds the person's erasure off
// across the organisation, not only in the workspace it is said in. The
// write is stopped inside its transaction, the erasure started, and the
// write let go only once the erasure is seen waiting for its lock.
func TestErasureWaitsForAnOrgWriteFromAnotherWorkspace(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	grid(t, d)
	store := memory.New(d.DB, memory.Options{})

	h, ended := holdWrite(ctx, store, memory.WriteRequest{Actor: gridMember, Place: siblingChannel, MessageTS: "1800000001.000100",
		Scope: memory.ScopeWorkspace, Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", WrittenBy: provenance.ByExplicit})
	if ended != nil {
		t.Fatalf("the write ended before its transaction held off erasures (err %v); %d memories under %s", ended.err, storedUnder(t, d, org), org)
	}
	erased := make(chan error, 1)
	go func() {
		_, err := d.DB.Erase(ctx, db.Erasure{Team: team, User: "UA", By: "system:slack"})
		erased <- err
	}()
	if err, waited := testdb.AwaitLockWait(ctx, t, d, "EraseHoldPerson", erased); !waited {
		close(h.release)
		w := <-h.wrote
		t.Fatalf("the erasure in %s finished (err %v) while an org-wide write of its person from %s was under way (err %v); %d memories under %s left after the write",
			team, err, sibling, w.err, storedUnder(t, d, org), org)
	}
	close(h.release)
	w := <-h.wrote
	require.NoError(t, w.err)
	require.Equal(t, memory.Stored, w.out.Status, "the write under way was stored")
	require.Equal(t, org, w.out.Memory.Team, "under the organisation")
	require.NoError(t, <-erased)
	require.Zero(t, storedUnder(t, d, org), "and the erasure that waited for it deleted it")
}

// A write of no turn whose review is under way when its workspace, or its
// organisation, is erased stores nothing: the erasure takes the records
// of the writes said in the team or stored under it, as a person's does.
// The same write begun after the erasure is stored (a workspace that is
// served again is a new start), and the same count finds it.
func TestTurnlessWriteWhoseReviewAWorkspaceErasureOvertakesIsRefused(t *testing.T) {
	t.Parallel()
	inChannel := memory.WriteRequest{Actor: user("UA"), Place: publicThread, MessageTS: "1800000001.000100", Kind: memory.KindPreference,
		Content: "Prefers terse release notes", WrittenBy: provenance.ByExplicit}
	orgWide := memory.WriteRequest{Actor: gridMember, Place: siblingChannel, MessageTS: "1800000001.000100", Scope: memory.ScopeWorkspace,
		Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", WrittenBy: provenance.ByExplicit}
	for name, tc := range map[string]struct {
		req    memory.WriteRequest
		erase  func(context.Context, *db.DB) error
		stored string
	}{
		"its workspace erased": {req: inChannel, stored: team, erase: func(ctx context.Context, d *db.DB) error {
			_, err := d.EraseTeam(ctx, team)
			return err
		}},
		"the workspace it is said in erased, stored under the organisation": {req: orgWide, stored: org, erase: func(ctx context.Context, d *db.DB) error {
			_, err := d.EraseTeam(ctx, sibling)
			return err
		}},
		"its organisation erased": {req: orgWide, stored: org, erase: func(ctx context.Context, d *db.DB) error {
			_, _, err := d.EraseOrganisation(ctx, org)
			return err
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			overtaken(t, tc.req, tc.stored, true, tc.erase)
		})
	}
}

// A write that begins while its workspace's erasure runs, after the
// erasure deleted the records of the writes under way, stores nothing: it
// is refused as it begins (ErrErased, its workspace being erased), where
// its record, inserted after that delete, would have outlived the erasure
// and let it store a memory of the erased workspace. The erasure is
// stopped at its turns (a row held), past its records' step; the control,
// the same write after the erasure, is stored and counted.
func TestWriteBegunWhileItsWorkspaceIsErasedIsRefused(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	_, _, err := d.DB.Turns().Open(ctx, db.TurnStart{Place: publicThread, MessageTS: "1700000000.000900", ActorID: "UB"})
	require.NoError(t, err)
	blocker, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = blocker.Rollback(context.Background()) }()
	_, err = blocker.Exec(ctx, `SELECT 1 FROM turns WHERE team_id = $1 FOR UPDATE`, team)
	require.NoError(t, err)
	erased := make(chan error, 1)
	go func() { _, err := d.DB.EraseTeam(ctx, team); erased <- err }()
	if _, waited := testdb.AwaitLockWait(ctx, t, d, "EraseTeamTurns", erased); !waited {
		t.Fatal("the erasure did not stop at its turns")
	}

	// The reviewer erases nothing: it signals that the write got as far as
	// its review, where it would wait at its persist for the erasure.
	reviewing := make(chan struct{})
	store := memory.New(d.DB, memory.Options{Reviewer: &erasingReviewer{erase: func() { close(reviewing) }}})
	req := memory.WriteRequest{Actor: user("UA"), Place: publicThread, MessageTS: "1800000001.000100",
		Kind: memory.KindPreference, Content: "Prefers terse release notes", WrittenBy: provenance.ByExplicit}
	type result struct {
		out memory.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := store.Remember(ctx, req)
		done <- result{out, err}
	}()
	var w result
	select {
	case w = <-done: // refused as it began
		require.NoError(t, blocker.Commit(ctx))
		require.NoError(t, <-erased)
	case <-reviewing: // it began: let the erasure end, and see what it stores
		require.NoError(t, blocker.Commit(ctx))
		require.NoError(t, <-erased)
		w = <-done
	}
	require.ErrorIs(t, w.err, memory.ErrErased, "outcome %+v", w.out)
	require.ErrorIs(t, w.err, db.ErrErasing)
	require.Zero(t, storedUnder(t, d, team), "nothing is written past the erasure of its workspace")
	out, err := store.Remember(ctx, req)
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, 1, storedUnder(t, d, team), "the count finds a memory written")
}
