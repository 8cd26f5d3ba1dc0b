package postgres_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
)

// TestSchema_reservedWord: a Schema that is a reserved word of SQL is
// quoted in every statement: Migrate creates the objects there and the
// executor locks in them.
func TestSchema_reservedWord(t *testing.T) {
	admin := newPool(t, server(t).Addr())
	for _, schema := range []string{"user", "order", "select", "table"} {
		t.Run(schema, func(t *testing.T) {
			run(t, admin, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE; CREATE SCHEMA "`+schema+`"`)
			t.Cleanup(func() { run(t, admin, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`) })
			o := postgres.Options{Schema: schema}
			if err := postgres.Migrate(t.Context(), admin, o); err != nil {
				t.Fatalf("Migrate = %v", err)
			}
			e := newExecutor(t, admin, o)
			key := uniq(t, "reserved:")
			l, err := e.Acquire(t.Context(), req(key, time.Minute))
			if err != nil {
				t.Fatalf("Acquire = %v", err)
			}
			if h, err := e.Inspect(t.Context(), key); err != nil || h.Owner == "" {
				t.Fatalf("Inspect = %+v, %v", h, err)
			}
			if err := l.Release(t.Context()); err != nil {
				t.Fatalf("Release = %v", err)
			}
		})
	}
}

// TestSchema_system: a system schema is refused by New, Migrate, Schema
// and Check: objects in pg_temp vanish with the session that made them,
// and the others are PostgreSQL's own.
func TestSchema_system(t *testing.T) {
	pool := newPool(t, server(t).Addr())
	for _, schema := range []string{"pg_temp", "pg_temp_3", "pg_toast", "pg_catalog", "information_schema", "pg_mine"} {
		o := postgres.Options{Schema: schema}
		if e, err := postgres.New(pool, o); !errors.Is(err, executor.ErrInvalidConfig) {
			if err == nil {
				_ = e.Close()
			}
			t.Errorf("New with Schema %q = %v, want ErrInvalidConfig", schema, err)
		}
		if err := postgres.Migrate(t.Context(), pool, o); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("Migrate with Schema %q = %v, want ErrInvalidConfig", schema, err)
		}
		if _, err := postgres.Schema(o); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("Schema with Schema %q = %v, want ErrInvalidConfig", schema, err)
		}
	}
}

// TestTemplate_configErrors: a schema that does not exist, a role without
// rights on the tables, or one the server does not know, ends a Lock at
// its first attempt with ErrInvalidConfig saying what to do, instead of
// retrying until the acquire timeout and reporting ErrBackend.
func TestTemplate_configErrors(t *testing.T) {
	admin := newPool(t, server(t).Addr())
	newRole(t, admin, "norights")
	for _, c := range []struct {
		name string
		user string
		o    postgres.Options
		says string
	}{
		{"missing schema", "postgres", postgres.Options{Schema: "nosuch"}, `CREATE SCHEMA "nosuch"`},
		{"no rights", "norights", postgres.Options{}, `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE lock4go_locks TO "norights";`},
		{"unknown role", "ghost", postgres.Options{}, "check its user and password"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newExecutor(t, rolePool(t, c.user), c.o)
			tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: 20 * time.Second, Logger: testLogger(t)}, e)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			l, err := tpl.Lock(t.Context(), uniq(t, "config:"))
			if err == nil {
				_ = l.Release(t.Context())
				t.Fatal("Lock succeeded")
			}
			if !errors.Is(err, lock4go.ErrInvalidConfig) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), " 1 attempt ") {
				t.Fatalf("Lock = %v, want ErrInvalidConfig after 1 attempt saying %s", err, c.says)
			}
			t.Logf("refused in %v: %v", time.Since(start), err)
		})
	}
}

// TestAcquire_rightRevoked: a right taken away after the executor's check
// passed fails the statements that need it with ErrInvalidConfig, and
// the grant lines in the message.
func TestAcquire_rightRevoked(t *testing.T) {
	admin := newPool(t, server(t).Addr())
	newRole(t, admin, "revoked")
	g, err := postgres.Grants(postgres.Options{}, "revoked")
	if err != nil {
		t.Fatal(err)
	}
	run(t, admin, g)
	e := newExecutor(t, rolePool(t, "revoked"), postgres.Options{})
	key := uniq(t, "revoked:")
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	run(t, admin, "REVOKE DELETE ON lock4go_locks FROM revoked")
	err = l.Release(t.Context())
	if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE lock4go_locks") {
		t.Fatalf("Release without DELETE = %v, want ErrInvalidConfig with the grant lines", err)
	}
	run(t, admin, "GRANT DELETE ON lock4go_locks TO revoked")
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release once granted again = %v", err)
	}
}
