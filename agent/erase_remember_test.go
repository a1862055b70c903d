package agent_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// A person erased while their turn runs its remember tool gets nothing
// stored: the erasure commits while the write is reviewed (the judge's
// model call, after the tool was called and before the write is
// persisted), and the tool's result tells the model that nothing was
// stored because the conversation was erased. Control: with no erasure,
// the same turn stores the memory and the same count finds it.
func TestRememberAfterItsPersonsErasureIsToldToTheModel(t *testing.T) {
	t.Parallel()
	for _, withErasure := range []bool{true, false} {
		name := "erased while the write is reviewed"
		if !withErasure {
			name = "control: no erasure"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var erase atomic.Pointer[func()]
			var once sync.Once
			memoryScript := scripted.Memory()
			b := setupRunner(t, func(n int, req *fakellm.Request) fakellm.Reply {
				if strings.HasPrefix(req.System, memory.ReviewPromptMarker) {
					if f := erase.Load(); f != nil {
						once.Do(*f)
					}
				}
				return memoryScript(n, req)
			})
			ctx := context.Background()
			erased := make(chan error, 1)
			if withErasure {
				f := func() {
					_, err := b.db.DB.Erase(ctx, db.Erasure{Team: "T1", User: "UA", By: "U0ADMIN"})
					erased <- err
				}
				erase.Store(&f)
			}

			const ts = "1800000000.000100"
			key := threads.Key{Team: "T1", Channel: "C1", Root: ts}
			p := agent.Post{
				Key: key, TS: ts, Text: "remember that I drink green tea",
				Actor: provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UA", Name: "Alice"},
				Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: key.SourceKey(), ThreadTS: ts, Visibility: provenance.Public},
			}
			_, err := b.runner.Run(ctx, p, newSurface())
			require.NoError(t, err)

			var told []llm.ToolResult
			for _, r := range b.llm.Requests() {
				for _, m := range r.Messages {
					for _, res := range m.ToolResults {
						if strings.Contains(res.Content, "memory__remember") {
							told = append(told, res)
						}
					}
				}
			}
			require.NotEmpty(t, told, "the remember tool's result went back to the model")
			last := told[len(told)-1]
			var n int
			require.NoError(t, b.db.Pool.QueryRow(ctx,
				`SELECT count(*) FROM memories WHERE team_id = 'T1' AND ((subject_type = 'user' AND subject_id = 'UA') OR actor_id = 'UA')`).Scan(&n))
			if !withErasure {
				require.False(t, last.IsError, last.Content)
				require.Equal(t, 1, n, "the count finds the memory stored")
				return
			}
			require.NoError(t, <-erased, "the erasure ran while the write was reviewed")
			require.True(t, last.IsError, last.Content)
			require.Contains(t, last.Content, "nothing was stored: this conversation has been erased")
			require.Zero(t, n, "nothing of the erased person was stored")
		})
	}
}
