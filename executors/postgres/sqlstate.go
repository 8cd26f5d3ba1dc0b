package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

// How a server's error is reported, by its SQLSTATE (PostgreSQL's
// "Appendix A. Error Codes"; docs/postgres.md, "Errors", has the table).
// The states of a wrong configuration fail every call the same way until
// someone changes the database, the options or the connection string: they
// are [executor.ErrInvalidConfig], which the Template does not retry, with
// what to do. Every other state (08 connection, 40001 serialization,
// 40P01 deadlock, 53 resources, 55P03 lock not available, 57014 statement
// timeout, 57P01 shutdown, 25006 a read-only standby during a failover,
// ...) may pass: [executor.ErrBackend], retried within the acquire timeout.

// sqlState returns the SQLSTATE of the server's error in err's chain, or
// "" when the server did not answer with an error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// wrongConfig reports whether the SQLSTATE code says the configuration is
// wrong.
func wrongConfig(code string) bool {
	switch {
	case strings.HasPrefix(code, "42"): // syntax error or access rule violation
		return true
	case strings.HasPrefix(code, "28"): // invalid authorization specification
		return true
	}
	switch code {
	case "3D000", // invalid catalog name: no such database
		"3F000", // invalid schema name
		"0P000": // invalid role specification
		return true
	}
	return false
}

// missingObjects are the states of a statement that names a table,
// function or column Migrate did not create (or created at another
// version).
var missingObjects = map[string]bool{
	"42P01": true, // undefined table
	"42883": true, // undefined function
	"42704": true, // undefined object (a type)
	"42703": true, // undefined column
	"42804": true, // datatype mismatch: a function of another version
}

// configError returns err wrapped in [executor.ErrInvalidConfig] with the
// advice fix gives for its state when that state says the configuration is
// wrong, and nil otherwise.
func configError(err error, fix func(code string) string) error {
	code := sqlState(err)
	if code == "" || !wrongConfig(code) {
		return nil
	}
	return fmt.Errorf("%w: %w: %s", executor.ErrInvalidConfig, err, fix(code))
}

// fix returns what to do about a statement of the executor that failed
// with the SQLSTATE code of a wrong configuration.
func (e *Executor) fix(code string) string {
	switch {
	case code == "42501":
		role := e.pool.Config().ConnConfig.User
		if role == "" {
			role = "<the pool's role>"
		}
		g, _ := Grants(e.opts, role)
		return fmt.Sprintf("the role %s lacks a right on the lock tables; postgres.Check names which, and these grant them all (docs/postgres.md, \"Roles and grants\"):\n%s", quote(role), g)
	case code == "3F000" && e.opts.Schema != "":
		return fmt.Sprintf("schema %s does not exist: create it (CREATE SCHEMA %s;), then run postgres.Migrate with the same Table and Schema", quote(e.opts.Schema), quote(e.opts.Schema))
	case code == "3F000" || missingObjects[code]:
		return "run postgres.Migrate with the same Table and Schema"
	}
	return connectionFix(code)
}

// connectionFix returns what to do about a state that is neither a
// missing right nor a missing object.
func connectionFix(code string) string {
	switch {
	case code == "3D000":
		return "the connection string names a database that does not exist"
	case strings.HasPrefix(code, "28"), code == "0P000":
		return "the server refused the pool's role: check its user and password, and pg_hba.conf"
	}
	return "check Options.Table and Options.Schema"
}

// failed is the error of the statement of op on key that failed with err
// under ctx: [executor.ErrInvalidConfig] with what to do for the state of
// a wrong configuration, [executor.ErrBackend] otherwise.
func (e *Executor) failed(ctx context.Context, op, key string, err error) error {
	if cerr := configError(err, e.fix); cerr != nil {
		return fmt.Errorf("postgres: %s %q: %w", op, key, cerr)
	}
	return fmt.Errorf("postgres: %s %q: %w", op, key, queued.BackendErr(ctx, err))
}
