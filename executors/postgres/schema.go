package postgres

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

// schemaSQL creates the tables, sequences and functions; {{t}}, {{i}} and
// {{c}} stand for the names of [names].
//
//go:embed schema.sql
var schemaSQL string

// names are the SQL names an executor uses, from [Options.Table] and
// [Options.Schema].
type names struct {
	table   string // prefix of tables, sequences and functions, schema-qualified: "lock4go_"
	index   string // prefix of index names (never qualified)
	channel string // prefix of wake channels: "lock4go_w_"
}

func newNames(o Options) names {
	n := names{table: o.Table + "_", index: o.Table + "_", channel: o.Table + "_w_"}
	if o.Schema != "" {
		n.table = quote(o.Schema) + "." + n.table
	}
	return n
}

// sql returns s with the placeholders of schema.sql replaced.
func (n names) sql(s string) string {
	return strings.NewReplacer("{{t}}", n.table, "{{i}}", n.index, "{{c}}", n.channel).Replace(s)
}

// versionMark starts the comment on the locks table that records which
// SQL created the objects: [Migrate] reads it to skip what is done.
const versionMark = "lock4go schema "

// ddl returns the SQL of [Schema] for the names n, and its version: a
// digest of the SQL, which its last statement records as the locks
// table's comment.
func (n names) ddl() (sql, version string) {
	sql = n.sql(schemaSQL)
	sum := sha256.Sum256([]byte(sql))
	version = hex.EncodeToString(sum[:8])
	sql += "\n-- The version of this SQL, which Migrate reads to skip what is done.\n" +
		"COMMENT ON TABLE " + n.table + "locks IS '" + versionMark + version + "';\n"
	return sql, version
}

// Schema returns the SQL that [Migrate] runs for opts (Table and Schema):
// the tables, sequences and functions of the executor, for those who apply
// migrations with a tool of their own. Every statement is idempotent
// (CREATE ... IF NOT EXISTS, CREATE OR REPLACE FUNCTION); the last one
// records the SQL's version as the comment of the locks table. It returns
// an error wrapping [executor.ErrInvalidConfig] for invalid options.
func Schema(opts Options) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	sql, _ := newNames(o).ddl()
	return sql, nil
}

// Migrate creates or updates the executor's tables, sequences and
// functions for opts (Table and Schema) through pool: the SQL of
// [Schema], in one transaction, unless the objects exist at this
// version already (the locks table's comment says so), and then runs
// [Check]. It is idempotent, and safe to run from several processes at
// once (it takes a transaction-scoped advisory lock named after the
// tables, released at its commit). The executor never creates anything
// itself; run Migrate (or apply [Schema]) once before use.
//
// The first run needs a role with USAGE and CREATE on the schema, which
// then owns the objects; a run that finds them at its version creates
// nothing and needs only the rights of [Grants], so the executor's role
// may run it after an administrator did. A run that must change objects
// another role owns fails with an error wrapping
// [executor.ErrInvalidConfig] saying to run it as their owner, as it does
// for a missing schema or right. docs/postgres.md has the SQL and the
// grants.
func Migrate(ctx context.Context, pool *pgxpool.Pool, opts Options) error {
	if pool == nil {
		return fmt.Errorf("postgres: migrate: nil pool: %w", executor.ErrInvalidConfig)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	n := newNames(o)
	ddl, version := n.ddl()
	current, err := schemaVersion(ctx, pool, n)
	if err == nil && current != version {
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return migrateTx(ctx, tx, o, n, ddl, version) })
	}
	if err != nil {
		return migrateErr(ctx, err, o, pool.Config().ConnConfig.User)
	}
	if err := check(ctx, pool, o); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	return nil
}

// migrateTx runs ddl of the given version in tx, under the advisory lock
// of o's objects, unless another Migrate has just done so.
func migrateTx(ctx context.Context, tx pgx.Tx, o Options, n names, ddl, version string) error {
	h := fnv.New64a()
	_, _ = h.Write([]byte("lock4go migrate " + o.Schema + "." + o.Table))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pgxExec, int64(h.Sum64())); err != nil {
		return err
	}
	if v, err := schemaVersion(ctx, tx, n); err != nil || v == version {
		return err
	}
	_, err := tx.Exec(ctx, ddl) // no arguments: the simple protocol, many statements
	return err
}

// rowQuerier is what [schemaVersion] reads through: a pool or a
// transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// schemaVersion returns the version the locks table's comment records, ""
// when the table or the comment is missing.
func schemaVersion(ctx context.Context, q rowQuerier, n names) (string, error) {
	var comment string
	err := q.QueryRow(ctx, "SELECT coalesce(obj_description(to_regclass($1), 'pg_class'), '')", pgxExec, n.table+"locks").Scan(&comment)
	v, _ := strings.CutPrefix(comment, versionMark)
	return v, err
}

// migrateErr is the error of a Migrate by role that failed with err.
func migrateErr(ctx context.Context, err error, o Options, role string) error {
	cerr := configError(err, func(code string) string {
		switch {
		case code == "42501":
			return fmt.Sprintf("the role %s may not create or change the objects: run Migrate as the role that owns them (the first to run it), or grant it GRANT USAGE, CREATE ON SCHEMA %s TO %s; (docs/postgres.md, \"Roles and grants\")",
				quote(role), grantSchema(o), quote(role))
		case code == "3F000" && o.Schema != "":
			return fmt.Sprintf("schema %s does not exist: create it (CREATE SCHEMA %s;)", quote(o.Schema), quote(o.Schema))
		}
		return connectionFix(code)
	})
	if cerr != nil {
		return fmt.Errorf("postgres: migrate: %w", cerr)
	}
	return fmt.Errorf("postgres: migrate: %w", queued.BackendErr(ctx, err))
}

// statements are the SQL the executor sends, each one statement that
// stands alone (autocommit): a call of one of the schema's functions.
type statements struct {
	acquire, acquireShare, release, void, leave string
	renew, inspect, stale, tidy, notify         string
}

func newStatements(n names) statements {
	t := n.table
	return statements{
		acquire:      "SELECT " + t + "acquire($1, $2, $3, $4, $5, $6, $7)",
		acquireShare: "SELECT " + t + "acquire_share($1, $2, $3, $4, $5, $6, $7, $8)",
		release:      "SELECT " + t + "release($1, $2, $3, $4)",
		void:         "SELECT " + t + "void($1, $2, $3, $4)",
		leave:        "SELECT " + t + "leave($1, $2, $3)",
		renew:        "SELECT " + t + "renew($1, $2, $3)",
		inspect:      "SELECT owner, token, ttl_ms, kind, waiters FROM " + t + "inspect($1)",
		stale:        "SELECT " + t + "stale($1, $2)",
		tidy:         "SELECT " + t + "tidy($1, $2)",
		notify:       "SELECT pg_notify($1, '')",
	}
}
