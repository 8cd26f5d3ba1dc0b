package mysql

import (
	"context"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

// How a server's error is reported, by its error number (the server's
// error reference; docs/mysql.md, "Errors", has the table). The numbers of
// a wrong configuration fail every call the same way until someone changes
// the server, the grants, the options or the DSN: they are
// [executor.ErrInvalidConfig], which the Template does not retry, with
// what to do. Every other number (1205 lock wait timeout, 1213 deadlock,
// 1040 too many connections, 1290 and 1792 read-only during a failover,
// 1317 interrupted, ...) and every error of the connection itself (2006,
// 2013: the driver's invalid connection, a reset, a timeout) may pass:
// [executor.ErrBackend], retried within the acquire timeout.

// The server's error numbers the executor tells apart.
const (
	errDBAccessDenied    = 1044 // access denied to a database
	errAccessDenied      = 1045 // wrong user or password
	errNoDatabase        = 1046 // no database selected: the DSN names none
	errBadDatabase       = 1049 // unknown database
	errBadField          = 1054 // unknown column: objects of another version
	errParse             = 1064 // syntax error
	errTableDenied       = 1142 // a table right missing
	errSafeUpdates       = 1175 // sql_safe_updates refuses an UPDATE or DELETE
	errColumnDenied      = 1143 // a column right missing
	errNoSuchTable       = 1146
	errSpecificDenied    = 1227 // a global privilege missing
	errNoSuchProcedure   = 1305
	errInterrupted       = 1317 // KILL QUERY, or a statement time limit
	errWrongArgCount     = 1318 // a procedure of another version
	errProcDenied        = 1370 // EXECUTE missing
	errNoSuchDefiner     = 1449
	errInTransaction     = 1568 // SET TRANSACTION inside an open transaction
	errStatementBinlog   = 1665 // binlog_format = STATEMENT refuses READ COMMITTED writes
	errNoPassword        = 1698
	errMustChangePass    = 1820
	errMustChangePassLog = 1862
	errConnKilled        = 1927 // MariaDB: the connection was killed
	errStatementTimeout  = 1969 // MariaDB: max_statement_time
	errAccountLocked     = 3118 // MySQL; MariaDB says 4151
	errExecutionTime     = 3024 // MySQL: max_execution_time
	errAccountLockedMaDB = 4151
	errShutdown          = 1053
	errDeadlock          = 1213
)

// maxDeadlockRetries is how many times a statement InnoDB chose as a
// deadlock's victim is sent again: its transaction was rolled back whole,
// so it wrote nothing.
const maxDeadlockRetries = 2

// deadlock reports whether err is InnoDB's deadlock error.
func deadlock(err error) bool {
	me := serverErr(err)
	return me != nil && me.Number == errDeadlock
}

// serverErr returns the server's error in err's chain, or nil when the
// server did not answer with an error.
func serverErr(err error) *gomysql.MySQLError {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me
	}
	return nil
}

// wrongConfig reports whether the server's error number says the
// configuration is wrong.
func wrongConfig(n uint16) bool {
	switch n {
	case errDBAccessDenied, errAccessDenied, errNoDatabase, errBadDatabase, errBadField, errParse,
		errTableDenied, errColumnDenied, errNoSuchTable, errSpecificDenied, errNoSuchProcedure,
		errWrongArgCount, errProcDenied, errNoSuchDefiner, errInTransaction, errStatementBinlog,
		errNoPassword, errMustChangePass, errMustChangePassLog, errAccountLocked, errAccountLockedMaDB,
		errSafeUpdates:
		return true
	}
	return false
}

// interrupted reports whether the server's error number says a statement
// was stopped while it ran: it may have committed before (a procedure
// commits before it answers).
func interrupted(n uint16) bool {
	switch n {
	case errInterrupted, errConnKilled, errStatementTimeout, errExecutionTime, errShutdown:
		return true
	}
	return false
}

// fix returns what to do about a statement that failed with the server's
// error number n, one of a wrong configuration, for the executor's
// options o.
func fix(n uint16, o Options) string {
	switch n {
	case errTableDenied, errColumnDenied, errProcDenied, errDBAccessDenied:
		return "the connection's user lacks a right on the lock tables or procedures; mysql.Check names which, and mysql.Grants prints the statements that grant them all (docs/mysql.md, \"Users and grants\")"
	case errNoSuchTable, errNoSuchProcedure, errWrongArgCount, errBadField:
		return "run mysql.Migrate with the same Table and Database (objects missing, or of another version)"
	case errNoDatabase:
		return "the DSN names no database: name one, or set Options.Database"
	case errBadDatabase:
		return fmt.Sprintf("the database does not exist (Options.Database %q, or the DSN's): create it, then run mysql.Migrate", o.Database)
	case errInTransaction:
		return "a connection of the pool was inside a transaction another statement left open (BEGIN, or autocommit=0 with uncommitted work): the executor runs each call in a transaction of its own and never commits or rolls back someone else's"
	case errStatementBinlog:
		return "binlog_format is STATEMENT, which refuses the executor's READ COMMITTED writes: set binlog_format to ROW or MIXED"
	case errSafeUpdates:
		return "sql_safe_updates is on for the pool's sessions (SET GLOBAL, or the DSN), and it refuses the executor's renewals and sweeps: add sql_safe_updates=0 to the DSN (a session setting; the global one may stay)"
	case errNoSuchDefiner:
		return "the user that ran Migrate (the procedures' DEFINER) no longer exists: run mysql.Migrate again as an existing user"
	case errAccessDenied, errNoPassword, errMustChangePass, errMustChangePassLog, errAccountLocked, errAccountLockedMaDB, errSpecificDenied:
		return "the server refused the DSN's user: check its user, host and password"
	}
	return "check Options.Table and Options.Database"
}

// configError returns err wrapped in [executor.ErrInvalidConfig] with what
// to do when the server's error says the configuration is wrong, and nil
// otherwise.
func configError(err error, o Options) error {
	me := serverErr(err)
	if me == nil || !wrongConfig(me.Number) {
		return nil
	}
	return fmt.Errorf("%w: %w: %s", executor.ErrInvalidConfig, err, fix(me.Number, o))
}

// failed is the error of the statement of op on key that failed with err
// under ctx: [executor.ErrInvalidConfig] with what to do for the numbers of
// a wrong configuration, [executor.ErrBackend] otherwise.
func failed(ctx context.Context, o Options, op, key string, err error) error {
	if cerr := configError(err, o); cerr != nil {
		return fmt.Errorf("mysql: %s %q: %w", op, key, cerr)
	}
	return fmt.Errorf("mysql: %s %q: %w", op, key, queued.BackendErr(ctx, err))
}
