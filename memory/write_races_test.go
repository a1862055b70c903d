package memory_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// stored is a candidate as the decision prompt lists it.
type stored struct {
	ID      uuid.UUID
	Content string
}

// decision is the model's answer to a decision prompt.
type decision struct {
	Action   memory.Action
	Target   uuid.UUID
	Merged   string
	Replaces []uuid.UUID
}

// decidingModel is a store whose Decider is ModelJudge on a fake model
// server, answered by answer(newer, candidates). answer runs in the
// server's handler, outside the write's transactions, so it may block on a
// channel to hold a write between its decision and its second persist, or
// run other writes meanwhile.
func decidingModel(t *testing.T, answer func(newer string, cands []stored) decision) (*memory.Store, *testdb.DB) {
	t.Helper()
	srv := fakellm.New(t, func(_ int, req *fakellm.Request) fakellm.Reply {
		require.True(t, strings.HasPrefix(req.System, memory.DecidePromptMarker), "only decisions are asked")
		text := req.Messages[len(req.Messages)-1].Text
		head, list, _ := strings.Cut(text, "\nStored:\n")
		_, newer, _ := strings.Cut(head, "): ")
		var cands []stored
		for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
			id, rest, ok := strings.Cut(strings.TrimPrefix(line, "- id "), " (")
			if !ok {
				continue
			}
			_, content, _ := strings.Cut(rest, "): ")
			cands = append(cands, stored{ID: uuid.MustParse(id), Content: content})
		}
		d := answer(newer, cands)
		out := map[string]any{"decision": string(d.Action), "target": "", "merged": d.Merged, "supersedes": []string{}}
		if d.Target != uuid.Nil {
			out["target"] = d.Target.String()
		}
		var ids []string
		for _, id := range d.Replaces {
			ids = append(ids, id.String())
		}
		if ids != nil {
			out["supersedes"] = ids
		}
		b, _ := json.Marshal(out)
		return fakellm.Reply{JSON: string(b)}
	})
	d := testdb.New(t)
	return memory.New(d.DB, memory.Options{Decider: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}}), d
}

// channelWrite writes content to the channel of publicThread as alice.
func channelWrite(t *testing.T, store *memory.Store, content string) memory.Outcome {
	t.Helper()
	out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: content, WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	return out
}

// activeIn is the content of the active memories of a channel, oldest
// first.
func activeIn(t *testing.T, d *testdb.DB, channel string) []string {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), "SELECT content FROM memories WHERE channel_id = $1 AND archived_at IS NULL ORDER BY created_at", channel)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// held is a write held in its decision: entered is closed when the model
// is asked, and the model answers once release is closed.
type held struct {
	entered, release chan struct{}
	once             sync.Once
}

func newHeld() *held { return &held{entered: make(chan struct{}), release: make(chan struct{})} }

// wait is called in the model's answer: the first time only, it says so
// and waits to be released.
func (h *held) wait() {
	first := false
	h.once.Do(func() { first = true })
	if first {
		close(h.entered)
		<-h.release
	}
}

// Item 1: a memory forgotten while an update that merges it is being
// decided is not brought back inside the merged text: the update finds
// under the subject's lock that its target is gone, and the write is
// decided again against what is there now (nothing similar: it is stored
// on its own).
func TestAnUpdateOfAMemoryForgottenMeanwhileDoesNotBringItBack(t *testing.T) {
	t.Parallel()
	h := newHeld()
	store, d := decidingModel(t, func(newer string, cands []stored) decision {
		if strings.Contains(newer, "Carol Jones") {
			h.wait()
			return decision{Action: memory.ActionUpdate, Target: cands[0].ID, Merged: "The staging deploy needs QA sign-off from Bob Smith on call or from Carol Jones"}
		}
		return decision{Action: memory.ActionAdd}
	})
	ctx := context.Background()
	old := channelWrite(t, store, "The staging deploy needs QA sign-off from Bob Smith on call")
	require.Equal(t, memory.Stored, old.Status, old.Reason)

	done := make(chan memory.Outcome, 1)
	go func() {
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: "The staging deploy needs QA sign-off from Carol Jones too", WrittenBy: provenance.ByExplicit})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	<-h.entered // the update of old is decided, not yet stored
	f, err := store.Forget(ctx, memory.ViewerAt(user("UB"), publicThread), old.Memory.ID.String(), "wrong, remove it", memory.PathSlash)
	require.NoError(t, err)
	require.NotNil(t, f.Forgotten)
	close(h.release)
	out := <-done

	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "The staging deploy needs QA sign-off from Carol Jones too", out.Memory.Content, "stored as said, not merged with the forgotten memory")
	require.Empty(t, out.Superseded)
	got := mustGetStore(t, store, old.Memory.ID)
	require.NotNil(t, got.ArchivedAt, "the forgotten memory stays forgotten")
	require.Equal(t, "wrong, remove it", got.ArchivedReason)
	require.Nil(t, got.SupersededBy)
	require.Equal(t, []string{"The staging deploy needs QA sign-off from Carol Jones too"}, activeIn(t, d, "C1"))
}

// Item 1: Forget takes the subject's lock, which a write holds while it
// checks and stores what it merges or replaces: while a write of the
// subject is in its transaction, a forget waits for it.
func TestForgetWaitsForTheSubjectsWriteLock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	m := b.remember(t, user("UA"), publicThread, memory.ScopeChannel, memory.KindKnowledge, "The staging deploy needs QA sign-off from Bob Smith")

	tx, err := b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", memory.SubjectLockOf(m))
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() {
		_, err := b.store.Forget(ctx, memory.ViewerAt(user("UB"), publicThread), m.ID.String(), "", memory.PathSlash)
		done <- err
	}()
	// Until the forget is seen waiting on the lock, or has finished.
	deadline := time.After(20 * time.Second)
	for waiting := false; !waiting; {
		select {
		case err := <-done:
			t.Fatalf("the forget finished (%v) while a write of the subject held its lock", err)
		case <-deadline:
			t.Fatal("the forget neither waited on the subject's lock nor finished")
		case <-time.After(10 * time.Millisecond):
		}
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) > 0 FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting))
	}
	require.Nil(t, mustGet(t, b, m.ID).ArchivedAt, "not forgotten while the lock is held")
	require.NoError(t, tx.Rollback(ctx))
	require.NoError(t, <-done)
	require.NotNil(t, mustGet(t, b, m.ID).ArchivedAt)
}

// Item 1: two writes that merge into, or replace, the same memory at once
// leave one memory, not two copies: the second finds its target gone under
// the lock and is decided again, against the first's result.
func TestConcurrentDecisionsOnOneMemoryLeaveOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		action        memory.Action
		first, second string
		want          []string // the words the one active memory holds
	}{
		{memory.ActionUpdate, "The release train leaves with a changelog", "The release train leaves after smoke tests",
			[]string{"Tuesdays", "changelog", "smoke tests"}},
		{memory.ActionSupersede, "The release train now leaves on Wednesdays from the main branch", "The release train now leaves on Thursdays from the main branch",
			[]string{"Thursdays"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.action), func(t *testing.T) {
			t.Parallel()
			h := newHeld()
			var mu sync.Mutex
			asked := map[string]int{}
			store, d := decidingModel(t, func(newer string, cands []stored) decision {
				mu.Lock()
				asked[newer]++
				mu.Unlock()
				if newer == tc.second {
					h.wait() // the first time: held while the other write runs
				}
				// Each decision names the release-train memory it is shown.
				for _, c := range cands {
					if strings.Contains(c.Content, "release train") {
						if tc.action == memory.ActionUpdate {
							return decision{Action: memory.ActionUpdate, Target: c.ID, Merged: c.Content + " " + strings.TrimPrefix(newer, "The release train leaves ")}
						}
						return decision{Action: memory.ActionSupersede, Replaces: []uuid.UUID{c.ID}}
					}
				}
				return decision{Action: memory.ActionAdd}
			})
			ctx := context.Background()
			t0 := channelWrite(t, store, "The release train leaves on Tuesdays")
			require.Equal(t, memory.Stored, t0.Status, t0.Reason)

			done := make(chan memory.Outcome, 1)
			go func() {
				out, err := store.Remember(ctx, memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: tc.second, WrittenBy: provenance.ByExplicit})
				if err != nil {
					t.Error(err)
				}
				done <- out
			}()
			<-h.entered
			first := channelWrite(t, store, tc.first) // decided and stored while the second is held
			require.Equal(t, memory.Stored, first.Status, first.Reason)
			require.Len(t, first.Superseded, 1)
			require.Equal(t, t0.Memory.ID, first.Superseded[0].ID)
			close(h.release)
			out := <-done

			require.Equal(t, memory.Stored, out.Status, out.Reason)
			active := activeIn(t, d, "C1")
			require.Len(t, active, 1, "one memory, not two versions of the release train: %q", active)
			for _, w := range tc.want {
				require.Contains(t, active[0], w)
			}
			require.Len(t, out.Superseded, 1, "the second replaces the first's result")
			require.Equal(t, first.Memory.ID, out.Superseded[0].ID)
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, 2, asked[tc.second], "decided again, once")
		})
	}
}

// Item 1: the decision is retried once. A write whose second decision is
// overtaken too is stored on its own, as said, and its note says so.
func TestAWriteOvertakenTwiceIsStoredOnItsOwn(t *testing.T) {
	t.Parallel()
	const newer = "The release train leaves after the smoke tests pass"
	var store *memory.Store
	var decisions atomic.Int32
	store, d := decidingModel(t, func(text string, cands []stored) decision {
		if text != newer {
			return decision{Action: memory.ActionAdd}
		}
		decisions.Add(1)
		// Someone forgets the memory the decision merges into, meanwhile.
		f, err := store.Forget(context.Background(), memory.ViewerAt(user("UB"), publicThread), cands[0].ID.String(), "", memory.PathSlash)
		require.NoError(t, err)
		require.NotNil(t, f.Forgotten)
		return decision{Action: memory.ActionUpdate, Target: cands[0].ID, Merged: cands[0].Content + "; " + newer}
	})
	for _, c := range []string{"The release train leaves on Tuesdays from the main branch", "The release train leaves with a changelog from Carol"} {
		out := channelWrite(t, store, c)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
	}
	out := channelWrite(t, store, newer)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, int32(2), decisions.Load(), "decided twice, then no more")
	require.Equal(t, newer, out.Memory.Content)
	require.Empty(t, out.Superseded)
	require.Contains(t, out.Note, "stored on its own")
	require.Equal(t, []string{newer}, activeIn(t, d, "C1"))
}

// Item 2: a memory superseded or updated by one that is still active is not
// restored beside it: the refusal names the active one, down a chain of
// replacements. Once that one is forgotten, it is restored (control).
func TestRestoreRefusesAMemoryReplacedByAnActiveOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice, admin := user("UA"), memory.ViewerAt(adminUser("UZ"), publicThread)
	old := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The oncall rotation handoff is on Monday mornings")
	b.adj.decide = func(_ string, c []memory.Memory) memory.Decision {
		return memory.Decision{Action: memory.ActionSupersede, Replaces: []uuid.UUID{c[0].ID}}
	}
	nw := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The oncall rotation handoff is on Wednesday mornings")
	require.Equal(t, &nw.ID, mustGet(t, b, old.ID).SupersededBy)

	_, err := b.store.Restore(ctx, admin, old.ID.String(), memory.PathSlash)
	require.ErrorIs(t, err, memory.ErrNotRestorable)
	require.ErrorContains(t, err, "replaced by "+nw.ShortID()+", which is still active")
	require.NotNil(t, mustGet(t, b, old.ID).ArchivedAt, "still archived")

	// An update of the replacement: the refusal names the memory that is
	// active now.
	b.adj.decide = func(_ string, c []memory.Memory) memory.Decision {
		return memory.Decision{Action: memory.ActionUpdate, Target: c[0].ID, Merged: "The oncall rotation handoff is on Wednesday mornings at ten"}
	}
	merged := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The oncall rotation handoff is at ten in the morning")
	_, err = b.store.Restore(ctx, admin, old.ID.String(), memory.PathSlash)
	require.ErrorContains(t, err, "replaced by "+merged.ShortID()+", which is still active; forget "+merged.ShortID()+" first")
	require.Equal(t, []string{merged.Content}, activeIn(t, b.db, "C1"))

	_, err = b.store.Forget(ctx, admin, merged.ID.String(), "", memory.PathSlash)
	require.NoError(t, err)
	r, err := b.store.Restore(ctx, admin, old.ID.String(), memory.PathSlash)
	require.NoError(t, err)
	require.Nil(t, r.ArchivedAt)
	require.Equal(t, []string{old.Content}, activeIn(t, b.db, "C1"))
}

// Item 3: restoring a memory while an identical one is active is refused
// with a sentence that names it, not a unique violation. An identical one
// whose expiry has passed, not yet swept, does not keep it out.
func TestRestoreRefusesWhenAnIdenticalMemoryIsActive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice, admin := user("UA"), memory.ViewerAt(adminUser("UZ"), publicThread)
	const text = "Deploys go out on Tuesdays after QA sign-off"
	m := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, text)
	_, err := b.store.Forget(ctx, memory.ViewerAt(alice, publicThread), m.ID.String(), "", memory.PathSlash)
	require.NoError(t, err)
	m2 := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, text)

	_, err = b.store.Restore(ctx, admin, m.ID.String(), memory.PathSlash)
	require.ErrorIs(t, err, memory.ErrNotRestorable)
	require.ErrorContains(t, err, "an identical memory is already active: "+m2.ShortID())
	require.NotContains(t, err.Error(), "SQLSTATE")
	require.NotNil(t, mustGet(t, b, m.ID).ArchivedAt)

	// The identical one expires; before the sweep, the restore archives it
	// as the sweep would.
	_, err = b.db.Pool.Exec(ctx, "UPDATE memories SET expires_at = now() - interval '1 minute' WHERE id = $1", m2.ID)
	require.NoError(t, err)
	r, err := b.store.Restore(ctx, admin, m.ID.String(), memory.PathSlash)
	require.NoError(t, err)
	require.Nil(t, r.ArchivedAt)
	gone := mustGet(t, b, m2.ID)
	require.Equal(t, "expired", gone.ArchivedReason)
	require.Equal(t, "system:expiry", gone.ArchivedBy)
}

// Item 4: a memory whose expiry has passed is not restored, since the next
// sweep would archive it again; one that has not expired is (control).
func TestRestoreRefusesAnExpiredMemory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice, admin := user("UA"), memory.ViewerAt(adminUser("UZ"), publicThread)
	exp := time.Now().Add(time.Hour)
	write := func(content string) memory.Memory {
		out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: content, ExpiresAt: &exp, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		_, err = b.store.Forget(ctx, memory.ViewerAt(alice, publicThread), out.Memory.ID.String(), "", memory.PathSlash)
		require.NoError(t, err)
		return *out.Memory
	}
	expired, live := write("The build cache lives in the eu-west bucket"), write("The lunch order closes at eleven on Fridays")
	_, err := b.db.Pool.Exec(ctx, "UPDATE memories SET expires_at = now() - interval '1 minute' WHERE id = $1", expired.ID)
	require.NoError(t, err)

	_, err = b.store.Restore(ctx, admin, expired.ID.String(), memory.PathSlash)
	require.ErrorIs(t, err, memory.ErrNotRestorable)
	require.ErrorContains(t, err, "expired on")
	require.ErrorContains(t, err, "remember it again with a new expiry")
	require.NotNil(t, mustGet(t, b, expired.ID).ArchivedAt)

	r, err := b.store.Restore(ctx, admin, live.ID.String(), memory.PathSlash)
	require.NoError(t, err)
	require.Nil(t, r.ArchivedAt)
	n, err := b.store.SweepExpired(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// Item 5: the same words remembered again after the memory expired, before
// the sweep archived it, are stored: the expired one is archived as the
// sweep would, with its event, not answered as "already remembered".
func TestRememberingAgainAfterExpiryBeforeTheSweepStoresIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice := user("UA")
	const text = "The build cache lives in the eu-west bucket"
	exp := time.Now().Add(time.Hour)
	first, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: text, ExpiresAt: &exp, WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, first.Status, first.Reason)
	_, err = b.db.Pool.Exec(ctx, "UPDATE memories SET expires_at = now() - interval '1 minute' WHERE id = $1", first.Memory.ID)
	require.NoError(t, err)

	again, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: text, WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, again.Status, again.Reason)
	require.NotNil(t, again.Memory)
	require.Nil(t, again.Memory.ExpiresAt)

	old := mustGet(t, b, first.Memory.ID)
	require.Equal(t, "expired", old.ArchivedReason)
	require.Equal(t, "system:expiry", old.ArchivedBy)
	_, events, err := b.store.History(ctx, memory.ViewerAt(adminUser("UZ"), publicThread), first.Memory.ID.String())
	require.NoError(t, err)
	require.Equal(t, "archive", events[len(events)-1].Action)
	require.Equal(t, "system:expiry", events[len(events)-1].ActorID)

	n, err := b.store.SweepExpired(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, []string{text}, activeIn(t, b.db, "C1"))
}

// Item 6: an update keeps the ends of what it merges. A write that expires
// is not merged into a memory that doesn't (nor the other way round): the
// merge would end the permanent part with the temporary one, or keep the
// temporary part for good. It is stored on its own, with its own end, and
// the other is untouched. Two that both expire merge, ending with the
// later.
func TestAnUpdateKeepsTheEndsOfWhatItMerges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hours := func(n int) *time.Time {
		t := time.Now().Add(time.Duration(n) * time.Hour).Truncate(time.Second)
		return &t
	}
	write := func(b *testBundle, content string, exp *time.Time) memory.Outcome {
		out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge, Content: content, ExpiresAt: exp, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		return out
	}
	mergeInto := func(b *testBundle, merged string) {
		b.adj.decide = func(_ string, c []memory.Memory) memory.Decision {
			return memory.Decision{Action: memory.ActionUpdate, Target: c[0].ID, Merged: merged}
		}
	}
	const address, painting = "The Lisbon office is at Rua Augusta 10, third floor", "The Lisbon office third floor is closed for painting"
	const merged = "The Lisbon office is at Rua Augusta 10, third floor; the third floor is closed for painting"
	cases := []struct {
		name              string
		targetEnd, newEnd *time.Time
		wantMerged        bool
		wantEnd           *time.Time
	}{
		{"an expiring write into a permanent memory", nil, hours(48), false, hours(48)},
		{"a permanent write into an expiring memory", hours(48), nil, false, nil},
		{"both expiring: the later end", hours(72), hours(48), true, hours(72)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			target := write(b, address, tc.targetEnd)
			mergeInto(b, merged)
			out := write(b, painting, tc.newEnd)
			if !tc.wantMerged {
				require.Equal(t, painting, out.Memory.Content, "stored on its own")
				require.Empty(t, out.Superseded)
				require.Contains(t, out.Note, "stored on its own")
				kept := mustGet(t, b, target.Memory.ID)
				require.Nil(t, kept.ArchivedAt, "the other memory is untouched")
				requireEnd(t, tc.targetEnd, kept.ExpiresAt)
			} else {
				require.Equal(t, merged, out.Memory.Content)
				require.Len(t, out.Superseded, 1)
			}
			requireEnd(t, tc.wantEnd, out.Memory.ExpiresAt)
		})
	}
}

func requireEnd(t *testing.T, want, got *time.Time) {
	t.Helper()
	if want == nil {
		require.Nil(t, got, "no end")
		return
	}
	require.NotNil(t, got, "an end")
	require.WithinDuration(t, *want, *got, time.Second)
}

// Item 7: content with NUL characters or invalid UTF-8 (possible through
// MCP, or from a model) is stored without them, not refused with the
// database's error; a merge's text too.
func TestContentWithNULOrInvalidUTF8IsStoredClean(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Deploys go out on Tuesdays", memory.Canonicalize("Deploys go out on\x00 Tuesdays\xff\xfe"))
	b := setup(t)
	out, err := b.store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge,
		Content: "Deploys go out on\x00 Tuesdays after QA\xc3\x28 sign-off", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "Deploys go out on Tuesdays after QA( sign-off", out.Memory.Content)

	b.adj.decide = func(_ string, c []memory.Memory) memory.Decision {
		return memory.Decision{Action: memory.ActionUpdate, Target: c[0].ID, Merged: "Deploys go out on Tuesdays after QA sign-off\x00 from Bob"}
	}
	out, err = b.store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge,
		Content: "Deploys go out on Tuesdays after a sign-off from Bob", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status, out.Reason)
	require.Equal(t, "Deploys go out on Tuesdays after QA sign-off from Bob", out.Memory.Content)
}

func mustGetStore(t *testing.T, s *memory.Store, id uuid.UUID) memory.Memory {
	t.Helper()
	m, err := s.Get(context.Background(), id)
	require.NoError(t, err)
	return m
}
