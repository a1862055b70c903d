package fakellm

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmbedMapsParaphrasesTogether(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{"time zone", "timezone"},
		{"Pacific", "PT"},
		{"Summaries", "summary"},
		{"pull requests", "PRs"},
		{"Neovim!", "emacs"},
		{"replying", "replies"},
		{"the editor", "editor"},
	}
	for _, s := range same {
		require.Equal(t, Embed(s[0]), Embed(s[1]), "%q and %q", s[0], s[1])
	}
	// Positive control: the table does not make everything equal.
	require.NotEqual(t, Embed("editor"), Embed("timezone"))
	require.NotEqual(t, Embed("alice"), Embed("bob"))
}

func TestEmbedIsUnitLengthOrZero(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"Alice prefers neovim", "z", "x y z x y z", "Ünïcode wörds"} {
		v := Embed(text)
		require.Len(t, v, Dim)
		var sq float64
		for _, x := range v {
			sq += float64(x) * float64(x)
		}
		require.InDelta(t, 1, math.Sqrt(sq), 1e-5, text)
	}
	require.Equal(t, make([]float32, Dim), Embed("the of and is"), "stop words alone carry nothing")
}

func TestSplitsJoinBack(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "one", "one two", "one  two three ", "  lead"} {
		parts := splitText(text)
		require.Equal(t, text, strings.Join(parts, ""))
		if strings.Count(strings.TrimSpace(text), " ") > 0 {
			require.Greater(t, len(parts), 1)
		}
	}
	js := `{"query":"memory of alice","max_results":5}`
	parts := splitJSON(js)
	require.Greater(t, len(parts), 1)
	require.Equal(t, js, strings.Join(parts, ""))
}
