package slackapp

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// MaxPostChars keeps each posted part well under Slack's 40,000 character
// limit and its 4,000 character guidance for readable messages.
const MaxPostChars = 3500

// slackToken matches the Slack tokens the model's text may keep: a
// person's mention (<@U…>), a channel's link (<#C…|name>) and a link
// (<https://…|label>). Special mentions (<!channel>, <!here>,
// <!everyone>, <!subteam^…>, and <!date^…>, which nothing here writes)
// are not among them: the model's text can echo a person's words or
// quote a stored memory, so they are escaped and shown as text, and the
// bot never notifies a channel or a group.
var slackToken = regexp.MustCompile(`<(?:@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+)(?:\|[^<>]*)?>|<https?://[^<>\s|]+(?:\|[^<>]*)?>|<!`)

var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// markdown parses the model's Markdown: CommonMark and GFM's
// strikethrough, the subset Slack's mrkdwn can show.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Strikethrough))

// Slack's own tokens are taken out of the text before it is parsed, as
// private-use placeholders, and put back after: Markdown would read
// <@U…> as text to escape and <https://…|…> as a broken autolink.
const tokenOpen, tokenClose = "\ue000", "\ue001"

var tokenRef = regexp.MustCompile(tokenOpen + `(\d+)` + tokenClose)

// ToMrkdwn converts the model's Markdown to Slack mrkdwn with a Markdown
// parser (goldmark), escaping &, < and > as Slack requires and keeping
// Slack's own mentions and links (<@U…>, <#C…|name>, <https://…|…>)
// intact. Special mentions (<!channel>, <!here>, <!everyone>,
// <!subteam^…>) come out escaped, as text: every answer the bot posts or
// updates goes through here (a streamed one's pieces need StreamMarkdown).
func ToMrkdwn(md string) string {
	var tokens []string
	md = slackToken.ReplaceAllStringFunc(md, func(tok string) string {
		if tok == "<!" {
			// A special mention, or anything else that starts as one
			// (an email autolink would): text, wherever it is.
			tok = "&lt;!"
		}
		tokens = append(tokens, tok)
		return tokenOpen + strconv.Itoa(len(tokens)-1) + tokenClose
	})
	src := []byte(md)
	r := &mrkdwnWriter{src: src}
	r.blocks(markdown.Parser().Parse(text.NewReader(src)), "")
	out := strings.TrimRight(r.b.String(), "\n")
	return tokenRef.ReplaceAllStringFunc(out, func(ref string) string {
		i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(ref, tokenOpen), tokenClose))
		if i < len(tokens) {
			return tokens[i]
		}
		return ref
	})
}

// StreamMarkdown is delta, a piece of the model's Markdown streamed after
// before in the same message (chat.startStream and chat.appendStream's
// markdown_text, which ToMrkdwn does not see), with each special mention
// broken by a word joiner (U+2060), one split between before and delta
// too: Slack shows <\u2060!channel> as text and notifies nobody. Mentions of
// people and links are left as they are.
func StreamMarkdown(before, delta string) string {
	delta = strings.ReplaceAll(delta, "<!", "<"+wordJoiner+"!")
	if strings.HasSuffix(before, "<") && strings.HasPrefix(delta, "!") {
		delta = wordJoiner + delta
	}
	return delta
}

const wordJoiner = "\u2060"

// mrkdwnWriter renders a Markdown tree as Slack mrkdwn.
type mrkdwnWriter struct {
	src []byte
	b   strings.Builder
}

// blocks renders n's block children, each line after the first of a block
// starting with indent; a blank line in the source between two blocks
// stays one.
func (r *mrkdwnWriter) blocks(n ast.Node, indent string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if prev := c.PreviousSibling(); prev != nil {
			r.b.WriteString("\n")
			if r.blankBetween(prev, c) {
				r.b.WriteString("\n")
			}
			r.b.WriteString(indent)
		}
		r.block(c, indent)
	}
}

// blankBetween reports whether a blank line separates two blocks in the
// source. (goldmark's HasBlankPreviousLines also counts a closing code
// fence as one.)
func (r *mrkdwnWriter) blankBetween(prev, next ast.Node) bool {
	end, ok1 := lastStop(prev)
	start, ok2 := firstStart(next)
	if !ok1 || !ok2 || start < end {
		return next.HasBlankPreviousLines()
	}
	return blankLine.Match(r.src[end:start])
}

var blankLine = regexp.MustCompile(`\n[ \t]*\n`)

// firstStart is where n's first line of text begins in the source.
func firstStart(n ast.Node) (int, bool) {
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start, true
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Type() == ast.TypeBlock {
			if at, ok := firstStart(c); ok {
				return at, true
			}
		}
	}
	return 0, false
}

// lastStop is where n's last line of text ends in the source.
func lastStop(n ast.Node) (int, bool) {
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(n.Lines().Len() - 1).Stop, true
	}
	for c := n.LastChild(); c != nil; c = c.PreviousSibling() {
		if c.Type() == ast.TypeBlock {
			if at, ok := lastStop(c); ok {
				return at, true
			}
		}
	}
	return 0, false
}

func (r *mrkdwnWriter) block(n ast.Node, indent string) {
	switch n := n.(type) {
	case *ast.Heading:
		r.b.WriteString("*")
		r.inlines(n, indent, true)
		r.b.WriteString("*")
	case *ast.Paragraph, *ast.TextBlock:
		r.inlines(n, indent, false)
	case *ast.List:
		i := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			if item != n.FirstChild() {
				r.b.WriteString("\n")
				if !n.IsTight {
					r.b.WriteString("\n")
				}
				r.b.WriteString(indent)
			}
			marker := "• "
			if n.IsOrdered() {
				marker = strconv.Itoa(i) + ". "
				i++
			}
			r.b.WriteString(marker)
			r.blocks(item, indent+"    ")
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		r.b.WriteString("```\n")
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			if i > 0 {
				r.b.WriteString(indent)
			}
			r.b.WriteString(slackEscape.Replace(string(seg.Value(r.src))))
		}
		if lines.Len() > 0 && !strings.HasSuffix(r.b.String(), "\n") {
			r.b.WriteString("\n")
		}
		r.b.WriteString(indent + "```")
	case *ast.Blockquote:
		r.b.WriteString("> ")
		r.blocks(n, indent+"> ")
	case *ast.ThematicBreak:
		r.b.WriteString("———")
	case *ast.HTMLBlock:
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			if i > 0 {
				r.b.WriteString(indent)
			}
			r.b.WriteString(slackEscape.Replace(string(seg.Value(r.src))))
		}
		r.trimNewline()
	default:
		r.inlines(n, indent, false)
	}
}

func (r *mrkdwnWriter) trimNewline() {
	if s := r.b.String(); strings.HasSuffix(s, "\n") {
		r.b.Reset()
		r.b.WriteString(strings.TrimSuffix(s, "\n"))
	}
}

// inlines renders n's inline children. plain drops emphasis markers, for
// text that is already bold (a heading) or cannot be styled (a link's).
func (r *mrkdwnWriter) inlines(n ast.Node, indent string, plain bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(c, indent, plain)
	}
}

func (r *mrkdwnWriter) inline(n ast.Node, indent string, plain bool) {
	switch n := n.(type) {
	case *ast.Text:
		r.b.WriteString(slackEscape.Replace(string(n.Value(r.src))))
		if n.SoftLineBreak() || n.HardLineBreak() {
			r.b.WriteString("\n" + indent)
		}
	case *ast.String:
		r.b.WriteString(slackEscape.Replace(string(n.Value)))
	case *ast.CodeSpan:
		r.b.WriteString("`")
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				r.b.WriteString(slackEscape.Replace(string(t.Value(r.src))))
			} else if s, ok := c.(*ast.String); ok {
				r.b.WriteString(slackEscape.Replace(string(s.Value)))
			}
		}
		r.b.WriteString("`")
	case *ast.Emphasis:
		mark := "_"
		if n.Level >= 2 {
			mark = "*"
		}
		if plain {
			mark = ""
		}
		r.b.WriteString(mark)
		r.inlines(n, indent, plain)
		r.b.WriteString(mark)
	case *east.Strikethrough:
		mark := "~"
		if plain {
			mark = ""
		}
		r.b.WriteString(mark)
		r.inlines(n, indent, plain)
		r.b.WriteString(mark)
	case *ast.Link:
		r.link(string(n.Destination), n, indent)
	case *ast.Image:
		r.link(string(n.Destination), n, indent)
	case *ast.AutoLink:
		u := string(n.URL(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail {
			// <mailto:…|…>: written bare, an address whose local part
			// starts with ! or # would read as a Slack token.
			r.b.WriteString("<mailto:" + linkURL(u) + "|" + strings.ReplaceAll(slackEscape.Replace(u), "|", "¦") + ">")
			break
		}
		r.b.WriteString("<" + linkURL(u) + ">")
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			r.b.WriteString(slackEscape.Replace(string(seg.Value(r.src))))
		}
	default:
		r.inlines(n, indent, plain)
	}
}

// link writes <url|text>, or <url> when the text is the URL.
func (r *mrkdwnWriter) link(dest string, n ast.Node, indent string) {
	var label mrkdwnWriter
	label.src = r.src
	label.inlines(n, indent, true)
	text := strings.ReplaceAll(label.b.String(), "|", "¦")
	u := linkURL(dest)
	if text == "" || text == slackEscape.Replace(dest) {
		r.b.WriteString("<" + u + ">")
		return
	}
	r.b.WriteString("<" + u + "|" + text + ">")
}

// linkURL escapes a URL for inside <…>: &, < and > as everywhere, and
// '|', which would end the URL there.
func linkURL(u string) string {
	return strings.ReplaceAll(slackEscape.Replace(u), "|", "%7C")
}

// unsplittable is what a part must not end inside: a Slack token (a link
// with its label, a mention; every < in mrkdwn opens one) or an entity.
var unsplittable = regexp.MustCompile(`<[^<>]*>|&(?:[A-Za-z]+|#[0-9]+|#[xX][0-9A-Fa-f]+);`)

// within is the start of the span of spans that at falls strictly inside,
// or -1 when at is between spans.
func within(spans [][]int, at int) int {
	for _, sp := range spans {
		if sp[0] >= at {
			break
		}
		if at < sp[1] {
			return sp[0]
		}
	}
	return -1
}

// lastBreak is the last index of sep in cut that is not inside one of
// spans, or -1.
func lastBreak(cut, sep string, spans [][]int) int {
	end := len(cut)
	for {
		i := strings.LastIndex(cut[:end], sep)
		if i < 0 {
			return -1
		}
		s := within(spans, i)
		if s < 0 {
			return i
		}
		end = s
	}
}

// SplitMessage splits text into parts of at most limit characters, at
// paragraph, line or word boundaries where it can, keeping code blocks
// balanced across parts. A part never ends inside a Slack token (a link
// whose label has spaces) or an entity (&amp;), unless one is longer than
// a part.
func SplitMessage(text string, limit int) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	var out []string
	inCode := false
	for len([]rune(text)) > 0 {
		r := []rune(text)
		budget := limit
		if inCode {
			budget -= 4 // room for the reopening fence
		}
		if len(r) <= budget {
			part := text
			if inCode {
				part = "```\n" + part
			}
			out = append(out, part)
			break
		}
		cut := string(r[:budget-4]) // room for a closing fence
		spans := unsplittable.FindAllStringIndex(text, -1)
		at := lastBreak(cut, "\n\n", spans)
		if at < len(cut)/2 {
			at = lastBreak(cut, "\n", spans)
		}
		if at < len(cut)/2 {
			at = lastBreak(cut, " ", spans)
		}
		if at <= 0 {
			at = len(cut)
			if s := within(spans, at); s > 0 {
				at = s
			}
		}
		part := cut[:at]
		text = strings.TrimLeft(text[at:], " \n")
		startedIn := inCode
		if strings.Count(part, "```")%2 == 1 {
			inCode = !inCode
		}
		if startedIn {
			part = "```\n" + part
		}
		if inCode {
			part += "\n```"
		}
		out = append(out, strings.TrimSpace(part))
	}
	return out
}
