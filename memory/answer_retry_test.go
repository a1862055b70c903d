package memory_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// What a schema can't say about an answer is checked as part of it: an
// answer that breaks it is asked for once more, as one that breaks the
// schema is, and the second answer is read on its own. Before, the first
// such answer failed the write closed at once, so one slip of the model
// lost a remember that a second ask would have kept.
func TestAnswersBreakingWhatTheSchemaCantSayAreAskedForAgain(t *testing.T) {
	t.Parallel()
	decision := func(d, target, merged string, supersedes ...string) string {
		if supersedes == nil {
			supersedes = []string{}
		}
		b, _ := json.Marshal(map[string]any{"decision": d, "target": target, "merged": merged, "supersedes": supersedes})
		return string(b)
	}
	older := memory.Memory{ID: uuid.New(), Kind: memory.KindPreference, Content: "Prefers terse PR summaries"}
	for name, first := range map[string]string{
		"fields that contradict the decision": decision("add", older.ID.String(), ""),
		"an id that was not listed":           decision("duplicate", uuid.NewString(), ""),
		"superseding an id not listed":        decision("supersede", "", "", older.ID.String(), uuid.NewString()),
	} {
		t.Run("decide: "+name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t, func(n int, _ *fakellm.Request) fakellm.Reply {
				if n == 0 {
					return fakellm.Reply{JSON: first}
				}
				return fakellm.Reply{JSON: decision("supersede", "", "", older.ID.String())}
			})
			judge := memory.ModelJudge{Model: llm.NewOpenAI("k", srv.URL+"/v1", "m")}
			d, err := judge.Decide(context.Background(), "Prefers detailed PR summaries", memory.KindPreference, []memory.Memory{older})
			require.NoError(t, err)
			require.Len(t, srv.Requests(), 2, "the first answer was asked for once more")
			require.Equal(t, memory.Decision{Action: memory.ActionSupersede, Replaces: []uuid.UUID{older.ID}}, d, "nothing of the first answer is kept")
		})
	}

	t.Run("review: a store without its sentence", func(t *testing.T) {
		t.Parallel()
		review := func(canonical string) fakellm.Reply {
			b, _ := json.Marshal(map[string]any{"store": true, "reason": "a lasting preference", "canonical": canonical, "sensitive": "none", "restated": "", "cues": []string{"release notes"}, "expires": ""})
			return fakellm.Reply{JSON: string(b)}
		}
		srv := fakellm.New(t, func(n int, _ *fakellm.Request) fakellm.Reply {
			if n == 0 {
				return review("")
			}
			return review("Prefers release notes as bullet lists")
		})
		d := testdb.New(t).DB
		store := memory.New(d, memory.Options{Reviewer: memory.ModelJudge{Model: llm.NewAnthropic("k", srv.URL, "m")}})
		out, err := store.Remember(context.Background(), memory.WriteRequest{Actor: user("UA"), Place: dmAlice, Content: "I prefer release notes as bullet lists", WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		require.Len(t, srv.Requests(), 2)
		var content string
		require.NoError(t, d.Pool().QueryRow(context.Background(), "SELECT content FROM memories WHERE id = $1", out.Memory.ID).Scan(&content))
		require.Equal(t, "Prefers release notes as bullet lists", content)
	})
}
