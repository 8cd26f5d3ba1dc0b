package shedlock

import "strings"

// Statements are one database's SQL for ShedLock's table, in ShedLock's
// usingDbTime mode (the database's clock decides). Each takes positional
// arguments in a fixed order; $1, $2, ... below stand for the database's
// placeholders.
type Statements struct {
	// Insert takes the job if it has no row, or (where the database can do
	// both in one statement) if its row has expired: ($1 name, $2
	// locked_by, $3 at-most-for in seconds). One row changed means taken.
	Insert string
	// Update takes the job if its row has expired; empty when Insert does
	// it. Same arguments as Insert.
	Update string
	// Extend sets lock_until to now plus $3 seconds where the row is this
	// holder's and has not expired ($1 name, $2 locked_by, $3 seconds): a
	// renewal, and a release at a time.
	Extend string
	// Unlock ends this holder's row now ($1 name, $2 locked_by), where it
	// has not expired.
	Unlock string
	// Token returns this holder's locked_at in microseconds ($1 name, $2
	// locked_by).
	Token string
	// Inspect returns locked_by, the remaining lease in milliseconds and
	// locked_at in microseconds of the job's live row ($1 name).
	Inspect string
}

// Postgres returns the statements for PostgreSQL, on table (ShedLock's
// default is "shedlock"; a schema-qualified name works). They are
// ShedLock's PostgresSqlServerTimeStatementsSource's, with its times in
// UTC, but for Unlock, Extend and Token, which also compare lock_until (an
// expired lease is reported as not held) or read locked_at.
func Postgres(table string) Statements {
	const now = "timezone('utc', CURRENT_TIMESTAMP)"
	r := strings.NewReplacer("{t}", table, "{now}", now)
	return Statements{
		Insert: r.Replace(`INSERT INTO {t}(name, lock_until, locked_at, locked_by) ` +
			`VALUES($1, {now} + make_interval(secs => $3), {now}, $2) ` +
			`ON CONFLICT (name) DO UPDATE SET lock_until = {now} + make_interval(secs => $3), ` +
			`locked_at = {now}, locked_by = $2 WHERE {t}.name = $1 AND {t}.lock_until <= {now}`),
		Extend: r.Replace(`UPDATE {t} SET lock_until = {now} + make_interval(secs => $3) ` +
			`WHERE name = $1 AND locked_by = $2 AND lock_until > {now}`),
		Unlock: r.Replace(`UPDATE {t} SET lock_until = {now} WHERE name = $1 AND locked_by = $2 AND lock_until > {now}`),
		Token: r.Replace(`SELECT (extract(epoch FROM locked_at) * 1000000)::bigint FROM {t} ` +
			`WHERE name = $1 AND locked_by = $2`),
		Inspect: r.Replace(`SELECT locked_by, (extract(epoch FROM lock_until - {now}) * 1000)::bigint, ` +
			`(extract(epoch FROM locked_at) * 1000000)::bigint FROM {t} WHERE name = $1 AND lock_until > {now}`),
	}
}

// PostgresSchema is ShedLock's table for PostgreSQL, as its documentation
// gives it, on table.
func PostgresSchema(table string) string {
	return `CREATE TABLE IF NOT EXISTS ` + table + ` (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, ` +
		`locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))`
}
