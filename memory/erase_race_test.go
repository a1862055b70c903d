package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// erasingReviewer passes every write. Before its first answer it runs
// erase: an erasure that commits after the write was decided and before
// it is persisted, as one does while a turn's tool call or passive
// learning is under way.
type erasingReviewer struct {
	once  sync.Once
	erase func()
}

func (r *erasingReviewer) Review(_ context.Context, content string, _ memory.Kind) (memory.ReviewVerdict, error) {
	if r.erase != nil {
		r.once.Do(r.erase)
	}
	return memory.ReviewVerdict{Store: true, Reason: "a durable statement", Canonical: content}, nil
}

// eraseRaceTurn records a running turn asked by asker in place, with its
// post in the thread's log, as a turn's start does, and logs each of
// others' lines after it; it returns the turn and its post's ts.
func eraseRaceTurn(t *testing.T, d *testdb.DB, place provenance.Place, asker string, others map[string]string) (int64, string) {
	t.Helper()
	ctx := context.Background()
	key, err := threads.ParseSourceKey(place.SourceKey)
	require.NoError(t, err)
	ts := string(key.Root)
	var turn db.Turn
	require.NoError(t, d.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		if turn, _, err = tx.Turns().Open(ctx, db.TurnStart{Place: place, MessageTS: ts, ActorID: asker}); err != nil {
			return err
		}
		_, err = tx.Sessions().Append(ctx, key, threads.Message{TS: key.Root, Role: threads.RoleUser, Actor: user(asker), Authority: provenance.Instruction, Text: "note that I prefer terse release notes", TurnID: &turn.ID})
		return err
	}))
	for who, msgTS := range others {
		_, err := d.DB.Sessions().Append(ctx, key, threads.Message{TS: threads.TS(msgTS), Role: threads.RoleUser, Actor: user(who), Authority: provenance.Context, Text: "deploys go out on Tuesdays after QA sign-off"})
		require.NoError(t, err)
	}
	return turn.ID, ts
}

// theirMemories counts the team's memories about or by person, in every
// state.
func theirMemories(t *testing.T, d *testdb.DB, person string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM memories WHERE team_id = $1 AND ((subject_type = 'user' AND subject_id = $2) OR actor_id = $2)`, team, person).Scan(&n))
	return n
}

// A turn's write that an erasure overtakes after it was decided stores
// nothing: the erasure took the turn (a DM's) or left the message the
// write came from nobody's (a channel's), and the write is ErrErased. An
// erasure of someone else in the thread leaves it be. Control: the same
// write with no erasure is stored, and the same count finds it.
func TestTurnWriteAfterErasureIsRefused(t *testing.T) {
	t.Parallel()
	const later = "1800000000.000400" // Bob's line, after the post
	channel := provenance.Place{Team: team, Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public}
	dm := provenance.Place{Team: team, Channel: "DA", SourceKey: "slack:T1:DA:1800000000.000100", Visibility: provenance.DM}
	preference := func(place provenance.Place, ts string, turn int64) memory.WriteRequest {
		return memory.WriteRequest{Actor: user("UA"), Place: place, MessageTS: ts, Kind: memory.KindPreference, Content: "Prefers terse release notes",
			WrittenBy: provenance.ByExplicit, Turn: turn}
	}
	// Passive learning's write of what Bob said in Alice's turn.
	bobs := func(place provenance.Place, _ string, turn int64) memory.WriteRequest {
		return memory.WriteRequest{Actor: user("UB"), Place: place, MessageTS: later, Scope: memory.ScopeChannel, Kind: memory.KindProcedure,
			Content: "Deploys go out on Tuesdays after QA sign-off", WrittenBy: provenance.ByPassive, Turn: turn}
	}
	for name, tc := range map[string]struct {
		place   provenance.Place
		write   func(provenance.Place, string, int64) memory.WriteRequest
		erased  string // whom the erasure erases, "" for none
		author  string
		refused bool
	}{
		"a DM's turn, its person erased":                      {place: dm, write: preference, erased: "UA", author: "UA", refused: true},
		"a channel's turn, its person erased":                 {place: channel, write: preference, erased: "UA", author: "UA", refused: true},
		"another speaker's write, the speaker erased":         {place: channel, write: bobs, erased: "UB", author: "UB", refused: true},
		"another speaker's write, only the turn's asker gone": {place: channel, write: bobs, erased: "UA", author: "UB"},
		"control: no erasure":                                 {place: channel, write: preference, author: "UA"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			d := testdb.New(t)
			r := &erasingReviewer{}
			store := memory.New(d.DB, memory.Options{Reviewer: r})
			turn, ts := eraseRaceTurn(t, d, tc.place, "UA", map[string]string{"UB": later})
			if tc.erased != "" {
				r.erase = func() {
					_, err := d.DB.Erase(ctx, db.Erasure{Team: team, User: tc.erased, By: "U0ADMIN"})
					require.NoError(t, err)
				}
			}
			out, err := store.Remember(ctx, tc.write(tc.place, ts, turn))
			if tc.refused {
				require.ErrorIs(t, err, memory.ErrErased)
				require.Zero(t, theirMemories(t, d, tc.author), "nothing of theirs is written after their erasure")
				return
			}
			require.NoError(t, err)
			require.Equal(t, memory.Stored, out.Status)
			require.Equal(t, 1, theirMemories(t, d, tc.author), "the count finds the memory written")
		})
	}
}

// A turn's write under way when its person's erasure starts holds the
// erasure off until it commits; the erasure then deletes what it wrote.
// The write is stopped inside its transaction, the erasure started, and
// the write let go only once the erasure is seen waiting for its lock.
func TestErasureWaitsForATurnWriteUnderWayAndDeletesIt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	store := memory.New(d.DB, memory.Options{})
	place := provenance.Place{Team: team, Channel: "DA", SourceKey: "slack:T1:DA:1800000000.000100", Visibility: provenance.DM}
	turn, ts := eraseRaceTurn(t, d, place, "UA", nil)

	h, ended := holdWrite(ctx, store, memory.WriteRequest{Actor: user("UA"), Place: place, MessageTS: ts, Kind: memory.KindPreference,
		Content: "Prefers terse release notes", WrittenBy: provenance.ByExplicit, Turn: turn})
	if ended != nil {
		t.Fatalf("the write ended before its transaction held: %v", ended.err)
	}
	release, wrote := h.release, h.wrote

	type erased struct {
		r   db.Receipt
		err error
	}
	done := make(chan erased, 1)
	go func() {
		r, err := d.DB.Erase(ctx, db.Erasure{Team: team, User: "UA", By: "U0ADMIN"})
		done <- erased{r, err}
	}()
	// The signal that the erasure waits for the write: its backend waits
	// on a lock in its first statement.
	if e, waited := testdb.AwaitLockWait(ctx, t, d, "EraseHoldPerson", done); !waited {
		close(release)
		<-wrote
		t.Fatalf("the erasure finished while a write of its person's turn was under way (err %v); %d memories of theirs left after the write", e.err, theirMemories(t, d, "UA"))
	}
	close(release)
	w := <-wrote
	require.NoError(t, w.err)
	require.Equal(t, memory.Stored, w.out.Status, "the write under way was stored")
	e := <-done
	require.NoError(t, e.err)
	require.Zero(t, theirMemories(t, d, "UA"), "and the erasure that waited for it deleted it")
	deleted := int64(0)
	for _, l := range e.r {
		if l.Table == "memories" && l.Action == "deleted" {
			deleted += l.Rows
		}
	}
	require.Equal(t, int64(1), deleted, "its receipt counts it")
}

// written is what a write came to.
type written struct {
	out memory.Outcome
	err error
}

// heldWrite is a write stopped inside persist's transaction, where it holds
// off the erasures that would delete it (Store.HoldWritesWith).
type heldWrite struct {
	release chan struct{} // closed: the write goes on
	wrote   chan written  // what it came to
}

// holdWrite starts store.Remember(req) and returns once the write is
// stopped inside its transaction (held). When the write ends before that,
// it returns what it came to instead, and the caller fails.
func holdWrite(ctx context.Context, store *memory.Store, req memory.WriteRequest) (h heldWrite, ended *written) {
	var once sync.Once
	holding := make(chan struct{})
	h = heldWrite{release: make(chan struct{}), wrote: make(chan written, 1)}
	store.HoldWritesWith(func() {
		once.Do(func() {
			close(holding)
			<-h.release
		})
	})
	go func() {
		out, err := store.Remember(ctx, req)
		h.wrote <- written{out, err}
	}()
	select {
	case <-holding:
		return h, nil
	case w := <-h.wrote:
		return h, &w
	}
}
