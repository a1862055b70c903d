// Package install owns the app's installations in many workspaces: the
// OAuth v2 install flow (/slack/install, /slack/oauth_redirect), the bot
// tokens it stores sealed with AES-GCM under MNEMO_ENCRYPTION_KEY (Keyring),
// and the resolver that gives each team its own Web API client (Clients).
package install
