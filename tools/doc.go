// Package tools owns the one tool registry every model run gets its tools
// from (Registry.ForModel), the deferred catalog behind searchTools and
// executeTool with its search index, MCP servers as catalog sources
// (MCPSource, configured by an MCP client config file), and the MCP server
// that offers registered tools to other clients (NewMCPServer,
// BearerHandler). A tool the model is told about is a tool it can call under
// that exact name.
//
// Tools are registered into it by the packages that own them; it knows none
// of them. It must not import memory, agent, slackapp, learn, threads, db or
// cmd: its only mnemo imports are llm (tool specs) and provenance (who calls).
package tools
