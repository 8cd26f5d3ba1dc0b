package postgres_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/exectest"
)

// TestMigrate: Migrate is idempotent and safe to run from several
// processes at once; an executor with its own Table and Schema works on
// what Migrate created for them.
func TestMigrate(t *testing.T) {
	pool := newPool(t, server(t).Addr())
	if _, err := pool.Exec(t.Context(), "CREATE SCHEMA IF NOT EXISTS locks"); err != nil {
		t.Fatal(err)
	}
	o := postgres.Options{Table: "mig", Schema: "locks"}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = postgres.Migrate(t.Context(), newPool(t, server(t).Addr()), o) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Migrate = %v", err)
		}
	}
	if err := postgres.Migrate(t.Context(), pool, o); err != nil {
		t.Fatalf("Migrate again = %v", err)
	}
	o.Logger = testLogger(t)
	e := newExecutor(t, pool, o)
	l, err := e.Acquire(t.Context(), req(uniq(t, "mig:"), time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM locks.mig_locks").Scan(&n); err != nil || n != 1 {
		t.Fatalf("locks.mig_locks holds %d rows (%v), want the lock's", n, err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestAcquire_noSchema: an executor whose tables were never created fails
// with ErrInvalidConfig, naming Migrate, instead of retrying.
func TestAcquire_noSchema(t *testing.T) {
	e := newExecutor(t, newPool(t, server(t).Addr()), postgres.Options{Table: "never_migrated"})
	_, err := e.Acquire(t.Context(), req(uniq(t, "none:"), time.Minute))
	if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), "Migrate") {
		t.Fatalf("Acquire without the schema = %v, want ErrInvalidConfig naming Migrate", err)
	}
}

func TestNew_invalid(t *testing.T) {
	pool := newPool(t, server(t).Addr())
	tests := []struct {
		name string
		pool *pgxpool.Pool
		o    postgres.Options
	}{
		{"nil pool", nil, postgres.Options{}},
		{"typed nil pool", (*pgxpool.Pool)(nil), postgres.Options{}},
		{"negative claim window", pool, postgres.Options{ClaimWindow: -time.Second}},
		{"negative sweep interval", pool, postgres.Options{SweepInterval: -time.Second}},
		{"table with a quote", pool, postgres.Options{Table: `x"; DROP TABLE y; --`}},
		{"upper-case table", pool, postgres.Options{Table: "Locks"}},
		{"long table", pool, postgres.Options{Table: strings.Repeat("t", 33)}},
		{"bad schema", pool, postgres.Options{Schema: "a.b"}},
		{"bad listen DSN", pool, postgres.Options{ListenDSN: "postgres://[::1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := postgres.New(tc.pool, tc.o)
			if err == nil {
				_ = e.Close()
				t.Fatal("New succeeded")
			}
			if !errors.Is(err, executor.ErrInvalidConfig) {
				t.Fatalf("New = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestSchema(t *testing.T) {
	sql, err := postgres.Schema(postgres.Options{Table: "app_locks", Schema: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`CREATE TABLE IF NOT EXISTS "ops".app_locks_locks`, `"ops".app_locks_acquire(`, "'app_locks_w_'", `COMMENT ON TABLE "ops".app_locks_locks IS 'lock4go schema `} {
		if !strings.Contains(sql, want) {
			t.Errorf("Schema lacks %q", want)
		}
	}
	if strings.Contains(sql, "{{") {
		t.Error("Schema has a placeholder left")
	}
}

// TestSchema_docs: the appendix of docs/postgres.md is the schema of the
// default options, for those who apply it with their own tool.
// LOCK4GO_UPDATE_DOCS=1 writes it there.
func TestSchema_docs(t *testing.T) {
	sql, err := postgres.Schema(postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exectest.SchemaAppendix(t, "../../docs/postgres.md", sql, "LOCK4GO_UPDATE_DOCS=1 go test -run TestSchema_docs ./executors/postgres/")
}
