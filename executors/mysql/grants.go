package mysql

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/lock4go/lock4go/executor"
)

// The rights the executor's user needs, object by object: what [Grants]
// prints and [Check] tries. They are read from schema.sql, so that a table
// or procedure added there is granted and checked too.
var (
	// tableRights are the rights on each table: the procedures read,
	// insert (INSERT ... ON DUPLICATE KEY UPDATE too), update and delete
	// rows of every table.
	tableRights = []string{"SELECT", "INSERT", "UPDATE", "DELETE"}
	// tokenRights are the rights on the tokens table, whose rows are
	// inserted and deleted (by a WHERE that reads them), never updated.
	tokenRights = []string{"SELECT", "INSERT", "DELETE"}

	createTable     = regexp.MustCompile(`(?m)^CREATE TABLE IF NOT EXISTS \{\{t\}\}(\w+)`)
	createProcedure = regexp.MustCompile(`(?ms)^CREATE PROCEDURE \{\{t\}\}(\w+)\((.*?)\)\s*\nSQL SECURITY`)
)

// procedure is one procedure of schema.sql: its name after the prefix and
// its parameters' kinds.
type procedure struct {
	name   string
	params []param
	// begins says that the procedure starts its own transaction with SET
	// TRANSACTION, which fails inside another transaction.
	begins bool
}

// param is how [Check] passes a parameter: by value (an empty binary
// string or 0), or as a
// user variable (OUT and INOUT).
type param struct {
	out     bool
	numeric bool
}

// objects are the tables and procedures of schema.sql, in the order it
// creates them.
type objects struct {
	tables     []string
	procedures []procedure
}

// schemaObjects returns the objects of schema.sql, read once.
var schemaObjects = sync.OnceValue(func() objects {
	var o objects
	for _, m := range createTable.FindAllStringSubmatch(schemaSQL, -1) {
		o.tables = append(o.tables, m[1])
	}
	bodies := strings.Split(schemaSQL, "\n//\n")
	for _, b := range bodies {
		m := createProcedure.FindStringSubmatch(b)
		if m == nil {
			continue
		}
		p := procedure{name: m[1], begins: strings.Contains(b, "{{begin}}")}
		for _, f := range strings.Split(m[2], ",") {
			w := strings.Fields(f)
			if len(w) == 0 {
				continue
			}
			out := w[0] == "OUT" || w[0] == "INOUT"
			typ := strings.ToUpper(w[len(w)-1])
			p.params = append(p.params, param{out: out, numeric: !strings.Contains(typ, "BINARY") && !strings.Contains(typ, "TEXT")})
		}
		o.procedures = append(o.procedures, p)
	}
	return o
})

// grant is one GRANT statement of [Grants]: the rights on one object.
type grant struct {
	rights []string // "SELECT", "EXECUTE", ...
	kind   string   // "TABLE" or "PROCEDURE"
	object string   // as SQL names it: database-qualified when Options.Database is set
}

// sql returns the statement that grants g to account.
func (g grant) sql(account string) string {
	return "GRANT " + strings.Join(g.rights, ", ") + " ON " + g.kind + " " + g.object + " TO " + account + ";"
}

// grants returns what the executor's user needs with the names n.
func grants(n names) []grant {
	o := schemaObjects()
	var gs []grant
	for _, t := range o.tables {
		r := tableRights
		if t == "tokens" {
			r = tokenRights
		}
		gs = append(gs, grant{rights: r, kind: "TABLE", object: n.table + t})
	}
	for _, p := range o.procedures {
		gs = append(gs, grant{rights: []string{"EXECUTE"}, kind: "PROCEDURE", object: n.table + p.name})
	}
	return gs
}

// Account returns the account user@host as GRANT names it, each part
// quoted ('app'@'%'); an empty host means any host ('%').
func Account(user, host string) string {
	if host == "" {
		host = "%"
	}
	return quoteString(user) + "@" + quoteString(host)
}

// quoteString returns s as a quoted string literal, valid whatever the
// session's sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES).
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Grants returns the statements, one a line, that give account (as
// [Account] writes it: 'app'@'%') every right an executor with opts
// (Table and Database) needs on what [Migrate] created: SELECT, INSERT,
// UPDATE and DELETE on each table (SELECT, INSERT and DELETE on the tokens
// table) and EXECUTE on each procedure (they run with the caller's rights:
// SQL SECURITY INVOKER). Run them after Migrate, as a user that may grant
// them; without Options.Database the names are those of the current
// database (USE it first). [Check] tells which of them a user lacks.
// Migrate itself needs CREATE, ALTER, CREATE ROUTINE and ALTER ROUTINE on
// the database, or nothing once the objects exist at its version (see
// [Migrate]); docs/mysql.md prints the statements for the default
// options. It returns an error wrapping [executor.ErrInvalidConfig] for
// invalid options or an empty account.
func Grants(opts Options, account string) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(account) == "" {
		return "", fmt.Errorf("mysql: grants: empty account: %w", executor.ErrInvalidConfig)
	}
	var b strings.Builder
	for _, g := range grants(newNames(o)) {
		b.WriteString(g.sql(account))
		b.WriteByte('\n')
	}
	return b.String(), nil
}
