package db

import (
	"context"
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

// Find returns the installation that serves a team: its own, else (with an
// enterprise) its organisation's. ErrNotFound when there is none.
func (s Installations) Find(ctx context.Context, team, enterprise string) (Installation, error) {
	var (
		r   dbsqlc.Installation
		err error
	)
	if enterprise == "" {
		r, err = s.q.InstallationFindTeam(ctx, s.e, team)
	} else {
		r, err = s.q.InstallationFind(ctx, s.e, dbsqlc.InstallationFindParams{TeamID: team, EnterpriseID: enterprise})
	}
	if err != nil {
		return Installation{}, fmt.Errorf("installation of %s: %w", team, mapErr(err))
	}
	return installationOf(r), nil
}

// Disable stops an installation at once (app_uninstalled, tokens_revoked)
// and says whether it was active.
func (s Installations) Disable(ctx context.Context, team, why string) (bool, error) {
	n, err := s.q.InstallationDisable(ctx, s.e, dbsqlc.InstallationDisableParams{TeamID: team, Why: why})
	if err != nil {
		return false, fmt.Errorf("disable installation: %w", mapErr(err))
	}
	return n > 0, nil
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

// DisabledBefore returns up to max teams disabled before a time.
func (s Installations) DisabledBefore(ctx context.Context, before time.Time, max int) ([]string, error) {
	teams, err := s.q.InstallationDisabledBefore(ctx, s.e, dbsqlc.InstallationDisabledBeforeParams{Before: before, MaxRows: int32(max)})
	if err != nil {
		return nil, fmt.Errorf("uninstalled teams: %w", mapErr(err))
	}
	return teams, nil
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
