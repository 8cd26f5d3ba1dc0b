package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	pgexec "github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
)

// startPostgres starts the PostgreSQL server of the tests and creates the
// executor's schema.
func startPostgres() (*testserver.Server, error) {
	s, err := testserver.StartPostgres()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, testserver.PostgresDSN(s.Addr()))
	if err == nil {
		err = pgexec.Migrate(ctx, pool, pgexec.Options{})
		pool.Close()
	}
	if err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

func pgCase() backendCase {
	addr := ""
	if pgSrv != nil {
		addr = pgSrv.Addr()
	}
	dsn := testserver.PostgresDSN(addr)
	return backendCase{kind: "postgres", flags: []string{"--postgres", dsn}, executor: func(t *testing.T) executor.Executor {
		pool, err := pgxpool.New(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		e, err := pgexec.New(pool, pgexec.Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(); pool.Close() })
		return e
	}}
}

// TestPostgres_missingGrants: a role without rights on the lock tables is
// stopped when the tool connects, with the GRANT statements to run,
// instead of failing later, call by call.
func TestPostgres_missingGrants(t *testing.T) {
	testserver.Check(t, pgErr)
	pool, err := pgxpool.New(t.Context(), testserver.PostgresDSN(pgSrv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), "DROP ROLE IF EXISTS cli_norights; CREATE ROLE cli_norights LOGIN"); err != nil {
		t.Fatal(err)
	}
	defer pool.Exec(context.WithoutCancel(t.Context()), "DROP ROLE IF EXISTS cli_norights")
	dsn := strings.Replace(testserver.PostgresDSN(pgSrv.Addr()), "postgres@", "cli_norights@", 1)
	r := runCLI(t, "", nil, "inspect", "--postgres", dsn, "k")
	wantCode(t, r, exitFailure)
	if want := `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE lock4go_locks TO "cli_norights";`; !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q lacks %q", r.stderr, want)
	}
}

// TestPostgres_readOnlyRole: an operator's role that may only inspect
// (USAGE on the schema, SELECT on the tables, EXECUTE on lock4go_inspect)
// runs inspect; release --force, which writes, is stopped with the grants
// it lacks.
func TestPostgres_readOnlyRole(t *testing.T) {
	testserver.Check(t, pgErr)
	pool, err := pgxpool.New(t.Context(), testserver.PostgresDSN(pgSrv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), `DROP ROLE IF EXISTS cli_viewer; CREATE ROLE cli_viewer LOGIN;
		GRANT USAGE ON SCHEMA public TO cli_viewer;
		GRANT SELECT ON lock4go_locks, lock4go_shares, lock4go_waiters, lock4go_voids TO cli_viewer;
		REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
		GRANT EXECUTE ON FUNCTION lock4go_inspect(text) TO cli_viewer`); err != nil {
		t.Fatal(err)
	}
	defer pool.Exec(context.WithoutCancel(t.Context()), `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO PUBLIC;
		DROP OWNED BY cli_viewer; DROP ROLE IF EXISTS cli_viewer`)
	dsn := strings.Replace(testserver.PostgresDSN(pgSrv.Addr()), "postgres@", "cli_viewer@", 1)

	held, free := uniqueKey(t), uniqueKey(t)
	l := hold(t, pgCase(), held)
	r := runCLI(t, "", nil, "inspect", "--postgres", dsn, held, free)
	wantCode(t, r, exitNotHeld)
	if !strings.Contains(r.stdout, l.Owner()) || strings.Contains(r.stderr, "GRANT") {
		t.Fatalf("inspect as a read-only role: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	r = runCLI(t, "y\n", nil, "release", "--force", "--postgres", dsn, held)
	wantCode(t, r, exitFailure)
	if want := `GRANT EXECUTE ON FUNCTION lock4go_release(text, text, bigint, text) TO "cli_viewer";`; !strings.Contains(r.stderr, want) {
		t.Fatalf("release as a read-only role: stderr %q lacks %q", r.stderr, want)
	}
}
