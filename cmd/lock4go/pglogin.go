package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lock4go/lock4go/executor"
)

// postgresLoginErr explains a login the server refused (SQLSTATE class 28:
// no such role, a wrong password, no pg_hba.conf entry; 3D000: no such
// database): which user and database were tried and where they came from,
// and the form that names them. It returns nil for any other error. Only
// the server's answer is kept: with the default sslmode=prefer, pgx first
// tries TLS, and a server without TLS refusing it is not the problem.
func postgresLoginErr(v, addr string, cfg *pgconn.Config, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || !(strings.HasPrefix(pe.Code, "28") || pe.Code == "3D000") {
		return nil
	}
	db := cfg.Database
	if db == "" {
		db = cfg.User // the server's default
	}
	return fmt.Errorf("postgres %s: %w: %s (SQLSTATE %s), connecting as user %q (%s) to database %q; name them: --postgres USER@%s/DB, or postgres://USER:PASSWORD@%s/DB?sslmode=...",
		addr, executor.ErrBackend, pe.Message, pe.Code, cfg.User, postgresUserSource(v), db, addr, addr)
}

// postgresUserSource says where the user of a --postgres value comes from:
// the value itself, PGUSER, or the operating system's user, as for psql.
func postgresUserSource(v string) string {
	switch u, err := url.Parse(postgresURL(v)); {
	case err == nil && u.User != nil && u.User.Username() != "":
		return "from --postgres"
	case keywordValue.MatchString(v) && strings.Contains(v, "user="):
		return "from --postgres"
	case os.Getenv("PGUSER") != "":
		return "from PGUSER: --postgres names no user"
	}
	return "the operating system's user: --postgres names no user, PGUSER is not set"
}
