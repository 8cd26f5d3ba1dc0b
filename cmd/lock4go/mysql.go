package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lock4go/lock4go/executor"
	myexec "github.com/lock4go/lock4go/executors/mysql"
)

// dialMySQL connects to --mysql and checks that the user may use what
// Migrate created for --mysql-table and --mysql-database (mysql.Check,
// which reads the server's settings first: a server that may lose commits
// is reported too). The tool never creates anything.
func dialMySQL(ctx context.Context, c *connFlags) (*backend, error) {
	cfg, err := mysqlConfig(c.mysql)
	if err != nil {
		return nil, err
	}
	cfg.Logger = gomysql.Logger(discardLog{}) // the driver's own lines ("unexpected EOF"): the tool says what failed
	if cfg.Timeout == 0 || cfg.Timeout > c.timeout {
		cfg.Timeout = c.timeout
	}
	if c.wantsTLS() {
		if cfg.TLS, err = c.tlsConfig(cfg.TLS); err != nil {
			return nil, err
		}
		if cfg.TLS.ServerName == "" {
			cfg.TLS.ServerName, _, _ = strings.Cut(cfg.Addr, ":")
		}
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, usagef("--mysql: %v", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4) // bench's waiters hold one for their wake connection
	opts := myexec.Options{Table: c.myTable, Database: c.myDatabase, Logger: slog.New(slog.DiscardHandler)}
	e, err := myexec.New(db, opts)
	if err != nil {
		_ = db.Close()
		return nil, usagef("%v", err)
	}
	if err := checkRights(ctx, c, e, func(ctx context.Context) error { return myexec.Check(ctx, db, opts) }); err != nil {
		_ = e.Close()
		_ = db.Close()
		if errors.Is(err, executor.ErrInvalidConfig) {
			return nil, fmt.Errorf("mysql %s: %w", cfg.Addr, err)
		}
		return nil, connectErr(ctx, "mysql", []string{cfg.Addr}, c.timeout, err)
	}
	return &backend{kind: "mysql", addr: cfg.Addr, exec: e, breakNote: renewalNote, close: func() {
		_ = e.Close()
		_ = db.Close()
	}}, nil
}

// mysqlConfig parses a --mysql value: a go-sql-driver DSN
// (user:password@tcp(host:port)/db?param=value), or the short form
// [user@]host:port/db, which means user@tcp(host:port)/db.
func mysqlConfig(v string) (*gomysql.Config, error) {
	dsn := v
	if !strings.Contains(v, "(") {
		user, rest, ok := strings.Cut(v, "@")
		if !ok {
			user, rest = "", v
		}
		addr, db, _ := strings.Cut(rest, "/")
		dsn = user + "@tcp(" + addr + ")/" + db
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, usagef("--mysql: %v", err)
	}
	return cfg, nil
}

// mysqlAddress returns host:port of a --mysql value, for messages.
func mysqlAddress(v string) string {
	cfg, err := mysqlConfig(v)
	if err != nil {
		return ""
	}
	return cfg.Addr
}

// discardLog drops the driver's log lines.
type discardLog struct{}

func (discardLog) Print(...any) {}
