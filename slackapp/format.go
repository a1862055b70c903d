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

// slackToken matches what Slack itself reads inside angle brackets:
// mentions, channel links, special mentions and links.
var slackToken = regexp.MustCompile(`<(?:[@#!][^<>\s]+|https?://[^<>\s|]+(?:\|[^<>]*)?)>`)

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
// Slack's own tokens (<@U…>, <#C…|name>, <!here>, <https://…|…>) intact.
func ToMrkdwn(md string) string {
	var tokens []string
	md = slackToken.ReplaceAllStringFunc(md, func(tok string) string {
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
		r.b.WriteString("<" + linkURL(string(n.URL(r.src))) + ">")
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

// SplitMessage splits text into parts of at most limit characters, at
// paragraph, line or word boundaries where it can, keeping code blocks
// balanced across parts.
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
		at := strings.LastIndex(cut, "\n\n")
		if at < len(cut)/2 {
			at = strings.LastIndex(cut, "\n")
		}
		if at < len(cut)/2 {
			at = strings.LastIndex(cut, " ")
		}
		if at <= 0 {
			at = len(cut)
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
