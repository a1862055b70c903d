// Package mcp is MCP, both ways, for the tool registry: each server of an
// MCP client configuration file becomes a catalog source mcp:NAME (Source,
// connected lazily, each call bounded), and NewServer offers registered
// tools to other MCP clients over stdio or, with BearerHandler, streamable
// HTTP, acting for an identity that comes from the configuration or the
// bearer token, never from tool arguments.
//
// Its only mnemo import is tools: the registry it adds sources to and the
// tools it serves.
package mcp
