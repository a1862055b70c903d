package slackapp

import (
	"regexp"
	"strings"
)

// MaxPostChars keeps each posted part well under Slack's 40,000 character
// limit and its 4,000 character guidance for readable messages.
const MaxPostChars = 3500

var (
	mdBold    = regexp.MustCompile(`\*\*(.+?)\*\*`)
	mdBoldU   = regexp.MustCompile(`__(.+?)__`)
	mdItalic  = regexp.MustCompile(`(^|[^*])\*([^*\s][^*]*?)\*([^*]|$)`)
	mdStrike  = regexp.MustCompile(`~~(.+?)~~`)
	mdLink    = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*$`)
	mdBullet  = regexp.MustCompile(`(?m)^(\s*)[-*+]\s+`)
)

// slackToken matches what Slack itself reads inside angle brackets:
// mentions, channel links, special mentions and links.
var slackToken = regexp.MustCompile(`<(?:[@#!][^<>\s]+|https?://[^<>\s]+)>`)

var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escapeText escapes &, < and > as Slack requires, keeping Slack's own
// tokens (<@U…>, <#C…>, <!here>, <https://…|…>) intact.
func escapeText(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range slackToken.FindAllStringIndex(s, -1) {
		b.WriteString(slackEscape.Replace(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(slackEscape.Replace(s[last:]))
	return b.String()
}

// ToMrkdwn converts the model's Markdown to Slack mrkdwn, escaping &, < and
// > as Slack requires. Code spans and blocks are otherwise left as they are.
func ToMrkdwn(md string) string {
	md = escapeText(md)
	parts := strings.Split(md, "```")
	for i := range parts {
		if i%2 == 1 {
			continue // inside a code block
		}
		segs := strings.Split(parts[i], "`")
		for j := range segs {
			if j%2 == 1 {
				continue
			}
			s := segs[j]
			s = mdHeading.ReplaceAllString(s, "**$1**")
			s = mdBullet.ReplaceAllString(s, "$1• ")
			s = mdItalic.ReplaceAllString(s, "${1}_${2}_${3}")
			s = mdBold.ReplaceAllString(s, "*$1*")
			s = mdBoldU.ReplaceAllString(s, "*$1*")
			s = mdStrike.ReplaceAllString(s, "~$1~")
			s = mdLink.ReplaceAllString(s, "<$2|$1>")
			segs[j] = s
		}
		parts[i] = strings.Join(segs, "`")
	}
	return strings.Join(parts, "```")
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
