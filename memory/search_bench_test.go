package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// BenchmarkRecallForPrompt measures recall before a turn over a team with
// 2,000 memories; BenchmarkRecallListBaseline is a plain newest-first list
// of the same rows, the cheapest read the store has, in the same run.
func BenchmarkRecallForPrompt(b *testing.B) {
	bb := seedBench(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := bb.store.ForPrompt(context.Background(), memory.ViewerAt(user("UA"), publicThread), "how do we deploy the payments service"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecallListBaseline(b *testing.B) {
	bb := seedBench(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := bb.store.ListAll(context.Background(), memory.Filter{Team: team, Limit: memory.PromptMemories}); err != nil {
			b.Fatal(err)
		}
	}
}

func seedBench(b *testing.B) *testBundle {
	b.Helper()
	bb := setupTB(b)
	ctx := context.Background()
	topics := []string{"deploy", "payments", "staging", "review", "oncall", "release", "database", "frontend"}
	for i := 0; i < 2000; i++ {
		_, err := bb.store.Remember(ctx, memory.WriteRequest{
			Actor: user(fmt.Sprintf("U%03d", i%50)), Place: publicThread, Scope: memory.ScopeChannel, Kind: memory.KindKnowledge,
			Content: fmt.Sprintf("Note %d: the %s service uses pipeline %d for its %s steps", i, topics[i%8], i, topics[(i/8)%8]), WrittenBy: provenance.ByExplicit,
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return bb
}
