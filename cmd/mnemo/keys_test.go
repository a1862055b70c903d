package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// mnemo keys rotate seals every token again under the current key, so the
// old key can be dropped: afterwards the tokens open with the new key
// alone, as the same tokens.
func TestKeysRotateResealsEveryTokenUnderTheCurrentKey(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	key := func() string {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		require.NoError(t, err)
		return base64.StdEncoding.EncodeToString(b)
	}
	oldKey, newKey := "old:"+key(), "new:"+key()
	old, err := install.ParseKeyring(oldKey)
	require.NoError(t, err)
	for _, team := range []string{"T0ONE", "T0TWO"} {
		s, err := old.Seal(team, "xoxb-token-of-"+team)
		require.NoError(t, err)
		require.NoError(t, d.DB.Installations().Save(ctx, db.Installation{Team: team, Token: s, BotUserID: "UB", InstallerID: "U1"}))
	}
	env := map[string]string{"DATABASE_URL": d.URL, "MNEMO_ENCRYPTION_KEY": newKey + "," + oldKey}
	var out, errOut strings.Builder
	require.Equal(t, 0, run(ctx, []string{"keys", "rotate"}, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut), errOut.String())
	require.Contains(t, out.String(), `2 tokens sealed again under key "new"`)

	onlyNew, err := install.ParseKeyring(newKey)
	require.NoError(t, err)
	all, err := d.DB.Installations().List(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)
	for _, inst := range all {
		require.Equal(t, "new", inst.Token.KeyID)
		tok, err := onlyNew.Open(inst.Team, inst.Token)
		require.NoError(t, err)
		require.Equal(t, "xoxb-token-of-"+inst.Team, tok)
		_, err = old.Open(inst.Team, inst.Token)
		require.Error(t, err, "the old key no longer opens it")
	}
	// Again: nothing left to do.
	out.Reset()
	require.Equal(t, 0, run(ctx, []string{"keys", "rotate"}, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "0 tokens sealed again")
	require.Contains(t, out.String(), "2 already were")
}
