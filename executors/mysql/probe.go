package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/lock4go/lock4go/executor"
)

// checkVar is the user variable that takes the OUT parameters of the
// procedures Check calls; Check resets it.
const checkVar = "@lock4go_check"

// firstColumn finds the first column of each table of schema.sql.
var firstColumn = regexp.MustCompile(`(?m)^CREATE TABLE IF NOT EXISTS \{\{t\}\}(\w+) \(\n\s*(\w+)`)

// tableColumns maps each table to its first column, read once.
var tableColumns = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, x := range firstColumn.FindAllStringSubmatch(schemaSQL, -1) {
		m[x[1]] = x[2]
	}
	return m
})

// probe is one statement that needs one right, and what it needs.
type probe struct {
	g      grant
	right  string
	sql    string
	begins bool // a procedure that stops at its SET TRANSACTION (1568) inside Check's transaction
}

// probes returns the statements that try every right of [Grants] with the
// names n, touching no row: each table's rights by statements whose WHERE
// is false, each procedure by a call with empty arguments.
func probes(n names) []probe {
	var ps []probe
	key := probeKey()
	for _, g := range grants(n) {
		if g.kind == "TABLE" {
			name := strings.TrimPrefix(g.object, n.table)
			col := tableColumns()[name]
			for _, r := range g.rights {
				ps = append(ps, probe{g: g, right: r, sql: tableProbe(r, g.object, col)})
			}
			continue
		}
		for _, p := range schemaObjects().procedures {
			if n.table+p.name == g.object {
				ps = append(ps, probe{g: g, right: "EXECUTE", sql: callProbe(g.object, p, key), begins: p.begins})
			}
		}
	}
	return ps
}

// tableProbe returns a statement that needs right on table and changes
// nothing.
func tableProbe(right, table, col string) string {
	switch right {
	case "SELECT":
		return "SELECT 1 FROM " + table + " WHERE FALSE"
	case "INSERT":
		return "INSERT INTO " + table + " SELECT * FROM " + table + " WHERE FALSE"
	case "UPDATE":
		return "UPDATE " + table + " SET " + col + " = " + col + " WHERE FALSE"
	}
	return "DELETE FROM " + table + " WHERE FALSE"
}

// probeKey is the key of the calls Check makes: a key no caller can use
// (keys are valid UTF-8, and this is not), different for each Check, so
// that concurrent Checks never wait for each other's rows.
func probeKey() hexArg {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hexArg("\xff" + string(b[:]))
}

// callProbe returns a call of p with key as its binary arguments.
func callProbe(name string, p procedure, key hexArg) string {
	args := make([]string, len(p.params))
	for i, a := range p.params {
		switch {
		case a.out:
			args[i] = checkVar
		case a.numeric:
			args[i] = "0"
		default:
			var b strings.Builder
			key.write(&b)
			args[i] = b.String()
		}
	}
	return "CALL " + name + "(" + strings.Join(args, ", ") + ")"
}

// checkRights runs the probes of o's objects on conn inside a transaction
// it rolls back, and reports the rights user lacks and the objects that
// are missing.
func checkRights(ctx context.Context, conn *sql.Conn, o Options, user string) (err error) {
	if _, err := conn.ExecContext(ctx, "SET "+checkVar+" = ''"); err != nil {
		return checkErr(ctx, err, o)
	}
	// READ COMMITTED, as the procedures' own transactions: no gap locks
	// that would make concurrent Checks, or Check and the executors,
	// wait for each other.
	if _, err := conn.ExecContext(ctx, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
		return checkErr(ctx, err, o)
	}
	if _, err := conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return checkErr(ctx, err, o)
	}
	defer func() {
		_, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		_, verr := conn.ExecContext(context.WithoutCancel(ctx), "SET "+checkVar+" = NULL")
		if err == nil && (rerr != nil || verr != nil) {
			err = checkErr(ctx, cmpOr(rerr, verr), o)
		}
	}()
	var lacks, absent []string
	var run []string
	for _, p := range probes(newNames(o)) {
		perr := probeOne(ctx, conn, p)
		if perr == nil {
			continue
		}
		me := serverErr(perr)
		switch {
		case me == nil:
			return checkErr(ctx, perr, o)
		case me.Number == errNoSuchTable || me.Number == errNoSuchProcedure || me.Number == errWrongArgCount || me.Number == errBadField:
			absent = appendOnce(absent, p.g.object)
		case p.g.kind == "PROCEDURE" && me.Number != errProcDenied && (me.Number == errTableDenied || me.Number == errColumnDenied):
			// A table right the procedure needs: its table's probe names it.
		case me.Number == errTableDenied || me.Number == errColumnDenied || me.Number == errProcDenied || me.Number == errDBAccessDenied:
			lacks = append(lacks, p.right+" on "+p.g.object)
			run = appendOnce(run, p.g.sql(quoteAccount(user)))
		default:
			return checkErr(ctx, fmt.Errorf("%s: %w", p.sql, perr), o)
		}
	}
	return missing(o, user, absent, lacks, run)
}

// probeOne runs p: nil when the right is there.
func probeOne(ctx context.Context, conn *sql.Conn, p probe) error {
	rows, err := conn.QueryContext(ctx, p.sql)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Close()
	}
	if me := serverErr(err); p.begins && me != nil && me.Number == errInTransaction {
		return nil // the call was allowed, and stopped at its SET TRANSACTION
	}
	return err
}

// missing reports what is absent or lacking, or nil.
func missing(o Options, user string, absent, lacks, run []string) error {
	switch {
	case len(absent) > 0:
		return fmt.Errorf("mysql: check: %w: %s missing or of another version: run mysql.Migrate with the same Table and Database",
			executor.ErrInvalidConfig, strings.Join(absent, ", "))
	case len(lacks) > 0:
		return fmt.Errorf("mysql: check: %w: the user %s lacks %s (or they do not exist: then run mysql.Migrate): run (docs/mysql.md, \"Users and grants\"):\n%s",
			executor.ErrInvalidConfig, user, strings.Join(lacks, "; "), strings.Join(run, "\n"))
	}
	return nil
}

// quoteAccount returns CURRENT_USER()'s user@host as GRANT names it.
func quoteAccount(user string) string {
	i := strings.LastIndexByte(user, '@')
	if i < 0 {
		return quoteString(user)
	}
	return Account(user[:i], user[i+1:])
}

// appendOnce appends v to s unless s ends with it.
func appendOnce(s []string, v string) []string {
	if len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}

// cmpOr returns the first non-nil error.
func cmpOr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
