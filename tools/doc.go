// Package tools owns the one tool registry every model run gets its tools
// from (Registry.ForModel) and the deferred catalog behind searchTools and
// executeTool with its search index. A tool the model is told about is a
// tool it can call under that exact name. MCP, both ways, is tools/mcp's:
// it adds servers to a registry as sources and serves registered tools.
//
// Tools are registered into it by the packages that own them; it knows none
// of them. It must not import memory, agent, slackapp, learn, threads, db or
// cmd: its only mnemo imports are llm (tool specs) and provenance (who calls).
package tools
