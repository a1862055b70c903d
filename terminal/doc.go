// Package terminal is the surface of `mnemo chat`: a Session is one
// conversation in a terminal, its own thread under a local identity, run by
// the same agent.Runner as a Slack turn, with the answer streamed to the
// terminal as it is generated and the turn's steps shown on a status line.
package terminal
