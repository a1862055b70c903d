package slackapp

import (
	"encoding/json"
	"testing"

	"github.com/slack-go/slack/slackevents"
	"github.com/stretchr/testify/require"
)

// TestRouteOfPrefersTheAuthorizationOverTheEnvelope: routeOf reads an
// event_callback as slack-go parses it, with the envelope's context read
// as each transport reads it.
func TestRouteOfPrefersTheAuthorizationOverTheEnvelope(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, payload    string
		team, enterprise string
	}{
		{"a workspace's own installation",
			`{"team_id":"T0A","authorizations":[{"team_id":"T0A","user_id":"U0B","is_bot":true}]}`, "T0A", ""},
		{"a Slack Connect speaker's envelope, for the host's installation",
			`{"team_id":"T0EXT","enterprise_id":"E0EXT","context_team_id":"T0A","authorizations":[{"enterprise_id":null,"team_id":"T0A","is_bot":true}]}`, "T0A", ""},
		{"an org-wide installation, through one of its workspaces",
			`{"team_id":"T0EXT","enterprise_id":"E0EXT","context_team_id":"T0ORGA","context_enterprise_id":"E0ORG","authorizations":[{"enterprise_id":"E0ORG","team_id":null,"is_bot":true,"is_enterprise_install":true}]}`, "T0ORGA", "E0ORG"},
		{"an org-wide installation, without a context",
			`{"team_id":"T0ORGB","enterprise_id":"E0ORG","authorizations":[{"enterprise_id":"E0ORG","team_id":null,"is_bot":true,"is_enterprise_install":true}]}`, "T0ORGB", "E0ORG"},
		{"a workspace of a Grid organisation, installed on its own",
			`{"team_id":"T0ORGA","enterprise_id":"E0ORG","authorizations":[{"enterprise_id":"E0ORG","team_id":"T0ORGA","is_bot":true}]}`, "T0ORGA", "E0ORG"},
		{"an org-wide installation, whose context names no workspace",
			`{"team_id":"T0ORGB","enterprise_id":"E0ORG","context_team_id":"E0ORG","authorizations":[{"enterprise_id":"E0ORG","team_id":null,"is_bot":true,"is_enterprise_install":true}]}`, "T0ORGB", "E0ORG"},
		{"no authorizations",
			`{"team_id":"T0A","enterprise_id":"E0ORG"}`, "T0A", "E0ORG"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var outer map[string]any
			require.NoError(t, json.Unmarshal([]byte(c.payload), &outer))
			outer["type"], outer["api_app_id"], outer["event_id"] = "event_callback", "A0MNEMO", "Ev1"
			outer["event"] = map[string]any{"type": "app_mention", "user": "U0X", "text": "hi", "ts": "1800000000.000100", "channel": "C0SHARED"}
			body, err := json.Marshal(outer)
			require.NoError(t, err)
			e, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
			require.NoError(t, err)
			var ctx envelopeContext
			require.NoError(t, json.Unmarshal(body, &ctx))
			team, enterprise := routeOf(e, ctx)
			require.Equal(t, []string{c.team, c.enterprise}, []string{team, enterprise})
		})
	}
}
