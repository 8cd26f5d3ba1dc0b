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
