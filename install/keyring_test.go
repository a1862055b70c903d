package install_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

func newKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(b)
}

func TestKeyringParsesCurrentAndOlderKeys(t *testing.T) {
	t.Parallel()
	k1, k2 := newKey(t), newKey(t)
	for _, c := range []struct {
		name, in, current, problem string
	}{
		{"one key without an id", k1, "k1", ""},
		{"current first", "new:" + k2 + ",old:" + k1, "new", ""},
		{"empty", "", "", "no key"},
		{"short key", "a:" + base64.StdEncoding.EncodeToString([]byte("short")), "", "not 32 bytes"},
		{"not base64", "a:%%%", "", "not 32 bytes"},
		{"second without id", k1 + "," + k2, "", "has no id"},
		{"duplicate id", "a:" + k1 + ",a:" + k2, "", "twice"},
		{"bad id", "a b:" + k1, "", "key id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := install.ParseKeyring(c.in)
			if c.problem != "" {
				require.ErrorContains(t, err, c.problem)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.current, k.Current())
		})
	}
}

// A sealed token opens only with its key and as its own team's; an older
// key still opens what it sealed, which is what lets a key rotate.
func TestSealedTokenOpensOnlyWithItsKeyAndTeam(t *testing.T) {
	t.Parallel()
	old, now := newKey(t), newKey(t)
	before, err := install.ParseKeyring("old:" + old)
	require.NoError(t, err)
	s, err := before.Seal("T1", "xoxb-secret-token")
	require.NoError(t, err)
	require.Equal(t, "old", s.KeyID)
	require.False(t, bytes.Contains(s.Ciphertext, []byte("xoxb-secret-token")))

	got, err := before.Open("T1", s)
	require.NoError(t, err, "positive control: it opens")
	require.Equal(t, "xoxb-secret-token", got)

	_, err = before.Open("T2", s)
	require.Error(t, err, "another team's row can't use it (the team is the additional data)")

	wrong, err := install.ParseKeyring("old:" + newKey(t))
	require.NoError(t, err)
	_, err = wrong.Open("T1", s)
	require.Error(t, err, "a wrong key with the right id does not open it")

	rotated, err := install.ParseKeyring("new:" + now + ",old:" + old)
	require.NoError(t, err)
	got, err = rotated.Open("T1", s)
	require.NoError(t, err, "the old key, kept after the current, still opens it")
	require.Equal(t, "xoxb-secret-token", got)
	s2, err := rotated.Seal("T1", got)
	require.NoError(t, err)
	require.Equal(t, "new", s2.KeyID)

	dropped, err := install.ParseKeyring("new:" + now)
	require.NoError(t, err)
	_, err = dropped.Open("T1", s)
	require.ErrorIs(t, err, install.ErrKeyUnknown)
}

// Issue 23: "a token is unreadable in the database without the key". The
// row as stored holds no plaintext of the token, whatever column is read;
// reading it back through the store and opening it with the key gives the
// token (the positive control), and any other key fails.
func TestTokenIsUnreadableInTheDatabaseWithoutTheKey(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	keys, err := install.ParseKeyring("k1:" + newKey(t))
	require.NoError(t, err)
	const token = "xoxb-1234-5678-SuperSecretBotToken"
	sealed, err := keys.Seal("T0ONE", token)
	require.NoError(t, err)
	require.NoError(t, d.DB.Installations().Save(ctx, db.Installation{Team: "T0ONE", Token: sealed, BotUserID: "U0BOT", InstallerID: "U0ALICE"}))

	// Every column of the row, as text and as bytes.
	var row string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT i::text FROM installations i WHERE team_id = 'T0ONE'`).Scan(&row))
	require.Contains(t, row, "U0BOT", "positive control: the raw read sees the row")
	require.NotContains(t, row, token)
	require.NotContains(t, row, "SuperSecret")
	var ct []byte
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT token_ciphertext FROM installations WHERE team_id = 'T0ONE'`).Scan(&ct))
	require.False(t, bytes.Contains(ct, []byte("SuperSecret")))

	inst, err := d.DB.Installations().Find(ctx, "T0ONE", "")
	require.NoError(t, err)
	got, err := keys.Open(inst.Team, inst.Token)
	require.NoError(t, err)
	require.Equal(t, token, got)

	other, err := install.ParseKeyring("k1:" + newKey(t))
	require.NoError(t, err)
	_, err = other.Open(inst.Team, inst.Token)
	require.Error(t, err, "without the key the ciphertext does not open")
}
