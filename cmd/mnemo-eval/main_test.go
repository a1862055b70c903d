package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/evals"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// mnemoBin is the real mnemo binary, built once for these tests.
var mnemoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mnemo-eval-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mnemoBin = filepath.Join(dir, "mnemo")
	build := exec.Command("go", "build", "-o", mnemoBin, "github.com/mnemo-bot/mnemo/cmd/mnemo")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mnemo:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

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
		Start: binaryStarter(mnemoBin, os.Getenv("PATH")), Out: &out,
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

// --live wires the configured provider into the bot and grades with the
// judge model; here both are a local model server speaking the real
// protocol, so the wiring is exercised without a network.
func TestEvalLiveUsesTheProviderAndTheJudge(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, "You grade a Slack assistant's reply") {
			if strings.Contains(req.Transcript(), "Prefers terse PR summaries") {
				return fakellm.Reply{JSON: `{"grade": "B", "reason": "confirms the preference, a little wordy"}`}
			}
			return fakellm.Reply{JSON: `{"grade": "E", "reason": "does not confirm"}`}
		}
		return scripted.Memory()(n, req)
	})
	env := map[string]string{
		"DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "anthropic", "MNEMO_LLM_BASE_URL": model.URL,
		"MNEMO_LLM_API_KEY": "sk-ant-live-test-0123456789", "MNEMO_MODEL": "bot-model", "MNEMO_JUDGE_MODEL": "judge-model",
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--live", "--mnemo", mnemoBin, "--run", "^(explicit-first-person-preference|volatile-analytics-not-stored)$"}, func(k string) string { return env[k] }, &out, &errOut)
	require.Equal(t, 1, code, "the judge fails the volatile case: %s", out.String())
	require.Regexp(t, `explicit-first-person-preference\s+0\.75\s+pass`, out.String(), "a B grade passes")
	require.Contains(t, out.String(), "rubric: does not confirm")
	require.Contains(t, out.String(), "eval: 1 passed, 1 failed")
	var judged, bot int
	for _, r := range model.Requests() {
		switch r.Model {
		case "judge-model":
			judged++
		case "bot-model":
			bot++
		}
	}
	require.Equal(t, 2, judged, "one grade per case, from MNEMO_JUDGE_MODEL")
	for _, r := range model.Requests() {
		if r.Model == "judge-model" {
			require.Equal(t, evals.JudgeSchema.Name, r.ForcedTool(), "the grade is a forced, schema-checked tool call")
		}
	}
	require.Positive(t, bot, "the bot ran on the configured provider")
}

// Against the real binary, which keys threads correctly, --mutant fails and
// names the thread-dependent scenario that passed; a scenario that is not
// thread-dependent is not held to it.
func TestMutantModeNamesThreadDependentScenariosThatPass(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": os.Getenv("DATABASE_URL")}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--mutant", "--mnemo", mnemoBin, "--run", "^(explicit-first-person-preference|auto-recall-in-new-thread)$"}, func(k string) string { return env[k] }, &out, &errOut)
	require.Equal(t, 1, code, out.String())
	require.Contains(t, out.String(), "eval: 2 passed, 0 failed")
	require.Contains(t, errOut.String(), "1 thread-dependent scenarios passed against per-message thread keys")
	require.Contains(t, errOut.String(), "explicit-first-person-preference")
	require.NotContains(t, errOut.String(), "auto-recall-in-new-thread")
}

func TestMutationVerdict(t *testing.T) {
	t.Parallel()
	ss, err := evals.Load(evals.Builtin())
	require.NoError(t, err)
	var dependent, independent string
	for _, s := range ss {
		if s.ThreadDependent() && dependent == "" {
			dependent = s.Name
		}
		if !s.ThreadDependent() && independent == "" {
			independent = s.Name
		}
	}
	var out bytes.Buffer
	err = mutationVerdict(ss, []evals.Result{{Name: dependent, Reasons: []string{"assertion 0 is vacuous"}}, {Name: independent, Pass: true}}, &out)
	require.NoError(t, err)
	require.Contains(t, out.String(), "all 1 thread-dependent scenarios failed")
	require.Contains(t, out.String(), dependent+": assertion 0 is vacuous")

	err = mutationVerdict(ss, []evals.Result{{Name: independent}}, &out)
	require.ErrorContains(t, err, "no thread-dependent scenario ran")
}
