package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ToMrkdwn is a Markdown parser's reading of the model's text, written
// as Slack mrkdwn.
func TestToMrkdwn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"bold and italic", "**bold** and *italic*", "*bold* and _italic_"},
		{"underscore bold and italic", "__bold__ and _italic_", "*bold* and _italic_"},
		{"heading and list", "# Title\n- one\n- two", "*Title*\n• one\n• two"},
		{"bold inside a heading", "## The **big** one", "*The big one*"},
		{"link", "see [the docs](https://example.com/x)", "see <https://example.com/x|the docs>"},
		{"link with parentheses", "see [docs](https://x.io/a_(b))", "see <https://x.io/a_(b)|docs>"},
		{"link with underscores and a formatted label", "[**the** _docs_](https://x.io/a_b_c)", "<https://x.io/a_b_c|the docs>"},
		{"link whose text is its URL", "[https://x.io](https://x.io)", "<https://x.io>"},
		{"autolink kept, as Slack reads it", "go to <https://x.io/a?b=1>", "go to <https://x.io/a?b=1>"},
		{"link query escaped", "[q](https://e.com/?a=1&b=2)", "<https://e.com/?a=1&amp;b=2|q>"},
		{"strikethrough", "~~old~~ new", "~old~ new"},
		{"code span kept", "keep `**this**` as code", "keep `**this**` as code"},
		{"code span escaped", "run `a < b && c`", "run `a &lt; b &amp;&amp; c`"},
		{"fenced code kept, language dropped", "```go\n**not bold** in a block\n```\n**yes**", "```\n**not bold** in a block\n```\n*yes*"},
		{"escaping", "if a < b && c > d", "if a &lt; b &amp;&amp; c &gt; d"},
		{"slack tokens kept", "ask <@U0ALICE> in <#C0OPS|ops>, <!here>", "ask <@U0ALICE> in <#C0OPS|ops>, <!here>"},
		{"slack link kept", "see <https://x.io/a|the page>", "see <https://x.io/a|the page>"},
		{"ordered list", "1. first\n2. second", "1. first\n2. second"},
		{"nested list", "- a\n  - b\n    - c\n- d", "• a\n    • b\n        • c\n• d"},
		{"list item with bold and link", "- **Go**: see [spec](https://go.dev/ref/spec)", "• *Go*: see <https://go.dev/ref/spec|spec>"},
		{"italic inside bold", "**bold _and italic_**", "*bold _and italic_*"},
		{"paragraphs", "one\n\ntwo\nthree", "one\n\ntwo\nthree"},
		{"quote", "> said so\n> twice", "> said so\n> twice"},
		{"asterisks in text that are not emphasis", "2 * 3 * 4", "2 * 3 * 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, ToMrkdwn(c.in), c.in)
		})
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
