package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// A delivery that names no workspace is served by no installation: an
// org-wide installation's row has no team either, and answered for it
// with some organisation's token.
func TestNoTeamFindsNoInstallation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t).DB
	sealed := db.Sealed{Ciphertext: []byte{1}, Nonce: []byte{2}, KeyID: "k1"}
	require.NoError(t, d.Installations().Save(ctx, db.Installation{Enterprise: "E0ORG", Token: sealed, BotUserID: "U0BOT", InstallerID: "U0ALICE"}))

	got, err := d.Installations().Find(ctx, "T0MEMBER", "E0ORG")
	require.NoError(t, err, "the control: a workspace of the organisation is served by it")
	require.Equal(t, "E0ORG", got.Enterprise)

	for _, enterprise := range []string{"", "E0ORG"} {
		_, err = d.Installations().Find(ctx, "", enterprise)
		require.ErrorIs(t, err, db.ErrNotFound, "enterprise %q", enterprise)
	}
}
