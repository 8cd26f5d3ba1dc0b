package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

var errEmptyRole = fmt.Errorf("postgres: grants: empty role: %w", executor.ErrInvalidConfig)

// whereQuery finds the schema of the objects: $1 (by name), or when $1 is
// "" the schema in which search_path finds the table $2. It returns the
// role, the schema's name, whether the role may use it, and the schemas
// holding a table named $3 that the role may not use (search_path skips
// them).
const whereQuery = `SELECT current_user::text, coalesce(n.nspname::text, ''),
	coalesce(has_schema_privilege(n.oid, 'USAGE'), false),
	coalesce((SELECT array_agg(quote_ident(m.nspname) ORDER BY m.nspname) FROM pg_class c
		JOIN pg_namespace m ON m.oid = c.relnamespace
		WHERE c.relname = $3 AND NOT has_schema_privilege(m.oid, 'USAGE')), '{}')
FROM (SELECT CASE WHEN $1 = '' THEN (SELECT relnamespace FROM pg_class WHERE oid = to_regclass($2))
	ELSE (SELECT oid FROM pg_namespace WHERE nspname = $1) END AS oid) s
LEFT JOIN pg_namespace n ON n.oid = s.oid`

// rightsQuery answers, for each object $2 of kind $1 ('TABLE', 'SEQUENCE'
// or 'FUNCTION') and right $3, whether the role has it: NULL when the
// object does not exist.
const rightsQuery = `SELECT CASE o.kind
	WHEN 'TABLE' THEN has_table_privilege(to_regclass(o.name), o.priv)
	WHEN 'SEQUENCE' THEN has_sequence_privilege(to_regclass(o.name), o.priv)
	ELSE has_function_privilege(to_regprocedure(o.name), o.priv) END
FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS o(kind, name, priv, i)
ORDER BY o.i`

// Check tells whether the role of pool's connections may use what
// [Migrate] created for opts (Table and Schema), with two read-only
// statements: that the schema exists and the role may use it, that every
// table, sequence and function exists, and that the role has each right of
// [Grants] on them. It returns nil when all is there; an error wrapping
// [executor.ErrInvalidConfig] that names what is missing and the GRANT
// statements (or CREATE SCHEMA, or Migrate) that supply it; or one
// wrapping [executor.ErrBackend] when the database did not answer.
//
// [Migrate] and the lock4go command call it, and an [Executor] runs it
// once, before its first attempt: a role that could take a lock but
// not release it, or not queue for one, gets no lock.
func Check(ctx context.Context, pool *pgxpool.Pool, opts Options) error {
	if pool == nil {
		return fmt.Errorf("postgres: check: nil pool: %w", executor.ErrInvalidConfig)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	return check(ctx, pool, o)
}

// querier is what Check's statements run on: a pool or one of its
// connections.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// check is [Check] with o's defaults filled in.
func check(ctx context.Context, pool querier, o Options) error {
	n := newNames(o)
	var (
		role, schema string
		usable       bool
		hidden       []string
	)
	err := pool.QueryRow(ctx, whereQuery, pgxExec, o.Schema, o.Table+"_locks", o.Table+"_locks").Scan(&role, &schema, &usable, &hidden)
	if err != nil {
		return checkErr(ctx, err)
	}
	switch {
	case schema == "" && o.Schema != "":
		return fmt.Errorf("postgres: check: %w: schema %s does not exist: create it (CREATE SCHEMA %s;), then run postgres.Migrate with the same Table and Schema",
			executor.ErrInvalidConfig, quote(o.Schema), quote(o.Schema))
	case schema == "" && len(hidden) > 0:
		return fmt.Errorf("postgres: check: %w: the role %s may not use the schema of %s_locks (%s), so search_path skips it: run GRANT USAGE ON SCHEMA %s TO %s; or set Options.Schema",
			executor.ErrInvalidConfig, quote(role), o.Table, strings.Join(hidden, ", "), hidden[0], quote(role))
	case schema == "":
		return fmt.Errorf("postgres: check: %w: no table %s_locks in the schemas of search_path: run postgres.Migrate with the same Table and Schema", executor.ErrInvalidConfig, o.Table)
	case !usable:
		g := grants(n, quote(schema))[0]
		return fmt.Errorf("postgres: check: %w: the role %s lacks USAGE on schema %s: run %s", executor.ErrInvalidConfig, quote(role), quote(schema), g.sql(quote(role)))
	}
	return checkRights(ctx, pool, n, role, quote(schema))
}

// checkRights asks for every right of [Grants] on the objects but the
// schema, and reports the missing objects or rights.
func checkRights(ctx context.Context, pool querier, n names, role, schema string) error {
	gs := grants(n, schema)[1:]
	var kinds, objs, rights []string
	for _, g := range gs {
		for _, r := range g.rights {
			kinds, objs, rights = append(kinds, g.kind), append(objs, g.object), append(rights, r)
		}
	}
	rows, err := pool.Query(ctx, rightsQuery, pgxExec, kinds, objs, rights)
	if err != nil {
		return checkErr(ctx, err)
	}
	has, err := pgx.CollectRows(rows, pgx.RowTo[*bool])
	if err != nil {
		return checkErr(ctx, err)
	}
	if len(has) != len(objs) {
		return fmt.Errorf("postgres: check: %d answers for %d rights: %w", len(has), len(objs), executor.ErrBackend)
	}
	return missing(gs, has, role)
}

// missing reports what the answers has (one per right of gs, in order; nil
// for an object that does not exist) say is missing, or nil.
func missing(gs []grant, has []*bool, role string) error {
	var absent, lacks, run []string
	i := 0
	for _, g := range gs {
		var lacked []string
		for _, r := range g.rights {
			switch h := has[i]; {
			case h == nil:
				absent = append(absent, g.object)
			case !*h:
				lacked = append(lacked, r)
			}
			i++
		}
		if len(lacked) > 0 {
			lacks = append(lacks, strings.Join(lacked, ", ")+" on "+g.object)
			run = append(run, g.sql(quote(role)))
		}
	}
	switch {
	case len(absent) > 0:
		return fmt.Errorf("postgres: check: %w: %s does not exist: run postgres.Migrate with the same Table and Schema",
			executor.ErrInvalidConfig, strings.Join(dedup(absent), ", "))
	case len(lacks) > 0:
		return fmt.Errorf("postgres: check: %w: the role %s lacks %s: run (as the objects' owner; docs/postgres.md, \"Roles and grants\"):\n%s",
			executor.ErrInvalidConfig, quote(role), strings.Join(lacks, "; "), strings.Join(run, "\n"))
	}
	return nil
}

// dedup returns s without repeats, in order.
func dedup(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// checkErr is the error of a statement of Check that failed.
func checkErr(ctx context.Context, err error) error {
	if cerr := configError(err, connectionFix); cerr != nil {
		return fmt.Errorf("postgres: check: %w", cerr)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("postgres: check: %w", executor.GaveUp(ctx))
	}
	return fmt.Errorf("postgres: check: %w", queued.BackendErr(ctx, err))
}

// checkFirst runs [Check] before the executor's first acquisition: until
// it passes, every acquisition runs it, one at a time, and fails with its
// error, so that a role that could take a lock but not release it, or not
// queue for one, takes none. Once it passed, acquisitions pay nothing.
func (e *Executor) checkFirst(ctx context.Context) error {
	return e.checked.Run(ctx, func(ctx context.Context) error {
		conn, err := e.pool.Acquire(ctx)
		if err != nil {
			return e.noConnection(ctx, err)
		}
		defer conn.Release()
		cctx, cancel := e.core.CallContext(ctx)
		defer cancel()
		return check(cctx, conn, e.opts)
	})
}

// checkFailed is the error of an attempt on key whose [checkFirst]
// failed with err: a connection the server refused (a role or database
// that does not exist, a wrong password) is a wrong configuration too.
func (e *Executor) checkFailed(ctx context.Context, key string, err error) error {
	switch cerr := configError(err, e.fix); {
	case cerr != nil:
		return fmt.Errorf("postgres: acquire %q: %w", key, cerr)
	case errors.Is(err, errNotSent):
		return e.acquireErr(ctx, key, err)
	}
	return fmt.Errorf("postgres: acquire %q: %w", key, err)
}
