package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/queued"
)

// migrateMode is the sql_mode Migrate creates the procedures under: a
// procedure runs with the sql_mode of its creation, whatever the calling
// session's, so a value too long for its column is an error, never a
// silent truncation that would make two keys one.
const migrateMode = "STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// Schema returns the SQL that [Migrate] runs for opts (Table and
// Database), in the mysql client's format (DELIMITER //), for those who
// apply migrations with a tool of their own: the tables (CREATE TABLE IF
// NOT EXISTS), the procedures (DROP PROCEDURE IF EXISTS, then CREATE
// PROCEDURE: MySQL has no CREATE OR REPLACE PROCEDURE) and, last, the
// locks table's comment, which records the SQL's version. Run it with a
// sql_mode that includes STRICT_ALL_TABLES (the procedures keep it). It
// returns an error wrapping [executor.ErrInvalidConfig] for invalid
// options.
func Schema(opts Options) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	stmts, _ := newNames(o).ddl()
	var b strings.Builder
	b.WriteString("SET SESSION sql_mode = '" + migrateMode + "';\nDELIMITER //\n")
	for _, s := range stmts {
		b.WriteString(s + "\n//\n")
	}
	b.WriteString("DELIMITER ;\n")
	return b.String(), nil
}

// Migrate creates or updates the executor's tables and procedures for
// opts (Table and Database) through db: the statements of [Schema], one by
// one on one connection under a strict sql_mode, unless the objects exist
// at this version already (the locks table's comment says so). It is
// idempotent, and safe to run from several processes at once (they take
// turns by GET_LOCK on one connection, the use named locks are made for).
// MySQL's DDL is not transactional: a Migrate that fails half-way leaves
// what it created, and the next run completes it. The executor never
// creates anything itself; run Migrate (or apply [Schema]) once before
// use.
//
// The first run needs a user with CREATE, ALTER, CREATE ROUTINE and ALTER
// ROUTINE on the database; a run that finds the objects at its version
// creates nothing and needs only a right on the locks table, so the
// executor's user may run it after an administrator did. A new version
// drops and creates the procedures again, which drops the EXECUTE grants
// given on them: grant them again ([Grants]; [Check] tells). It returns an
// error wrapping [executor.ErrInvalidConfig] for a nil db, invalid options,
// a missing database or right, and one wrapping [executor.ErrBackend] when
// the server did not answer. docs/mysql.md has the SQL and the grants.
func Migrate(ctx context.Context, db *sql.DB, opts Options) error {
	if lifecycle.IsNil(db) {
		return fmt.Errorf("mysql: migrate: nil *sql.DB: %w", executor.ErrInvalidConfig)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return migrateErr(ctx, err, o)
	}
	defer conn.Close()
	if err := migrateOn(ctx, conn, o); err != nil {
		return migrateErr(ctx, err, o)
	}
	return nil
}

// migrateOn runs Migrate's statements on conn, under the migration lock of
// o's objects, unless they are at this version.
func migrateOn(ctx context.Context, conn *sql.Conn, o Options) (err error) {
	n := newNames(o)
	stmts, version := n.ddl()
	if v, err := schemaVersion(ctx, conn, o); err != nil || v == version {
		return err
	}
	name := "lock4go:migrate:" + o.Database + "." + o.Table
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 60)", name).Scan(&got); err != nil {
		return err
	}
	if got.Int64 != 1 {
		return fmt.Errorf("mysql: migrate: another Migrate held %q for 60s", name)
	}
	defer func() {
		_, rerr := conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK(?)", name)
		err = errors.Join(err, rerr)
	}()
	if v, err := schemaVersion(ctx, conn, o); err != nil || v == version {
		return err // another Migrate has just done it
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = '"+migrateMode+"'"); err != nil {
		return err
	}
	defer func() {
		_, rerr := conn.ExecContext(context.WithoutCancel(ctx), "SET SESSION sql_mode = ?", mode)
		err = errors.Join(err, rerr)
	}()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%w\n%s", err, firstLine(s))
		}
	}
	return nil
}

// schemaVersion returns the version the locks table's comment records, ""
// when the table or the comment is missing (or the user may see nothing
// of it).
func schemaVersion(ctx context.Context, conn *sql.Conn, o Options) (string, error) {
	var comment sql.NullString
	err := conn.QueryRowContext(ctx, `SELECT TABLE_COMMENT FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ?`, o.Database, o.Table+"_locks").Scan(&comment)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	v, _ := strings.CutPrefix(comment.String, versionMark)
	return v, err
}

// migrateErr is the error of a Migrate that failed with err.
func migrateErr(ctx context.Context, err error, o Options) error {
	me := serverErr(err)
	switch {
	case me == nil:
	case me.Number == errTableDenied || me.Number == errDBAccessDenied || me.Number == errSpecificDenied || me.Number == errProcDenied:
		return fmt.Errorf("mysql: migrate: %w: %w: the user may not create or change the objects: run Migrate as a user with CREATE, ALTER, CREATE ROUTINE and ALTER ROUTINE on the database (docs/mysql.md, \"Users and grants\")",
			executor.ErrInvalidConfig, err)
	case wrongConfig(me.Number):
		return fmt.Errorf("mysql: migrate: %w: %w: %s", executor.ErrInvalidConfig, err, fix(me.Number, o))
	}
	return fmt.Errorf("mysql: migrate: %w", queued.BackendErr(ctx, err))
}

// firstLine returns s's first line.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
