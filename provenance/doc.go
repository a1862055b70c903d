// Package provenance owns who said what, where, and on whose instruction: the
// actor of a message (a Slack user or a named system actor), its authority
// (an instruction to the bot, or context), the place it was said, and the one
// function that derives the actor from a live Slack event.
package provenance
