// Package usage is what a turn costs and may spend: it records every model
// call's tokens with the turn it was made for (db.Usage), enforces the
// budgets (per person and per channel per UTC day, per turn in model calls
// and tool steps) before each call, counted across replicas in the
// database, turns tokens into an estimated cost with optional prices, and
// writes the usage report that `/mnemo stats` and `mnemo stats` show.
//
// A turn's scope (who, where, which turn) rides in its context, set by the
// runner with Begin; a model call outside any turn is neither recorded nor
// limited. usage imports db and llm only.
package usage
