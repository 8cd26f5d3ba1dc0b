package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
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
		n.table = o.Schema + "." + n.table
	}
	return n
}

// sql returns s with the placeholders of schema.sql replaced.
func (n names) sql(s string) string {
	return strings.NewReplacer("{{t}}", n.table, "{{i}}", n.index, "{{c}}", n.channel).Replace(s)
}

// Schema returns the SQL that [Migrate] runs for opts (Table and Schema):
// the tables, sequences and functions of the executor, for those who apply
// migrations with a tool of their own. Every statement is idempotent
// (CREATE ... IF NOT EXISTS, CREATE OR REPLACE FUNCTION). It returns an
// error wrapping [executor.ErrInvalidConfig] for invalid options.
func Schema(opts Options) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	return newNames(o).sql(schemaSQL), nil
}

// Migrate creates or updates the executor's tables, sequences and
// functions for opts (Table and Schema) through pool, in one transaction:
// the SQL of [Schema]. It is idempotent, and safe to run from several
// processes at once (it takes a transaction-scoped advisory lock named
// after the tables, released at its commit). The executor never creates
// anything itself; run Migrate (or apply [Schema]) once before use, with a
// role that may create tables and functions. The SQL is in
// docs/postgres.md too.
func Migrate(ctx context.Context, pool *pgxpool.Pool, opts Options) error {
	if pool == nil {
		return fmt.Errorf("postgres: migrate: nil pool: %w", executor.ErrInvalidConfig)
	}
	ddl, err := Schema(opts)
	if err != nil {
		return err
	}
	o, _ := opts.withDefaults()
	h := fnv.New64a()
	_, _ = h.Write([]byte("lock4go migrate " + o.Schema + "." + o.Table))
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pgx.QueryExecModeExec, int64(h.Sum64())); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, ddl) // no arguments: the simple protocol, many statements
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w: %w", executor.ErrBackend, err)
	}
	return nil
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
		stale:        "SELECT " + t + "stale($1)",
		tidy:         "SELECT " + t + "tidy($1, $2)",
		notify:       "SELECT pg_notify($1, '')",
	}
}

// missingSchema reports whether err says the schema's functions or tables
// do not exist: Migrate has not run (or ran with other Options).
func missingSchema(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42883" || pe.Code == "42P01")
}
