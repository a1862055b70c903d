package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// Issue 20, defect 4: admin_audit kept whatever text it was given. A secret
// in an entry's target or detail is redacted before the write; the rest is
// kept.
func TestAuditTextIsRedactedBeforeItIsStored(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	require.NoError(t, d.DB.Audit().Record(ctx, db.AuditEntry{Team: "T1", ActorID: "UADMIN", Action: "forget", Target: "abcd1234",
		Detail: "The deploy key is glpat-AbCdEfGhIjKlMnOpQrSt for the runner"}))
	var detail string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT detail FROM admin_audit WHERE team_id = 'T1' AND target = 'abcd1234'`).Scan(&detail))
	require.Equal(t, "The deploy key is "+detect.RedactedMarker+" for the runner", detail)
}
