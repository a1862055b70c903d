package slackapp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/provenance"
)

// The hosts through which people of other organisations are served are
// remembered for their App Home (hostOf), and no more than maxHosts of
// them: one remembered last is there; a host's own member is not
// remembered at all.
func TestDirectoryRemembersAtMostMaxHostsOfExternalMembers(t *testing.T) {
	t.Parallel()
	d := NewTeamDirectory(nil, nil)
	d.served("T0HOST", provenance.Actor{Team: "T0HOST", ID: "U0MEMBER"})
	for i := range maxHosts + 5 {
		d.served("T0HOST", provenance.Actor{Team: "T0GUESTS", ID: fmt.Sprintf("U%07d", i)})
	}
	require.Equal(t, maxHosts, d.hosts.Len())
	_, ok := d.hostOf("T0GUESTS", fmt.Sprintf("U%07d", 0))
	require.False(t, ok, "the one placed longest ago is forgotten")
	host, ok := d.hostOf("T0GUESTS", fmt.Sprintf("U%07d", maxHosts+4))
	require.True(t, ok, "the one remembered last")
	require.Equal(t, "T0HOST", host)
	_, ok = d.hostOf("T0HOST", "U0MEMBER")
	require.False(t, ok, "a host's own member has no other host")
}
