package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// ranking is what a set of searches returned: per search, each result's
// id and score, in order.
type ranking map[string][]string

// TestInvisibleMemoriesShapeNoRanking (issue 30, item 2): Bob's results and
// their scores are the same with and without Alice's memories that Bob may
// not see: her personal ones (said in his thread, and in her DM), her
// sensitive ones, her thread-only instructions in his thread, memories past
// their expiry that the sweep has not archived yet, and another team's.
// They share his words and sit between his thread's memories, so a
// statistic or a thread window that counted them would move his scores.
// Both searches run in one transaction, so now() (recency) is the same.
func TestInvisibleMemoriesShapeNoRanking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice, bob := user("UA"), user("UB")
	base := time.Now().Add(-48 * time.Hour)
	insert := func(tx *db.Tx, m db.MemoryInsert) uuid.UUID {
		t.Helper()
		if m.Team == "" {
			m.Team = team
		}
		m.Normalized, m.IdempotencyKey, m.WrittenBy = memory.Normalize(m.Content), uuid.NewString(), provenance.ByExplicit
		row, err := tx.Memories().Insert(ctx, m)
		require.NoError(t, err)
		return row.ID
	}
	place := func(p provenance.Place) db.MemoryInsert {
		return db.MemoryInsert{SourceKey: p.SourceKey, ChannelID: p.Channel, Visibility: p.Visibility}
	}
	topics := []string{"staging database migration", "rollback plan for the release", "database backups at night",
		"the migration window is on Sunday", "cache warmup after deploy", "staging is frozen this week"}

	searches := []db.SearchQuery{}
	for _, q := range []string{"staging database migration", "when is the migration window", "rollback staging", "stagng databse"} {
		for _, apply := range []bool{false, true} {
			searches = append(searches, db.SearchQuery{Team: team, Channel: publicThread.Channel, SourceKey: publicThread.SourceKey,
				Actor: bob.ID, Apply: apply, Query: q, Fuzzy: true, Reserve: 3, Limit: 8})
		}
		searches = append(searches, db.SearchQuery{Team: team, Channel: dmBob.Channel, SourceKey: dmBob.SourceKey,
			Actor: bob.ID, PrivateViewer: true, Query: q, Fuzzy: true, RequireMatch: true, Limit: 8})
	}
	run := func(tx *db.Tx) ranking {
		t.Helper()
		out := ranking{}
		for i, s := range searches {
			got, err := tx.Memories().Search(ctx, s)
			require.NoError(t, err)
			key := fmt.Sprintf("%d %s private=%v apply=%v", i, s.Query, s.PrivateViewer, s.Apply)
			for _, r := range got {
				out[key] = append(out[key], fmt.Sprintf("%s %.12g", r.Content, r.Score))
			}
		}
		return out
	}

	err := b.db.DB.InTx(ctx, func(tx *db.Tx) error {
		// Bob's world: a long thread in a public channel, his own
		// memories, and the team's public workspace memories.
		for i := range 90 {
			m := place(publicThread)
			m.Scope, m.SubjectType, m.SubjectID, m.Kind = "channel", "channel", publicThread.Channel, "knowledge"
			m.ActorID, m.Content, m.ObservedAt = bob.ID, fmt.Sprintf("Note %d: %s", i, topics[i%len(topics)]), base.Add(time.Duration(2*i)*time.Minute)
			if i%7 == 3 {
				m.Content = fmt.Sprintf("Note %d: lunch order for the team", i)
			}
			insert(tx, m)
		}
		for i, c := range []string{"Prefers staging deploys in the morning", "Owns the database migration runbook"} {
			m := place(publicThread)
			m.Scope, m.SubjectType, m.SubjectID, m.Kind = "personal", "user", bob.ID, []string{"preference", "knowledge"}[i]
			m.ActorID, m.Content, m.ObservedAt = bob.ID, c, base.Add(time.Duration(i)*time.Minute)
			insert(tx, m)
		}
		m := place(otherPublic)
		m.Scope, m.SubjectType, m.SubjectID, m.Kind = "workspace", "team", team, "knowledge"
		m.ActorID, m.Content, m.ObservedAt = bob.ID, "The staging database is restored from backups every night", base
		insert(tx, m)

		// Each memory created when it was said: recency breaks ties, as it
		// would, rather than the order rows are read in (a transaction's
		// rows are all created at its now()).
		_, err := tx.Pgx().Exec(ctx, "UPDATE memories SET created_at = observed_at")
		require.NoError(t, err)
		without := run(tx)
		require.NotEmpty(t, without["0 staging database migration private=false apply=false"], "positive control: Bob finds his memories")

		// Alice's memories, none of which Bob may see, with his words, said
		// between his thread's memories.
		ids := map[string][]uuid.UUID{}
		for i := range 40 {
			at := base.Add(time.Duration(2*i+1) * time.Minute)
			text := fmt.Sprintf("Alice %d: %s, staging database migration rollback window", i, topics[i%len(topics)])
			personal := place(publicThread)
			personal.Scope, personal.SubjectType, personal.SubjectID, personal.Kind = "personal", "user", alice.ID, "preference"
			personal.ActorID, personal.Content, personal.ObservedAt = alice.ID, text, at
			ids["personal"] = append(ids["personal"], insert(tx, personal))

			dm := place(dmAlice)
			dm.Scope, dm.SubjectType, dm.SubjectID, dm.Kind = "personal", "user", alice.ID, "knowledge"
			dm.ActorID, dm.Content, dm.ObservedAt = alice.ID, text, at
			ids["dm"] = append(ids["dm"], insert(tx, dm))

			sensitive := place(publicThread)
			sensitive.Scope, sensitive.SubjectType, sensitive.SubjectID, sensitive.Kind = "personal", "user", alice.ID, "knowledge"
			sensitive.ActorID, sensitive.Content, sensitive.ObservedAt, sensitive.Sensitive = alice.ID, text, at, "health"
			ids["sensitive"] = append(ids["sensitive"], insert(tx, sensitive))
			elsewhere := place(otherPublic)
			elsewhere.Scope, elsewhere.SubjectType, elsewhere.SubjectID, elsewhere.Kind = "workspace", "team", team, "knowledge"
			elsewhere.ActorID, elsewhere.Content, elsewhere.ObservedAt, elsewhere.Sensitive = alice.ID, text, at, "health"
			ids["sensitive"] = append(ids["sensitive"], insert(tx, elsewhere))

			only := place(publicThread)
			only.Scope, only.SubjectType, only.SubjectID, only.Kind = "conversation", "user", alice.ID, "procedure"
			only.ActorID, only.Content, only.ObservedAt = alice.ID, text, at
			ids["thread-only"] = append(ids["thread-only"], insert(tx, only))

			expired := place(publicThread)
			expired.Scope, expired.SubjectType, expired.SubjectID, expired.Kind = "channel", "channel", publicThread.Channel, "knowledge"
			expired.ActorID, expired.Content, expired.ObservedAt = alice.ID, text+" stagnant", at
			ids["expired"] = append(ids["expired"], insert(tx, expired))
			gone := place(otherPublic)
			gone.Scope, gone.SubjectType, gone.SubjectID, gone.Kind = "workspace", "team", team, "knowledge"
			gone.ActorID, gone.Content, gone.ObservedAt = alice.ID, text, at
			ids["expired"] = append(ids["expired"], insert(tx, gone))

			other := place(provenance.Place{Team: "T2", Channel: publicThread.Channel, SourceKey: publicThread.SourceKey, Visibility: provenance.Public})
			other.Team, other.Scope, other.SubjectType, other.SubjectID, other.Kind = "T2", "channel", "channel", publicThread.Channel, "knowledge"
			other.ActorID, other.Content, other.ObservedAt = bob.ID, text, at
			ids["other team"] = append(ids["other team"], insert(tx, other))
		}
		_, err = tx.Pgx().Exec(ctx, "UPDATE memories SET created_at = observed_at WHERE created_at <> observed_at")
		require.NoError(t, err)
		_, err = tx.Pgx().Exec(ctx, "UPDATE memories SET expires_at = now() - interval '1 minute' WHERE id = ANY($1)", ids["expired"])
		require.NoError(t, err)

		// Bob sees none of them (memory_visible, the rule's SQL mirror,
		// which also knows expiry), from any place he searches.
		for kind, list := range ids {
			for _, s := range searches {
				var seen int
				require.NoError(t, tx.Pgx().QueryRow(ctx, `SELECT count(*) FROM memories m WHERE m.id = ANY($1)
					AND memory_visible(m, $2, $3, $4, $5, $6, $7)`, list, team, bob.ID, s.Channel, s.SourceKey, s.PrivateViewer, s.Apply).Scan(&seen))
				require.Zero(t, seen, "%s memories are visible to Bob", kind)
				require.NoError(t, tx.Pgx().QueryRow(ctx, `SELECT count(*) FROM memories m WHERE m.id = ANY($1)
					AND memory_visible(m, m.team_id, m.subject_id, m.channel_id, m.source_key, true, false)`, list).Scan(&seen))
				if kind != "expired" {
					require.Equal(t, len(list), seen, "positive control: %s memories are visible to someone", kind)
				}
			}
		}

		with := run(tx)
		require.Equal(t, without, with)
		return nil
	})
	require.NoError(t, err)
}

// TestAGuestsRankingCountsOnlyWhatAGuestMaySee (issue 33 with issue 30's
// rule): an external member of a Slack Connect channel reads the host's
// memories of that channel (Only "channel"). Their results and scores are
// the same with and without the host's memories a guest may not see that
// share the channel, its thread and the guest's words: a sensitive
// workspace memory said in the channel, thread-only memories of the
// thread, and a host member's personal ones. Before, the sensitive one sat
// in the channel's partition, so the statistics a guest's ranking reads
// counted it, and the thread windows read rows only the host's members see.
func TestAGuestsRankingCountsOnlyWhatAGuestMaySee(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	guest, alice := "UEXT", user("UA")
	base := time.Now().Add(-48 * time.Hour)
	topics := []string{"staging database migration", "rollback plan for the release", "database backups at night",
		"the migration window is on Sunday", "cache warmup after deploy", "staging is frozen this week"}
	insert := func(tx *db.Tx, m db.MemoryInsert) uuid.UUID {
		t.Helper()
		m.Team, m.SourceKey, m.ChannelID, m.Visibility = team, publicThread.SourceKey, publicThread.Channel, provenance.Public
		m.Normalized, m.IdempotencyKey, m.WrittenBy = memory.Normalize(m.Content), uuid.NewString(), provenance.ByExplicit
		row, err := tx.Memories().Insert(ctx, m)
		require.NoError(t, err)
		return row.ID
	}
	var searches []db.SearchQuery
	for _, q := range []string{"staging database migration", "when is the migration window", "rollback staging", "stagng databse"} {
		for _, apply := range []bool{false, true} {
			searches = append(searches, db.SearchQuery{Team: team, Channel: publicThread.Channel, SourceKey: publicThread.SourceKey,
				Actor: guest, Only: "channel", Apply: apply, Query: q, Fuzzy: true, Limit: 8})
		}
	}
	run := func(tx *db.Tx) ranking {
		t.Helper()
		out := ranking{}
		for i, s := range searches {
			got, err := tx.Memories().Search(ctx, s)
			require.NoError(t, err)
			key := fmt.Sprintf("%d %s apply=%v", i, s.Query, s.Apply)
			for _, r := range got {
				out[key] = append(out[key], fmt.Sprintf("%s %.12g", r.Content, r.Score))
			}
		}
		return out
	}

	err := b.db.DB.InTx(ctx, func(tx *db.Tx) error {
		// What a guest sees: the shared channel's memories, in its thread.
		for i := range 60 {
			m := db.MemoryInsert{Scope: "channel", SubjectType: "channel", SubjectID: publicThread.Channel, Kind: "knowledge",
				ActorID: alice.ID, Content: fmt.Sprintf("Note %d: %s", i, topics[i%len(topics)]), ObservedAt: base.Add(time.Duration(2*i) * time.Minute)}
			insert(tx, m)
		}
		_, err := tx.Pgx().Exec(ctx, "UPDATE memories SET created_at = observed_at")
		require.NoError(t, err)
		without := run(tx)
		require.NotEmpty(t, without["0 staging database migration apply=false"], "positive control: the guest finds the channel's memories")

		// The host's, with the guest's words, said between them.
		var hidden []uuid.UUID
		for i := range 30 {
			at := base.Add(time.Duration(2*i+1) * time.Minute)
			text := fmt.Sprintf("Host %d: %s, staging database migration rollback window", i, topics[i%len(topics)])
			hidden = append(hidden,
				insert(tx, db.MemoryInsert{Scope: "workspace", SubjectType: "team", SubjectID: team, Kind: "knowledge",
					ActorID: alice.ID, Content: text, ObservedAt: at, Sensitive: "health"}),
				insert(tx, db.MemoryInsert{Scope: "conversation", SubjectType: "conversation", SubjectID: publicThread.SourceKey, Kind: "procedure",
					ActorID: alice.ID, Content: text, ObservedAt: at}),
				insert(tx, db.MemoryInsert{Scope: "personal", SubjectType: "user", SubjectID: alice.ID, Kind: "knowledge",
					ActorID: alice.ID, Content: text, ObservedAt: at}))
		}
		_, err = tx.Pgx().Exec(ctx, "UPDATE memories SET created_at = observed_at WHERE created_at <> observed_at")
		require.NoError(t, err)

		// The guest may see none of them; Alice, a host member there, all.
		var seen int
		require.NoError(t, tx.Pgx().QueryRow(ctx, `SELECT count(*) FROM memories m WHERE m.id = ANY($1)
			AND memory_visible(m, $2, $3, $4, $5, false, false, 'channel')`, hidden, team, guest, publicThread.Channel, publicThread.SourceKey).Scan(&seen))
		require.Zero(t, seen, "the host's memories are visible to the guest")
		require.NoError(t, tx.Pgx().QueryRow(ctx, `SELECT count(*) FROM memories m WHERE m.id = ANY($1)
			AND memory_visible(m, $2, $3, $4, $5, false, false)`, hidden, team, alice.ID, publicThread.Channel, publicThread.SourceKey).Scan(&seen))
		require.Equal(t, len(hidden), seen, "positive control: Alice sees them there")
		host := searches[0]
		host.Actor, host.Only = alice.ID, ""
		found, err := tx.Memories().Search(ctx, host)
		require.NoError(t, err)
		require.Contains(t, found[0].Content, "Host ", "positive control: they match the guest's words")

		require.Equal(t, without, run(tx))
		return nil
	})
	require.NoError(t, err)
}
