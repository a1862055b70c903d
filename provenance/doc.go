// Package provenance is the vocabulary of who said what, where, and on whose
// instruction: the actor of a message (a Slack user, a bot or a named system
// actor), its authority (an instruction to the bot, or context), the place it
// was said and who can see it, and how a memory came to be written.
//
// It holds types only. It must not import any other mnemo package, nor a
// Slack or database client: the live-event lookup that yields an Actor is
// slackapp's (Directory.ActorFromEvent).
package provenance
