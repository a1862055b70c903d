package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/llm"
)

// A secret that a cut runs through is redacted all the same: the text is
// redacted before it is cut, since its cut end would no longer look like
// a secret to the detector (a GitHub token's first 20 characters).
func TestACutTextKeepsNoPartOfASecret(t *testing.T) {
	t.Parallel()
	const token = "ghp_abcdefghijklmnopqrstuvwxyzABCDEF012345"
	require.Equal(t, detect.RedactedMarker, detect.Redact(token), "the detector knows the whole token")

	// A post cut at MaxMessageChars, the token across the cut.
	post := strings.Repeat("x", MaxMessageChars-20) + " " + token + " and more"
	stored := StoredText(post)
	require.Contains(t, stored, "[truncated", "the post is cut")
	require.False(t, strings.Contains(stored, "ghp_"), "a part of the token is stored")
	require.Contains(t, stored, detect.RedactedMarker)

	// A tool step cut at TraceChars, the token across the cut.
	step := compactStep(llm.ToolCall{Name: "memory__recall", Input: json.RawMessage(`{"query":"deploy"}`)}, "",
		strings.Repeat("y", TraceChars-50)+" "+token)
	require.LessOrEqual(t, len([]rune(step)), TraceChars)
	require.False(t, strings.Contains(step, "ghp_"), "a part of the token is in the trace (the marker may be cut)")
}
