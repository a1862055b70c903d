package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Installations owns installations: the app's install in each workspace
// (or organisation), with its bot token sealed. db stores the sealed token
// as it is given; sealing and opening it is the install package's.
type Installations struct {
	e executor
	q *dbsqlc.Queries
}

func (d *DB) Installations() Installations { return Installations{d.pool, d.q} }

// Sealed is a token encrypted at rest: the ciphertext, its nonce and the id
// of the key that sealed it.
type Sealed struct {
	Ciphertext, Nonce []byte
	KeyID             string
}

// Installation is one install of the app.
type Installation struct {
	Team, Enterprise string
	Token            Sealed
	BotUserID, BotID string
	Scopes           string
	InstallerID      string
	InstalledAt      time.Time
	// DisabledAt is set once the app was uninstalled or its tokens
	// revoked; DisabledWhy says which.
	DisabledAt  *time.Time
	DisabledWhy string
}

// Active reports whether the installation may be used.
func (i Installation) Active() bool { return i.DisabledAt == nil }

func installationOf(r dbsqlc.Installation) Installation {
	return Installation{
		Team: r.TeamID, Enterprise: r.EnterpriseID,
		Token:     Sealed{Ciphertext: r.TokenCiphertext, Nonce: r.TokenNonce, KeyID: r.TokenKeyID},
		BotUserID: r.BotUserID, BotID: r.BotID, Scopes: r.Scopes, InstallerID: r.InstallerID,
		InstalledAt: r.InstalledAt, DisabledAt: r.DisabledAt, DisabledWhy: r.DisabledWhy,
	}
}

// Save stores an installation; a reinstall replaces the token and enables
// it again.
func (s Installations) Save(ctx context.Context, i Installation) error {
	if i.Team == "" && i.Enterprise == "" {
		return fmt.Errorf("installation: a team or an enterprise is needed")
	}
	err := s.q.InstallationUpsert(ctx, s.e, dbsqlc.InstallationUpsertParams{
		TeamID: i.Team, EnterpriseID: i.Enterprise, TokenCiphertext: i.Token.Ciphertext, TokenNonce: i.Token.Nonce,
		TokenKeyID: i.Token.KeyID, BotUserID: i.BotUserID, BotID: i.BotID, Scopes: i.Scopes, InstallerID: i.InstallerID,
	})
	if err != nil {
		return fmt.Errorf("save installation: %w", mapErr(err))
	}
	return nil
}

// Find returns the installation that serves a team: its own, else its
// organisation's org-wide one (enterprise's, or, when enterprise is empty,
// the one ServeTeam last recorded for it); an active one first.
// ErrNotFound when there is none, and when enterprise names another
// organisation than the one recorded for the team while that one's
// org-wide installation is active: a workspace is served by its own
// organisation's token only.
func (s Installations) Find(ctx context.Context, team, enterprise string) (Installation, error) {
	if team == "" {
		// No workspace, no tenant: an org-wide installation's row has no
		// team either, and must not answer for one.
		return Installation{}, fmt.Errorf("installation of no team: %w", ErrNotFound)
	}
	r, err := s.q.InstallationFind(ctx, s.e, dbsqlc.InstallationFindParams{TeamID: team, EnterpriseID: enterprise})
	if err != nil {
		return Installation{}, fmt.Errorf("installation of %s: %w", team, mapErr(err))
	}
	return installationOf(r), nil
}

// ErrServedByAnother is a workspace recorded as served by another
// organisation, whose org-wide installation is active: it is not moved to
// the one a delivery named.
var ErrServedByAnother = errors.New("the workspace is served by another organisation's installation")

// ServeTeam records that a workspace is served by its organisation's
// org-wide installation, so that Find finds it by the team alone. A
// workspace already recorded as another organisation's moves only when
// that organisation's org-wide installation is disabled or gone; else
// ServeTeam changes nothing and returns ErrServedByAnother. The check and
// the write are one statement, on the locked row.
func (s Installations) ServeTeam(ctx context.Context, team, enterprise string) error {
	if team == "" || enterprise == "" {
		return fmt.Errorf("serve team: a team and its enterprise are needed")
	}
	// Twice at most: no row is one written by a concurrent transaction
	// after this statement's snapshot, which the next one reads.
	for range 2 {
		recorded, err := s.q.InstallationServeTeam(ctx, s.e, dbsqlc.InstallationServeTeamParams{TeamID: team, EnterpriseID: enterprise})
		if err != nil {
			return fmt.Errorf("serve team: %w", mapErr(err))
		}
		if len(recorded) == 0 {
			continue
		}
		if recorded[0] != enterprise {
			return fmt.Errorf("serve team %s in %s: recorded in %s: %w", team, enterprise, recorded[0], ErrServedByAnother)
		}
		return nil
	}
	return fmt.Errorf("serve team %s in %s: recorded concurrently: %w", team, enterprise, ErrServedByAnother)
}

// TeamsOf returns the workspaces recorded as an organisation's: those its
// installation serves, and those it no longer does (OrgTeams says which).
func (s Installations) TeamsOf(ctx context.Context, enterprise string) ([]string, error) {
	all, err := s.OrgTeams(ctx, enterprise)
	if err != nil {
		return nil, err
	}
	teams := make([]string, 0, len(all))
	for _, t := range all {
		teams = append(teams, t.Team)
	}
	return teams, nil
}

// OrgTeam is a workspace recorded as an organisation's.
type OrgTeam struct {
	Team string
	// RevokedAt is when the organisation's installation stopped serving
	// it (team_access_revoked); nil while it serves it.
	RevokedAt *time.Time
}

// OrgTeams returns the workspaces recorded as an organisation's, by id,
// each with whether its installation still serves it.
func (s Installations) OrgTeams(ctx context.Context, enterprise string) ([]OrgTeam, error) {
	rows, err := s.q.InstallationTeamsOf(ctx, s.e, enterprise)
	if err != nil {
		return nil, fmt.Errorf("teams of %s: %w", enterprise, mapErr(err))
	}
	out := make([]OrgTeam, 0, len(rows))
	for _, r := range rows {
		out = append(out, OrgTeam{Team: r.TeamID, RevokedAt: r.RevokedAt})
	}
	return out, nil
}

// FindOrg returns an organisation's own (org-wide) installation, active
// or not; ErrNotFound when it has none.
func (s Installations) FindOrg(ctx context.Context, enterprise string) (Installation, error) {
	r, err := s.q.InstallationFindOrg(ctx, s.e, enterprise)
	if err != nil {
		return Installation{}, fmt.Errorf("installation of organisation %s: %w", enterprise, mapErr(err))
	}
	return installationOf(r), nil
}

// Uninstall is an event that disables an installation: app_uninstalled,
// or tokens_revoked for the bot.
type Uninstall struct {
	// Team is the workspace; empty for an organisation's own (org-wide)
	// installation, named by Enterprise.
	Team, Enterprise string
	Why              string
	// EventID is Slack's event_id: a retry of an event already taken in
	// does nothing.
	EventID string
	// Sent is the event's event_time: an installation made after it was
	// sent (a reinstall) is not disabled by it.
	Sent time.Time
}

// Uninstalled is what an Uninstall did.
type Uninstalled struct {
	// Duplicate: the event was taken in before; nothing was done.
	Duplicate bool
	// Disabled: an active installation was disabled.
	Disabled bool
	// Newer: an active installation made after the event was sent, which
	// it left alone.
	Newer bool
}

// Disable stops an installation at once, once per event (see Uninstall).
func (s Installations) Disable(ctx context.Context, u Uninstall) (Uninstalled, error) {
	if u.EventID == "" || (u.Team == "" && u.Enterprise == "") {
		return Uninstalled{}, fmt.Errorf("disable installation: an event id and a team or enterprise are needed")
	}
	// event_time has whole seconds: the second it names is the event's.
	r, err := s.q.InstallationDisable(ctx, s.e, dbsqlc.InstallationDisableParams{
		TeamID: u.Team, EnterpriseID: u.Enterprise, Before: u.Sent.Truncate(time.Second).Add(time.Second), EventID: u.EventID, Why: u.Why,
	})
	if err != nil {
		return Uninstalled{}, fmt.Errorf("disable installation: %w", mapErr(err))
	}
	return Uninstalled{Duplicate: r.Fresh == 0, Disabled: r.Disabled > 0, Newer: r.Newer > 0}, nil
}

// TeamAccess is an event that changes which workspaces of an
// organisation its org-wide installation serves: team_access_revoked
// (Revoked), when an org admin removes the app from them, or
// team_access_granted, when one adds it again.
type TeamAccess struct {
	Enterprise string
	Teams      []string
	Revoked    bool
	// EventID is Slack's event_id: a retry of an event already taken in
	// does nothing.
	EventID string
	// Sent is the event's event_time: a workspace that an event sent
	// after it changed already is left as that one left it.
	Sent time.Time
}

// AccessChanged is what a TeamAccess did.
type AccessChanged struct {
	// Duplicate: the event was taken in before; nothing was done.
	Duplicate bool
	// Changed is how many of the organisation's workspaces it changed.
	Changed int
	// Newer is how many a newer event had changed, which it left alone.
	Newer int
	// Tied are the workspaces an event of the other kind changed in the
	// same second: they are left revoked until SettleTeamAccess records
	// which came last.
	Tied []string
}

// ChangeTeamAccess records, once per event, that an organisation's
// org-wide installation stopped or started again serving some of its
// workspaces (see TeamAccess). A workspace it stopped serving is served by
// it no more (Find finds none), and comes due for erasure like an
// uninstalled one (DisabledBefore). Only workspaces recorded as the
// organisation's change: one never served has nothing to stop.
//
// event_time has whole seconds, and Slack does not promise to deliver
// events in order: of a revocation and a grant sent in the same second,
// either may arrive last. Such a tie is never settled by arrival. The
// workspace is left revoked, the safe side (nothing is read or written
// for it), and is reported in Tied, for the caller to ask Slack which
// came last and record it with SettleTeamAccess.
func (s Installations) ChangeTeamAccess(ctx context.Context, a TeamAccess) (AccessChanged, error) {
	if a.EventID == "" || a.Enterprise == "" {
		return AccessChanged{}, fmt.Errorf("team access: an event id and an enterprise are needed")
	}
	r, err := s.q.InstallationTeamAccess(ctx, s.e, dbsqlc.InstallationTeamAccessParams{
		EnterpriseID: a.Enterprise, TeamIds: a.Teams, Sent: a.Sent.Truncate(time.Second), EventID: a.EventID, Revoked: a.Revoked,
	})
	if err != nil {
		return AccessChanged{}, fmt.Errorf("team access: %w", mapErr(err))
	}
	did := AccessChanged{Duplicate: r.Fresh == 0, Changed: int(r.Changed), Newer: int(r.Newer)}
	if len(r.Tied) > 0 {
		did.Tied = r.Tied
	}
	return did, nil
}

// SettleTeamAccess records Slack's answer to a tie (AccessChanged.Tied)
// for the events sent in the second sent: of the tied workspaces, those
// in served are served by the organisation's installation again, the
// others stay revoked. A workspace that an event sent later changed
// since is left as that one left it. It returns the workspaces it
// settled, each with whether it is served.
func (s Installations) SettleTeamAccess(ctx context.Context, enterprise string, tied, served []string, sent time.Time) (map[string]bool, error) {
	rows, err := s.q.InstallationTeamAccessSettle(ctx, s.e, dbsqlc.InstallationTeamAccessSettleParams{
		EnterpriseID: enterprise, TeamIds: tied, Served: served, Sent: sent.Truncate(time.Second),
	})
	if err != nil {
		return nil, fmt.Errorf("settle team access: %w", mapErr(err))
	}
	settled := make(map[string]bool, len(rows))
	for _, r := range rows {
		settled[r.TeamID] = r.Served
	}
	return settled, nil
}

// List returns every installation.
func (s Installations) List(ctx context.Context) ([]Installation, error) {
	rows, err := s.q.InstallationList(ctx, s.e)
	if err != nil {
		return nil, fmt.Errorf("list installations: %w", mapErr(err))
	}
	out := make([]Installation, 0, len(rows))
	for _, r := range rows {
		out = append(out, installationOf(r))
	}
	return out, nil
}

// Reseal replaces an installation's sealed token, if it still is old (a
// reinstall meanwhile wins), and says whether it did.
func (s Installations) Reseal(ctx context.Context, i Installation, old, now Sealed) (bool, error) {
	n, err := s.q.InstallationReseal(ctx, s.e, dbsqlc.InstallationResealParams{
		TeamID: i.Team, EnterpriseID: i.Enterprise, TokenCiphertext: now.Ciphertext, TokenNonce: now.Nonce, TokenKeyID: now.KeyID,
		OldKeyID: old.KeyID, OldNonce: old.Nonce,
	})
	if err != nil {
		return false, fmt.Errorf("reseal installation: %w", mapErr(err))
	}
	return n > 0, nil
}

// DisabledBefore returns up to max teams disabled before a time: their own
// installation, or their organisation's, was disabled then, or that one
// stopped serving them (ChangeTeamAccess); none with an active
// installation of its own.
func (s Installations) DisabledBefore(ctx context.Context, before time.Time, max int) ([]string, error) {
	teams, err := s.q.InstallationDisabledBefore(ctx, s.e, dbsqlc.InstallationDisabledBeforeParams{Before: before, MaxRows: int32(max)})
	if err != nil {
		return nil, fmt.Errorf("uninstalled teams: %w", mapErr(err))
	}
	return teams, nil
}

// OrgsErasable returns up to max organisations uninstalled before a time
// whose workspaces' data has been erased: EraseOrganisation finishes them.
func (s Installations) OrgsErasable(ctx context.Context, before time.Time, max int) ([]string, error) {
	orgs, err := s.q.InstallationOrgsErasable(ctx, s.e, dbsqlc.InstallationOrgsErasableParams{Before: before, MaxRows: int32(max)})
	if err != nil {
		return nil, fmt.Errorf("uninstalled organisations: %w", mapErr(err))
	}
	return orgs, nil
}

// SpendOAuthState records an install state as used, until it expires, and
// reports whether this was its first use. nonceHash names the state (a
// hash of its nonce, never the nonce itself).
func (s Installations) SpendOAuthState(ctx context.Context, nonceHash []byte, expires time.Time) (bool, error) {
	n, err := s.q.OAuthStateSpend(ctx, s.e, dbsqlc.OAuthStateSpendParams{NonceHash: nonceHash, ExpiresAt: expires})
	if err != nil {
		return false, fmt.Errorf("spend oauth state: %w", mapErr(err))
	}
	return n == 1, nil
}
