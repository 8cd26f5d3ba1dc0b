package postgres

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// The rights the executor's role needs, object by object: what [Grants]
// prints and [Check] asks the database about. They are read from
// schema.sql, so that a table, sequence or function added there is
// granted and checked too.
var (
	// tableRights are the rights on each table: the functions read, insert,
	// update (SELECT ... FOR UPDATE too) and delete rows of every table.
	tableRights = []string{"SELECT", "INSERT", "UPDATE", "DELETE"}

	createTable    = regexp.MustCompile(`(?m)^CREATE TABLE IF NOT EXISTS \{\{t\}\}(\w+)`)
	createSequence = regexp.MustCompile(`(?m)^CREATE SEQUENCE IF NOT EXISTS \{\{t\}\}(\w+)`)
	createFunction = regexp.MustCompile(`(?ms)^CREATE (?:OR REPLACE )?FUNCTION \{\{t\}\}(\w+)\((.*?)\)\s*RETURNS`)
)

// objects are the names of schema.sql's tables, sequences and functions
// after the prefix ("locks", "token", "acquire"), functions with their
// argument types ("acquire(text, text, bigint, ...)"), in the order
// schema.sql creates them.
type objects struct {
	tables, sequences, functions []string
}

// schemaObjects returns the objects of schema.sql, read once.
var schemaObjects = sync.OnceValue(func() objects {
	var o objects
	for _, m := range createTable.FindAllStringSubmatch(schemaSQL, -1) {
		o.tables = append(o.tables, m[1])
	}
	for _, m := range createSequence.FindAllStringSubmatch(schemaSQL, -1) {
		o.sequences = append(o.sequences, m[1])
	}
	for _, m := range createFunction.FindAllStringSubmatch(schemaSQL, -1) {
		o.functions = append(o.functions, m[1]+"("+argTypes(m[2])+")")
	}
	return o
})

// argTypes returns the argument types of a function's parameter list, as
// GRANT and to_regprocedure name the function: "k text, n int DEFAULT 0,
// OUT t bigint" gives "text, int". Each parameter is a name and a type,
// with an optional mode (OUT parameters are not arguments) and default.
func argTypes(params string) string {
	var types []string
	for _, p := range splitParams(params) {
		f := strings.Fields(p)
		if i := slices.IndexFunc(f, func(w string) bool { return strings.EqualFold(w, "DEFAULT") || w == "=" }); i >= 0 {
			f = f[:i]
		}
		mode := ""
		if len(f) > 0 && paramModes[strings.ToUpper(f[0])] {
			mode, f = strings.ToUpper(f[0]), f[1:]
		}
		if mode != "OUT" && len(f) > 1 {
			types = append(types, strings.Join(f[1:], " "))
		}
	}
	return strings.Join(types, ", ")
}

// paramModes are the modes a parameter may start with.
var paramModes = map[string]bool{"IN": true, "OUT": true, "INOUT": true, "VARIADIC": true}

// splitParams splits a parameter list at its commas, but not those inside
// parentheses (numeric(10, 2)) or quotes (DEFAULT 'a,b').
func splitParams(params string) []string {
	var (
		out   []string
		depth int
		quote bool
		start int
	)
	for i, r := range params {
		switch {
		case r == '\'':
			quote = !quote
		case quote:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out, start = append(out, params[start:i]), i+1
		}
	}
	return append(out, params[start:])
}

// grant is one GRANT statement of [Grants]: the rights on one object.
type grant struct {
	rights []string // "SELECT", "USAGE", "EXECUTE", ...
	kind   string   // "SCHEMA", "TABLE", "SEQUENCE" or "FUNCTION"
	object string   // as SQL names it: quoted, schema-qualified
}

// sql returns the statement that grants g to role (a quoted name).
func (g grant) sql(role string) string {
	return "GRANT " + strings.Join(g.rights, ", ") + " ON " + g.kind + " " + g.object + " TO " + role + ";"
}

// grants returns what the executor's role needs with the names n, the
// schema's USAGE first: its schema is schema (quoted), "public" when the
// options name none.
func grants(n names, schema string) []grant {
	o := schemaObjects()
	gs := []grant{{rights: []string{"USAGE"}, kind: "SCHEMA", object: schema}}
	for _, t := range o.tables {
		gs = append(gs, grant{rights: tableRights, kind: "TABLE", object: n.table + t})
	}
	for _, s := range o.sequences {
		gs = append(gs, grant{rights: []string{"USAGE"}, kind: "SEQUENCE", object: n.table + s})
	}
	for _, f := range o.functions {
		gs = append(gs, grant{rights: []string{"EXECUTE"}, kind: "FUNCTION", object: n.table + f})
	}
	return gs
}

// grantSchema returns the quoted schema of o's objects for GRANT
// statements: o.Schema, or "public", where the default search_path finds
// unqualified names, when o names none.
func grantSchema(o Options) string {
	if o.Schema == "" {
		return quote("public")
	}
	return quote(o.Schema)
}

// Grants returns the statements, one a line, that give role every right
// an executor with opts (Table and Schema) needs on what [Migrate] created:
// USAGE on the schema (public when opts names none), SELECT, INSERT,
// UPDATE and DELETE on each table, USAGE on each sequence and EXECUTE on
// each function. Run them as the owner of those objects (the role that ran
// Migrate) or a superuser; [Check] tells which of them a role lacks.
// Functions are executable by every role unless the database revoked that
// from PUBLIC; the EXECUTE lines are there for databases that did.
//
// Migrate itself needs USAGE and CREATE on the schema, or nothing once the
// objects exist at its version (see [Migrate]). docs/postgres.md prints
// the statements for the default options. It returns an error wrapping
// [executor.ErrInvalidConfig] for invalid options or an empty role.
func Grants(opts Options, role string) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	if role == "" {
		return "", errEmptyRole
	}
	var b strings.Builder
	for _, g := range grants(newNames(o), grantSchema(o)) {
		b.WriteString(g.sql(quote(role)))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// quote returns name as a quoted SQL identifier ("user" for user): a
// reserved word or any other name is then taken as it is.
func quote(name string) string { return pgx.Identifier{name}.Sanitize() }
