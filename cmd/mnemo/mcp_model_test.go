package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// therapy is a health fact in words no detector knows: only the model,
// judging what it means, finds it sensitive.
const therapy = "Prefers no meetings on Tuesday mornings (therapy)"

// mnemoMCP starts the real binary as `mnemo mcp` over stdio for U0BOB,
// with env beside the test's own.
func mnemoMCP(t *testing.T, env map[string]string) *client.Client {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	c, err := client.NewStdioMCPClient(exe, envLines(env), "mcp", "--user", "U0BOB", "--team", "T0TEAM")
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// bobInPublic is U0BOB asking in a public channel, where his ordinary
// preferences are applied and his sensitive ones never are.
var bobInPublic = memory.ViewerAt(
	provenance.Actor{Kind: provenance.KindUser, Team: "T0TEAM", ID: "U0BOB"},
	provenance.Place{Team: "T0TEAM", Channel: "C0GENERAL", SourceKey: "slack:T0TEAM:C0GENERAL:1800000000.000100", Visibility: provenance.Public})

// Without a model, mnemo mcp stores nothing through remember: the
// detectors alone would store the therapy preference as an ordinary one,
// to be applied in public channels. The tool is listed and refuses every
// call with what to configure; recall, list_memories and forget judge
// nothing and work, on a memory a judged write stored.
func TestMCPWithoutAModelRefusesRemember(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	model := fakellm.New(t, scripted.Memory())

	// A memory of Bob's, stored through MCP with the model's review.
	inv := mcpIdentity{Team: "T0TEAM", User: "U0BOB"}.invocation(time.Now())
	judged, err := newMCPServer(judgedMCPStore(t, d, model), true, func(context.Context) (tools.Invocation, bool) { return inv, true })
	require.NoError(t, err)
	seed, err := client.NewInProcessClient(judged)
	require.NoError(t, err)
	require.NoError(t, seed.Start(context.Background()))
	t.Cleanup(func() { seed.Close() })
	initMCP(t, seed)
	out, isErr := mcpCall(t, seed, "remember", map[string]any{"content": "Prefers terse replies"})
	require.False(t, isErr, out)
	reviews := len(model.Requests())
	require.Positive(t, reviews, "control: the judged write asked the model")

	c := mnemoMCP(t, map[string]string{"MNEMO_TEST_MAIN": "1", "DATABASE_URL": d.URL, "MNEMO_LLM_PROVIDER": "", "MNEMO_MODEL": ""})
	require.ElementsMatch(t, []string{"remember", "recall", "list_memories", "forget"}, initMCP(t, c), "remember is still listed")

	for _, content := range []string{therapy, "Prefers release notes as bullet lists"} {
		out, isErr = mcpCall(t, c, "remember", map[string]any{"content": content})
		require.True(t, isErr, "remember without a model: %v", out)
		require.Equal(t, "remember needs a model to judge what a memory means: set MNEMO_LLM_PROVIDER and MNEMO_MODEL", out["error"], out)
	}
	var contents []string
	rows, err := d.Pool.Query(context.Background(), "SELECT content FROM memories ORDER BY created_at")
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		contents = append(contents, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"Prefers terse replies"}, contents, "nothing was stored without a model")
	require.Len(t, model.Requests(), reviews, "the model-less server asked no model")

	// The other tools work without a model.
	out, isErr = mcpCall(t, c, "recall", map[string]any{"query": "terse replies"})
	require.False(t, isErr, out)
	found := out["result"].(map[string]any)["memories"].([]any)
	require.Len(t, found, 1, out)
	id := found[0].(map[string]any)["id"].(string)
	out, isErr = mcpCall(t, c, "list_memories", map[string]any{})
	require.False(t, isErr, out)
	require.Len(t, out["result"].(map[string]any)["memories"], 1, out)
	out, isErr = mcpCall(t, c, "forget", map[string]any{"memory": id})
	require.False(t, isErr, out)
	require.Equal(t, true, out["result"].(map[string]any)["forgotten"], out)
}

// With a model, what remember stores over MCP is judged on what it means:
// the model finds the therapy preference sensitive (health), so it is
// stored sensitive and never applied in a public channel, while an
// ordinary preference written the same way is.
func TestMCPRememberIsJudgedByTheModel(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	mem := scripted.Memory()
	model := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, memory.ReviewPromptMarker) && strings.Contains(req.Transcript(), therapy) {
			b, _ := json.Marshal(map[string]any{"store": true, "reason": "a preference with a health reason", "canonical": therapy,
				"sensitive": "health", "restated": "", "cues": []string{"meetings", "tuesday"}, "expires": ""})
			return fakellm.Reply{JSON: string(b)}
		}
		return mem(n, req)
	})
	c := mnemoMCP(t, withFakeModel(model, map[string]string{"MNEMO_TEST_MAIN": "1", "DATABASE_URL": d.URL}))
	initMCP(t, c)
	for _, content := range []string{therapy, "Prefers terse replies"} {
		out, isErr := mcpCall(t, c, "remember", map[string]any{"content": content})
		require.False(t, isErr, out)
		require.Equal(t, true, out["result"].(map[string]any)["stored"], out)
	}
	reviewed := 0
	for _, r := range model.Requests() {
		if strings.HasPrefix(r.System, memory.ReviewPromptMarker) {
			reviewed++
		}
	}
	require.Equal(t, 2, reviewed, "the model reviewed each write")

	sensitive := map[string]string{}
	rows, err := d.Pool.Query(context.Background(), "SELECT content, sensitive FROM memories WHERE subject_id = 'U0BOB' AND written_by = 'mcp'")
	require.NoError(t, err)
	for rows.Next() {
		var content, category string
		require.NoError(t, rows.Scan(&content, &category))
		sensitive[content] = category
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{therapy: "health", "Prefers terse replies": ""}, sensitive)

	applied, err := memory.New(d.DB, memory.Options{}).ForPrompt(context.Background(), bobInPublic, "")
	require.NoError(t, err)
	var public []string
	for _, m := range applied {
		public = append(public, m.Content)
	}
	require.Contains(t, public, "Prefers terse replies", "control: an ordinary preference is applied in public")
	require.NotContains(t, public, therapy, "the sensitive one never is")
}
