package tools

import (
	"fmt"

	"github.com/rs/zerolog"
)

// AddMCPServers adds each server of an MCP client configuration file as a source.
func AddMCPServers(reg *Registry, path string, log zerolog.Logger) (func(), error) {
	return func() {}, fmt.Errorf("mcp: not yet available")
}
