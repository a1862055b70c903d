package db

import (
	"context"
	"fmt"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
	"github.com/mnemo-bot/mnemo/detect"
)

// Audit owns admin_audit, the record of admin actions, and the counts
// admins see.
type Audit struct {
	e executor
	q *dbsqlc.Queries
}

// AuditAction is what an admin did, as admin_audit records it.
type AuditAction string

// The admin actions on record.
const (
	AuditForget      AuditAction = "forget"       // a memory archived, target its id
	AuditRestore     AuditAction = "restore"      // a memory restored, target its id
	AuditExport      AuditAction = "export"       // a person's memories exported, target the person
	AuditPurge       AuditAction = "purge"        // a person's personal memories archived, target the person
	AuditLearningOn  AuditAction = "learning on"  // passive learning turned on, target the channel
	AuditLearningOff AuditAction = "learning off" // passive learning turned off, target the channel
	AuditInspect     AuditAction = "inspect"      // a turn inspected with oversight of memories not visible there, target the turn id
	AuditSearch      AuditAction = "search"       // someone else's or a channel's memories listed (the command line, /mnemo memories), target whose
	AuditHistory     AuditAction = "history"      // a memory's history read through oversight (the command line, /mnemo history), target its id
	AuditEraseTeam   AuditAction = "erase team"   // a workspace's data erased, target the team
)

// AuditEntry is one admin action.
type AuditEntry struct {
	Team, ActorID  string
	Action         AuditAction
	Target, Detail string
}

// Record stores one admin action, its target and detail with secrets
// redacted.
func (s Audit) Record(ctx context.Context, e AuditEntry) error {
	if err := s.q.AdminAuditInsert(ctx, s.e, dbsqlc.AdminAuditInsertParams{TeamID: e.Team, ActorID: e.ActorID, Action: string(e.Action), Target: detect.Redact(e.Target), Detail: detect.Redact(e.Detail)}); err != nil {
		return fmt.Errorf("audit: %w", mapErr(err))
	}
	return nil
}

// Stats are a team's counts of memories, writes and turns.
type Stats struct {
	ActiveMemories, ArchivedMemories int64
	ExplicitWrites, PassiveWrites    int64
	Turns, FailedTurns               int64
}

// Stats counts a team's memories, writes and turns.
func (s Audit) Stats(ctx context.Context, team string) (Stats, error) {
	r, err := s.q.StatsForTeam(ctx, s.e, team)
	if err != nil {
		return Stats{}, fmt.Errorf("stats: %w", mapErr(err))
	}
	return Stats(r), nil
}
