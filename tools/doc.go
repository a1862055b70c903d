// Package tools owns the one tool registry every model run gets its tools
// from, the deferred catalog behind searchTools and executeTool (grouped by
// source), and MCP servers as sources. A tool the model is told about is a
// tool it can call under that exact name.
package tools
