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
		{"email autolink", "write to <bob@example.com>", "write to <mailto:bob@example.com|bob@example.com>"},
		{"link query escaped", "[q](https://e.com/?a=1&b=2)", "<https://e.com/?a=1&amp;b=2|q>"},
		{"strikethrough", "~~old~~ new", "~old~ new"},
		{"code span kept", "keep `**this**` as code", "keep `**this**` as code"},
		{"code span escaped", "run `a < b && c`", "run `a &lt; b &amp;&amp; c`"},
		{"fenced code kept, language dropped", "```go\n**not bold** in a block\n```\n**yes**", "```\n**not bold** in a block\n```\n*yes*"},
		{"escaping", "if a < b && c > d", "if a &lt; b &amp;&amp; c &gt; d"},
		{"slack tokens kept", "ask <@U0ALICE> in <#C0OPS|ops>", "ask <@U0ALICE> in <#C0OPS|ops>"},
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

// The model's text can echo a person's words or quote a stored memory:
// what it writes of Slack's special mentions (@channel, @here, @everyone,
// a user group) is shown as text and notifies nobody. The people and
// channels it names stay mentions and links.
func TestToMrkdwnNeutralisesSpecialMentions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"channel", "<!channel> outage", "&lt;!channel&gt; outage"},
		{"here", "ping <!here>", "ping &lt;!here&gt;"},
		{"everyone", "<!everyone>", "&lt;!everyone&gt;"},
		{"labelled here", "<!here|here>", "&lt;!here|here&gt;"},
		{"user group", "tell <!subteam^S0OPS|@ops>", "tell &lt;!subteam^S0OPS|@ops&gt;"},
		{"user group by id", "tell <!subteam^S0OPS>", "tell &lt;!subteam^S0OPS&gt;"},
		{"as an email address", "<!channel@x.io> <#C0OPS@x.io>", "&lt;!channel@x.io&gt; <mailto:#C0OPS@x.io|#C0OPS@x.io>"},
		{"date", "<!date^1392734382^{date}|Feb 18>", "&lt;!date^1392734382^{date}|Feb 18&gt;"},
		{"quoted memory", "> our alias is <!channel>", "> our alias is &lt;!channel&gt;"},
		{"in bold", "**<!channel>**", "*&lt;!channel&gt;*"},
		{"in a list", "- <!here> now", "• &lt;!here&gt; now"},
		{"in a heading", "# <!everyone>", "*&lt;!everyone&gt;*"},
		{"in a link label", "[<!channel>](https://x.io)", "<https://x.io|&lt;!channel&gt;>"},
		{"in a code span", "`<!channel>`", "`&lt;!channel&gt;`"},
		{"in a code block", "```\n<!channel>\n```", "```\n&lt;!channel&gt;\n```"},
		{"in a slack link's label", "<https://x.io|<!channel>>", "<https://x.io%7C&lt;!channel>&gt;"}, // Markdown reads an autolink
		{"a mention with a label is a mention", "<@U0ALICE|alice> and <!channel>", "<@U0ALICE|alice> and &lt;!channel&gt;"},
		{"what is not a user id is text", "<@channel> <@here|x> <#here>", "&lt;@channel&gt; &lt;@here|x&gt; &lt;#here&gt;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := ToMrkdwn(c.in)
			require.Equal(t, c.want, got, c.in)
			require.NotRegexp(t, `<!`, got, "no special mention is left live")
		})
	}
}

// A streamed answer's Markdown goes to Slack as the model writes it, in
// pieces: a special mention in a piece, or split across two, is broken.
func TestStreamMarkdownBreaksSpecialMentions(t *testing.T) {
	t.Parallel()
	const wj = "\u2060"
	require.Equal(t, "<"+wj+"!channel> outage, ask <@U0ALICE>", StreamMarkdown("", "<!channel> outage, ask <@U0ALICE>"))
	require.Equal(t, wj+"!here> now", StreamMarkdown("tell <", "!here> now"))
	require.Equal(t, "!important", StreamMarkdown("this is ", "!important"))
	require.Equal(t, "<"+wj+"!subteam^S0OPS> and <"+wj+"!everyone>", StreamMarkdown("x", "<!subteam^S0OPS> and <!everyone>"))
	var pieces []string
	shown := ""
	for _, d := range []string{"a <", "!chan", "nel> b <!", "here>"} {
		pieces = append(pieces, StreamMarkdown(shown, d))
		shown += d
	}
	require.NotContains(t, strings.Join(pieces, ""), "<!")
	require.Equal(t, shown, strings.ReplaceAll(strings.Join(pieces, ""), wj, ""), "nothing else changes")
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

// A part never ends or starts inside a link (<url|label words>), a
// mention, or an entity (&amp;): each would show as raw markup.
func TestSplitMessageKeepsTokensAndEntitiesWhole(t *testing.T) {
	t.Parallel()
	link := "<https://example.com/a/long/path|the label of the link>"
	for _, c := range []struct {
		name, text string
		whole      []string
	}{
		// The last space before the cut point is inside the label.
		{"link label", strings.Repeat("a", 50) + " " + link + " tail", []string{link}},
		// No space at all: the hard cut falls inside the entity.
		{"entity", strings.Repeat("b", 93) + "&amp;" + strings.Repeat("c", 60), []string{"&amp;"}},
		{"escaped angle brackets", strings.Repeat("d", 94) + "&lt;&gt;" + strings.Repeat("e", 60), []string{"&lt;", "&gt;"}},
		{"mention", strings.Repeat("f", 90) + "<@U0ALICE|alice>" + strings.Repeat("g", 60), []string{"<@U0ALICE|alice>"}},
		{"link label with an entity", strings.Repeat("word ", 14) + "<https://x.io|R&amp;D notes here and there> and more words after it", []string{"<https://x.io|R&amp;D notes here and there>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			parts := SplitMessage(c.text, 100)
			require.Greater(t, len(parts), 1, "the text is split")
			for _, p := range parts {
				require.LessOrEqual(t, len([]rune(p)), 100)
				require.Equal(t, strings.Count(p, "<"), strings.Count(p, ">"), "no token cut: %q", p)
				require.NotRegexp(t, `&[a-z]*$|^[a-z]*;`, p, "no entity cut: %q", p)
			}
			joined := strings.Join(parts, "\n")
			for _, w := range c.whole {
				require.Contains(t, joined, w, "kept whole in one part: %q", parts)
			}
			require.Equal(t, strings.Join(strings.Fields(c.text), ""), strings.Join(strings.Fields(strings.Join(parts, "")), ""), "nothing lost")
		})
	}

	// A token longer than a part is cut: there is nothing else to do.
	huge := "<https://x.io/" + strings.Repeat("p", 300) + ">"
	parts := SplitMessage(huge, 100)
	require.Equal(t, huge, strings.Join(parts, ""))
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "@mnemo remember that I prefer <b> tags & \"quotes\"", CleanText("<@U0BOT> remember that I prefer &lt;b&gt; tags &amp; \"quotes\"", "U0BOT"))
	require.Equal(t, "ask <@U0OTHER> about &lt;", CleanText("ask <@U0OTHER> about &amp;lt;", "U0BOT"), "unescaped once, not twice")
}
