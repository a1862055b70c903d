package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestToMrkdwn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"**bold** and *italic*":                      "*bold* and _italic_",
		"# Title\n- one\n- two":                      "*Title*\n• one\n• two",
		"see [the docs](https://example.com/x)":      "see <https://example.com/x|the docs>",
		"~~old~~ new":                                "~old~ new",
		"keep `**this**` as code":                    "keep `**this**` as code",
		"```\n**not bold** in a block\n```\n**yes**": "```\n**not bold** in a block\n```\n*yes*",
		"if a < b && c > d":                          "if a &lt; b &amp;&amp; c &gt; d",
		"ask <@U0ALICE> in <#C0OPS|ops>, <!here>":    "ask <@U0ALICE> in <#C0OPS|ops>, <!here>",
		"[q](https://e.com/?a=1&b=2)":                "<https://e.com/?a=1&amp;b=2|q>",
	} {
		require.Equal(t, want, ToMrkdwn(in), in)
	}
}

func TestSplitMessage(t *testing.T) {
	t.Parallel()
	require.Nil(t, SplitMessage("   ", 100))
	require.Equal(t, []string{"short"}, SplitMessage("short", 100))

	para := strings.Repeat("word ", 30) // 150 chars
	text := para + "\n\n" + para + "\n\n" + para
	parts := SplitMessage(text, 200)
	require.Len(t, parts, 3)
	for _, p := range parts {
		require.LessOrEqual(t, len([]rune(p)), 200)
	}
	require.Equal(t, strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(strings.Join(parts, " ")), " "), "nothing lost")

	code := "```\n" + strings.Repeat("line of code\n", 40) + "```"
	parts = SplitMessage(code, 200)
	require.Greater(t, len(parts), 1)
	for _, p := range parts {
		require.LessOrEqual(t, len([]rune(p)), 200)
		require.Equal(t, 0, strings.Count(p, "```")%2, "each part keeps its code fences balanced: %q", p)
	}

	long := strings.Repeat("x", 1000) // no break points at all
	parts = SplitMessage(long, 300)
	require.Equal(t, long, strings.Join(parts, ""))
	for _, p := range parts {
		require.LessOrEqual(t, len(p), 300)
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "@mnemo remember that I prefer <b> tags & \"quotes\"", CleanText("<@U0BOT> remember that I prefer &lt;b&gt; tags &amp; \"quotes\"", "U0BOT"))
	require.Equal(t, "ask <@U0OTHER> about &lt;", CleanText("ask <@U0OTHER> about &amp;lt;", "U0BOT"), "unescaped once, not twice")
}
