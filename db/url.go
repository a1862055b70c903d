package db

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
)

// URLForm is the shape of a connection string, for messages that ask for one.
const URLForm = "postgres://user:pass@host:5432/db?sslmode=disable"

// CheckURL reports whether pgx accepts url as a connection string, without
// connecting, so that configuration is checked before anything starts. The
// error says why not and never repeats the URL, which may hold a password.
func CheckURL(url string) error {
	if url == "" {
		return errors.New("empty")
	}
	_, err := pgx.ParseConfig(url)
	if err == nil {
		return nil
	}
	// pgconn's message is "cannot parse `URL`: reason"; keep the reason.
	msg := err.Error()
	if _, reason, ok := strings.Cut(msg, "`: "); ok {
		msg = reason
	}
	return errors.New(msg)
}
