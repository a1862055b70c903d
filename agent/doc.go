// Package agent owns one turn of conversation: recall what is relevant, give
// the model the thread so far and the registry's tools, run the tool-use loop
// within a step limit and a deadline, and return the reply. See docs/turn.md.
package agent
