// Package scripted is a model for tests that knows nothing of mnemo's tool
// names: it reads them from the tool list and the tool results, the way a
// real model must. It remembers, lists, searches and forgets when asked,
// follows up on its own offers, and otherwise answers with what its prompt
// held. It also answers the memory review, the update decision and passive
// extraction with simple, stated rules (judge.go, extract.go), so the evals
// exercise the product's handling of each answer.
package scripted
