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

// Check tells whether the user of db's connections may use what [Migrate]
// created for opts (Table and Database), and whether the server keeps what
// it commits. On one connection it reads the server's settings, then tries
// every right of [Grants] inside a transaction it rolls back: a statement
// on each table that touches no row, and a call of each procedure (one
// that starts a transaction of its own stops at once, inside Check's). It
// returns nil when all is there; an error wrapping
// [executor.ErrInvalidConfig] that names what is missing and the GRANT
// statements (or Migrate) that supply it, or the durability setting that
// may lose commits (see [Options.AllowUnsafeDurability]); or one wrapping
// [executor.ErrBackend] when the server did not answer.
//
// An [Executor] runs it once, before its first acquisition (a user that
// could take a lock but not release it, or not queue for one, gets no
// lock), and the durability part again at every sweep; the lock4go command
// calls it when it connects.
func Check(ctx context.Context, db *sql.DB, opts Options) error {
	if lifecycle.IsNil(db) {
		return fmt.Errorf("mysql: check: nil *sql.DB: %w", executor.ErrInvalidConfig)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return checkErr(ctx, err, o)
	}
	defer conn.Close()
	return check(ctx, conn, o)
}

// check is [Check] on conn with o's defaults filled in.
func check(ctx context.Context, conn *sql.Conn, o Options) error {
	s, err := readSettings(ctx, conn)
	if err != nil {
		return checkErr(ctx, err, o)
	}
	if err := s.usable(o); err != nil {
		return err
	}
	if err := checkRights(ctx, conn, o, s.user); err != nil {
		return err
	}
	v, err := schemaVersion(ctx, conn, o)
	if err != nil {
		return checkErr(ctx, err, o)
	}
	if _, want := newNames(o).ddl(); v != want {
		return fmt.Errorf("mysql: check: %w: the objects of %s_locks are of another version (%q) than this executor's (%q): run mysql.Migrate with the same Table and Database",
			executor.ErrInvalidConfig, o.Table, v, want)
	}
	return nil
}

// settings are what the server says of itself and of the connection.
type settings struct {
	database   sql.NullString
	user       string
	flushLog   int64 // innodb_flush_log_at_trx_commit
	syncBinlog int64
	logBin     int64
	binlogFmt  string
	flushMeth  string // innodb_flush_method
	redoOff    bool   // MySQL 8.0.21+: ALTER INSTANCE DISABLE INNODB REDO_LOG
}

// settingsQuery reads the settings in one statement without arguments: it
// is sent as text, one round trip. Global variables are readable by every
// user.
const settingsQuery = `SELECT DATABASE(), CURRENT_USER(), @@GLOBAL.innodb_flush_log_at_trx_commit,
	@@GLOBAL.sync_binlog, @@GLOBAL.log_bin, @@SESSION.binlog_format, @@GLOBAL.innodb_flush_method`

// redoQuery tells whether MySQL's redo log was disabled (ALTER INSTANCE
// DISABLE INNODB REDO_LOG, MySQL 8.0.21+); MariaDB has no such status and
// answers no row.
const redoQuery = "SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'"

// readSettings reads the settings on conn.
func readSettings(ctx context.Context, conn *sql.Conn) (settings, error) {
	var s settings
	err := conn.QueryRowContext(ctx, settingsQuery).Scan(&s.database, &s.user, &s.flushLog, &s.syncBinlog, &s.logBin, &s.binlogFmt, &s.flushMeth)
	if err != nil {
		return s, err
	}
	var name, on string
	switch err := conn.QueryRowContext(ctx, redoQuery).Scan(&name, &on); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return s, err
	default:
		s.redoOff = strings.EqualFold(on, "OFF")
	}
	return s, nil
}

// usable checks the settings for o: a database to work in, commits that a
// crash keeps (unless o allows otherwise, then it warns), and a binary log
// format that takes the executor's READ COMMITTED writes.
func (s settings) usable(o Options) error {
	switch {
	case o.Database == "" && !s.database.Valid:
		return fmt.Errorf("mysql: check: %w: the DSN names no database: name one, or set Options.Database", executor.ErrInvalidConfig)
	case s.logBin == 1 && strings.EqualFold(s.binlogFmt, "STATEMENT"):
		return fmt.Errorf("mysql: check: %w: binlog_format is STATEMENT, which refuses the executor's READ COMMITTED writes: set binlog_format to ROW or MIXED", executor.ErrInvalidConfig)
	}
	if err := s.durable(); err != nil {
		if !o.AllowUnsafeDurability {
			return fmt.Errorf("mysql: check: %w: %w (or set Options.AllowUnsafeDurability to accept it)", executor.ErrInvalidConfig, err)
		}
		o.Logger.Warn("mysql: the server may lose its last commits in a crash, and with them locks the executor reported held: Options.AllowUnsafeDurability accepts it", "err", err)
	}
	return nil
}

// errUndurable is the cause of a server whose settings may lose commits.
var errUndurable = errors.New("the server may lose its last commits in a crash")

// durable returns nil when a commit the server acknowledged survives a
// crash of the server or of its host: the redo log on, and flushed at
// every commit (innodb_flush_log_at_trx_commit 1, or MariaDB's 3, and an
// innodb_flush_method that flushes) and, with the binary log on, the
// binary log too (sync_binlog 1).
func (s settings) durable() error {
	switch {
	case s.redoOff:
		return fmt.Errorf("%w: the redo log is disabled (ALTER INSTANCE DISABLE INNODB REDO_LOG): enable it (ALTER INSTANCE ENABLE INNODB REDO_LOG)", errUndurable)
	case strings.EqualFold(s.flushMeth, "nosync"):
		return fmt.Errorf("%w: innodb_flush_method is nosync, which never flushes: set another in the server's configuration", errUndurable)
	case s.flushLog != 1 && s.flushLog != 3:
		return fmt.Errorf("%w: innodb_flush_log_at_trx_commit is %d: set it to 1 (SET GLOBAL innodb_flush_log_at_trx_commit = 1, and in the server's configuration)",
			errUndurable, s.flushLog)
	case s.logBin == 1 && s.syncBinlog != 1:
		return fmt.Errorf("%w: the binary log is on and sync_binlog is %d: set it to 1 (SET GLOBAL sync_binlog = 1, and in the server's configuration)",
			errUndurable, s.syncBinlog)
	}
	return nil
}

// checkErr is the error of a statement of Check that failed.
func checkErr(ctx context.Context, err error, o Options) error {
	if cerr := configError(err, o); cerr != nil {
		return fmt.Errorf("mysql: check: %w", cerr)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("mysql: check: %w", executor.GaveUp(ctx))
	}
	return fmt.Errorf("mysql: check: %w", queued.BackendErr(ctx, err))
}
