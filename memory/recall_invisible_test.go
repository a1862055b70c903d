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
