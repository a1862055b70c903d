// Package learn owns passive learning: after a turn is delivered, a durable
// River job asks the model what durable memories the turn's transcript holds
// (Extract), and Route decides deterministically which may be stored and for
// whom, before memory.Store reviews and stores them. See docs/learning.md.
//
// It must not import agent, slackapp or a command; it talks to the driver
// only for River, which shares mnemo's database.
package learn
