package provenance_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/provenance"
)

// A place is public only when Slack says so: without a channel type, a C…
// id may be a private channel (Slack gives new private channels C ids), so
// it is private; only a DM is told by its id.
func TestVisibilityOfFailsClosed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		channelType, id string
		want            provenance.Visibility
	}{
		{"channel", "C0GENERAL", provenance.Public},
		{"group", "C0NEWPRIV", provenance.Private},
		{"group", "G0OLDPRIV", provenance.Private},
		{"mpim", "G0MPIM", provenance.Private},
		{"im", "D0ALICE", provenance.DM},
		{"", "C0UNKNOWN", provenance.Private},
		{"", "G0UNKNOWN", provenance.Private},
		{"", "D0ALICE", provenance.DM},
		{"", "", provenance.Private},
		{"app_home", "D0ALICE", provenance.DM},
	} {
		require.Equal(t, c.want, provenance.VisibilityOf(c.channelType, c.id), "%q %q", c.channelType, c.id)
	}
}
