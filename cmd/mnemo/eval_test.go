package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/evals"
)

// An assertion that expects nothing in a thread the bot never logged is
// reported as vacuous, not as a pass; a real scenario passes.
func TestEvalRunnerCatchesVacuousAssertions(t *testing.T) {
	t.Parallel()
	vacuous, err := evals.Load(os.DirFS("../../evals/testdata/vacuous"))
	require.NoError(t, err)
	builtin, err := evals.Load(evals.Builtin())
	require.NoError(t, err)
	var out bytes.Buffer
	res := evals.Run(context.Background(), append(vacuous, builtin...), evals.Options{
		Start: startForEval, Out: &out,
		Pattern: regexp.MustCompile(`^(vacuous-nothing-stored|explicit-first-person-preference)$`),
	})
	require.Len(t, res, 2, out.String())
	byName := map[string]evals.Result{}
	for _, r := range res {
		byName[r.Name] = r
	}
	require.False(t, byName["vacuous-nothing-stored"].Pass)
	require.Contains(t, byName["vacuous-nothing-stored"].Reasons[0], "vacuous")
	require.True(t, byName["explicit-first-person-preference"].Pass, out.String())
	require.Contains(t, out.String(), "eval: 1 passed, 1 failed")
}
