// Package learn owns passive learning: after a turn is delivered, a durable
// River job asks the model what durable memories the turn's transcript holds,
// and memory.Route decides deterministically which may be stored and for
// whom. See docs/learning.md.
package learn
