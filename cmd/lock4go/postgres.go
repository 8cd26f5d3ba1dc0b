package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	pgexec "github.com/lock4go/lock4go/executors/postgres"
)

// dialPostgres connects to --postgres and checks that it answers a query,
// then that the role may use what Migrate created for --postgres-table and
// --postgres-schema (postgres.Check): a missing schema, object or grant
// stops the tool with what to run. The tool never creates anything.
func dialPostgres(ctx context.Context, c *connFlags) (*backend, error) {
	cfg, err := pgxpool.ParseConfig(postgresURL(c.postgres))
	if err != nil {
		return nil, usagef("--postgres: %v", err)
	}
	cfg.MaxConns = 2
	if c.wantsTLS() {
		// The TLS flags override what the connection string says.
		if cfg.ConnConfig.TLSConfig, err = c.tlsConfig(cfg.ConnConfig.TLSConfig); err != nil {
			return nil, err
		}
		if cfg.ConnConfig.TLSConfig.ServerName == "" {
			cfg.ConnConfig.TLSConfig.ServerName = cfg.ConnConfig.Host
		}
		cfg.ConnConfig.Fallbacks = nil
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > c.timeout {
		cfg.ConnConfig.ConnectTimeout = c.timeout
	}
	addr := net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port)))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, usagef("--postgres: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		if lerr := postgresLoginErr(c.postgres, addr, &cfg.ConnConfig.Config, err); lerr != nil {
			return nil, lerr
		}
		return nil, connectErr(ctx, "postgres", []string{addr}, c.timeout, err)
	}
	opts := pgexec.Options{Table: c.pgTable, Schema: c.pgSchema, Logger: slog.New(slog.DiscardHandler)}
	e, err := pgexec.New(pool, opts)
	if err != nil {
		pool.Close()
		return nil, usagef("%v", err)
	}
	if err := checkRights(ctx, c, e, func(ctx context.Context) error { return pgexec.Check(ctx, pool, opts) }); err != nil {
		_ = e.Close()
		pool.Close()
		if errors.Is(err, executor.ErrInvalidConfig) {
			return nil, fmt.Errorf("postgres %s: %w", addr, err)
		}
		return nil, connectErr(ctx, "postgres", []string{addr}, c.timeout, err)
	}
	return &backend{kind: "postgres", addr: addr, exec: e, breakNote: renewalNote, close: func() {
		_ = e.Close()
		pool.Close()
	}}, nil
}

// renewalNote: the database tells nobody; renewals find out (PostgreSQL,
// MySQL).
func renewalNote(context.Context, string, executor.Holder) string {
	return "a lock4go holder notices at its next renewal (within a third of its lease); one with a fixed lease (WithExpire) is not told and runs on until it releases."
}

// postgresURL returns the connection string of a --postgres value: a URL,
// or a keyword/value string ("host=... port=..."), as given; anything else
// is a URL without its scheme: host:port, or user@host:port/db?...
// (without a user or database, they come from PGUSER, PGDATABASE,
// PGPASSWORD or ~/.pgpass, as for psql).
func postgresURL(v string) string {
	if strings.Contains(v, "://") || keywordValue.MatchString(v) {
		return v
	}
	return "postgres://" + v
}

// keywordValue matches the start of a keyword/value connection string.
var keywordValue = regexp.MustCompile(`^\s*[a-z_]+\s*=`)

// postgresAddress returns host:port of a --postgres value, for messages.
func postgresAddress(v string) string {
	cfg, err := pgxpool.ParseConfig(postgresURL(v))
	if err != nil {
		return ""
	}
	return net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port)))
}
