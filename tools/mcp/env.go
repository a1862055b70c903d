package mcp

import (
	"context"
	"maps"
	"os/exec"
	"runtime"
	"slices"
	"strings"
)

// inheritedEnv names the only variables a stdio server inherits from
// mnemo's environment: where to find programs, whose home and locale, which
// time zone, where temporary and cache files go, which CA certificates to
// trust, and what Windows needs to start a process. None of them carries a
// credential. Everything else in mnemo's environment (SLACK_BOT_TOKEN,
// MNEMO_ENCRYPTION_KEY, DATABASE_URL, the model's API key, a proxy URL that
// may hold a password) stays out: a server that needs a value gets it from
// its "env" in the configuration, e.g. "GITHUB_TOKEN": "${GITHUB_TOKEN}".
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
}

// childEnv is a stdio server's whole environment: the variables of parent
// (KEY=VALUE, as os.Environ gives them) that inheritedEnv names or that
// start with LC_, then the server's configured env, which wins. Never nil:
// exec reads a nil Env as "inherit everything".
func childEnv(parent []string, configured map[string]string) []string {
	env := []string{}
	for _, kv := range parent {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if _, mine := configured[k]; mine {
			continue
		}
		name := k
		if runtime.GOOS == "windows" {
			name = strings.ToUpper(k)
		}
		if slices.Contains(inheritedEnv, name) || strings.HasPrefix(name, "LC_") {
			env = append(env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(configured)) {
		env = append(env, k+"="+configured[k])
	}
	return env
}

// stdioCommand starts a stdio server with exactly the environment it is
// given, where mcp-go's default appends it to all of mnemo's.
func stdioCommand(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Env = env
	return cmd, nil
}
