package mysql

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"strings"
)

// schemaSQL creates the tables and procedures, in the mysql client's
// format (DELIMITER //); {{t}}, {{w}}, {{clock}} and {{begin}} stand for
// the parts of [names.sql].
//
//go:embed schema.sql
var schemaSQL string

// names are the SQL names an executor uses, from [Options.Table] and
// [Options.Database].
type names struct {
	table string // prefix of tables and procedures, database-qualified: "lock4go_" or "`db`.lock4go_"
	wake  string // prefix of the wake lock names: "lock4go:w:"
}

func newNames(o Options) names {
	n := names{table: o.Table + "_", wake: o.Table + ":w:"}
	if o.Database != "" {
		n.table = quote(o.Database) + "." + n.table
	}
	return n
}

// clockSQL sets v_now to the server's time in microseconds since 1970:
// UTC_TIMESTAMP(6), after resetting a clock the session froze (SET
// timestamp makes NOW() and UTC_TIMESTAMP() return a fixed time; SYSDATE()
// ignores it). NOW(6) is when the statement began, SYSDATE(6) when it is
// evaluated: they differ by more than a millisecond only with a frozen
// clock (or a server stalled in between, for which the reset does
// nothing).
const clockSQL = `IF ABS(TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6))) > 1000 THEN
	SET timestamp = DEFAULT; -- the session froze its clock
END IF;
SET v_now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6));`

// beginSQL starts a procedure's transaction in READ COMMITTED. SET
// TRANSACTION fails (error 1568) while the session is inside a
// transaction another statement left open, before any of the procedure's
// work: the executor refuses such a connection rather than commit or roll
// back someone else's work.
const beginSQL = `SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
START TRANSACTION;`

// blocks are the placeholders that stand alone on a line of schema.sql,
// and the statements they stand for.
var blocks = map[string]string{"{{clock}}": clockSQL, "{{begin}}": beginSQL}

// sql returns s with the placeholders of schema.sql replaced: {{t}} and
// {{w}} anywhere, {{clock}} and {{begin}} on lines of their own, by their
// statements indented as the placeholder is.
func (n names) sql(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		body := strings.TrimRight(line, "\r\n")
		if block, ok := blocks[strings.TrimSpace(body)]; ok {
			indent := body[:len(body)-len(strings.TrimLeft(body, " \t"))]
			for l := range strings.Lines(block) {
				b.WriteString(indent + strings.TrimRight(l, "\n") + "\n")
			}
			continue
		}
		b.WriteString(line)
	}
	return strings.NewReplacer("{{t}}", n.table, "{{w}}", n.wake).Replace(b.String())
}

// quote returns name as a quoted identifier (`name`).
func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// versionMark starts the comment on the locks table that records which
// SQL created the objects: [Migrate] reads it to skip what is done.
const versionMark = "lock4go schema "

// ddl returns the statements of [Schema] for the names n, one per
// element, without their delimiters, and the SQL's version: a digest of
// it, which the last statement records as the locks table's comment.
func (n names) ddl() (stmts []string, version string) {
	sql := n.sql(schemaSQL)
	sum := sha256.Sum256([]byte(sql))
	version = hex.EncodeToString(sum[:8])
	stmts = splitStatements(sql)
	stmts = append(stmts, "ALTER TABLE "+n.table+"locks COMMENT = '"+versionMark+version+"'")
	return stmts, version
}

// splitStatements splits SQL in the mysql client's format at its
// delimiters: a line "DELIMITER x" sets the delimiter (";" at first), and
// a statement ends with a line that ends with it. Comment lines outside
// statements and empty statements are dropped.
func splitStatements(sql string) []string {
	var (
		out   []string
		cur   strings.Builder
		delim = ";"
	)
	for line := range strings.Lines(sql) {
		t := strings.TrimSpace(line)
		if d, ok := strings.CutPrefix(t, "DELIMITER "); ok {
			delim = strings.TrimSpace(d)
			continue
		}
		if cur.Len() == 0 && (t == "" || strings.HasPrefix(t, "--")) {
			continue
		}
		if s, ok := strings.CutSuffix(t, delim); ok && (delim != ";" || !strings.HasPrefix(t, "--")) {
			cur.WriteString(strings.TrimSuffix(strings.TrimRight(line, "\r\n"), t) + s)
			if st := strings.TrimSpace(cur.String()); st != "" {
				out = append(out, st)
			}
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	if st := strings.TrimSpace(cur.String()); st != "" {
		out = append(out, st)
	}
	return out
}
