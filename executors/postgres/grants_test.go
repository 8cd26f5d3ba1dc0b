package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testwait"
)

// The SQL blocks of docs/postgres.md's section "Roles and grants", in
// order: the Migrate role's, then the executor's grants for the default
// options and for a schema of its own.
const (
	blockMigrator = iota
	blockPublic
	blockOwnSchema
	docBlocks
)

// ownSchema is the schema of the docs' example of a schema of its own.
const ownSchema = "locking"

// grantBlocks returns the SQL blocks of docs/postgres.md's section "Roles and grants".
func grantBlocks(t *testing.T) []string {
	return exectest.SQLBlocks(t, "../../docs/postgres.md", "Roles and grants", docBlocks)
}

// TestGrants_docs: the docs' grant lines are those of postgres.Grants, so
// that Check, which names what is missing from them, and the docs agree.
func TestGrants_docs(t *testing.T) {
	blocks := grantBlocks(t)
	for i, o := range map[int]postgres.Options{blockPublic: {}, blockOwnSchema: {Schema: ownSchema}} {
		want, err := postgres.Grants(o, "app")
		if err != nil {
			t.Fatal(err)
		}
		if blocks[i] != want {
			t.Errorf("docs/postgres.md's grants for Schema %q differ from postgres.Grants(opts, \"app\"):\n%s\nwant:\n%s", o.Schema, blocks[i], want)
		}
	}
}

// TestGrants_public: a role with exactly the docs' grant lines, and the
// rights PostgreSQL gives every role, runs Migrate after an
// administrator did (creating nothing) and every operation of the
// executor on the default tables.
func TestGrants_public(t *testing.T) {
	admin := newPool(t, server(t).Addr())
	blocks := grantBlocks(t)
	newRole(t, admin, "app")
	run(t, admin, blocks[blockPublic])
	app := rolePool(t, "app")
	if err := postgres.Migrate(t.Context(), app, postgres.Options{}); err != nil {
		t.Fatalf("Migrate by the app role after the administrator's = %v", err)
	}
	exercise(t, app, postgres.Options{})
}

// TestGrants_ownSchema: in a schema of its own, a role with only the
// docs' USAGE and CREATE runs Migrate and owns what it created; a role
// with exactly the docs' grant lines, run by an administrator (the
// functions not executable by PUBLIC), runs Migrate again and every
// operation of the executor; and each right taken away is named by Check
// and refused at the first Acquire.
func TestGrants_ownSchema(t *testing.T) {
	admin := newPool(t, server(t).Addr())
	blocks := grantBlocks(t)
	run(t, admin, "DROP SCHEMA IF EXISTS "+ownSchema+" CASCADE")
	newRole(t, admin, "migrator")
	newRole(t, admin, "app")
	run(t, admin, "CREATE SCHEMA "+ownSchema)
	t.Cleanup(func() { run(t, admin, "DROP SCHEMA IF EXISTS "+ownSchema+" CASCADE") })
	run(t, admin, blocks[blockMigrator])
	o := postgres.Options{Schema: ownSchema}
	migrator := rolePool(t, "migrator")
	if err := postgres.Migrate(t.Context(), migrator, o); err != nil {
		t.Fatalf("Migrate by a role with the documented USAGE and CREATE = %v", err)
	}
	everyObject(t, admin, blocks[blockOwnSchema])
	run(t, migrator, "REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA "+ownSchema+" FROM PUBLIC")
	run(t, admin, blocks[blockOwnSchema])
	app := rolePool(t, "app")
	if err := postgres.Migrate(t.Context(), app, o); err != nil {
		t.Fatalf("Migrate by the app role after the migrator's = %v", err)
	}
	exercise(t, app, o)
	t.Run("missing", func(t *testing.T) { revokeEach(t, migrator, admin, app, o) })
}

// everyObject checks that grants has a line for each table, sequence and
// function Migrate created in ownSchema: none is left out of Grants (and
// Check) by how schema.sql writes it.
func everyObject(t *testing.T, admin *pgxpool.Pool, grants string) {
	t.Helper()
	var rels, funcs int
	err := admin.QueryRow(t.Context(), `SELECT
		(SELECT count(*) FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'S')),
		(SELECT count(*) FROM pg_proc WHERE pronamespace = $1::regnamespace)`, ownSchema).Scan(&rels, &funcs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(grants, " ON TABLE ") + strings.Count(grants, " ON SEQUENCE "); n != rels {
		t.Errorf("the grants name %d tables and sequences, Migrate created %d", n, rels)
	}
	if n := strings.Count(grants, " ON FUNCTION "); n != funcs {
		t.Errorf("the grants name %d functions, Migrate created %d", n, funcs)
	}
}

// revokeEach takes one right at a time away from the role "app" (as
// owner, the objects' owner, or admin, for the schema) and checks that
// Check names it with the line that grants it back, and that a new
// executor's first Acquire fails with ErrInvalidConfig and takes nothing.
func revokeEach(t *testing.T, owner, admin, app *pgxpool.Pool, o postgres.Options) {
	s := ownSchema + "."
	for _, c := range []struct {
		by            *pgxpool.Pool
		revoke, names string
	}{
		{owner, "DELETE ON " + s + "lock4go_locks", `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "locking".lock4go_locks TO "app";`},
		{owner, "SELECT ON " + s + "lock4go_shares", `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "locking".lock4go_shares TO "app";`},
		{owner, "DELETE ON " + s + "lock4go_waiters", `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "locking".lock4go_waiters TO "app";`},
		{owner, "INSERT ON " + s + "lock4go_waiters", `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "locking".lock4go_waiters TO "app";`},
		{owner, "USAGE ON SEQUENCE " + s + "lock4go_arrival", `GRANT USAGE ON SEQUENCE "locking".lock4go_arrival TO "app";`},
		{owner, "EXECUTE ON FUNCTION " + s + "lock4go_release", `GRANT EXECUTE ON FUNCTION "locking".lock4go_release(text, text, bigint, text) TO "app";`},
		{admin, "USAGE ON SCHEMA " + ownSchema, `GRANT USAGE ON SCHEMA "locking" TO "app";`},
	} {
		t.Run(c.revoke, func(t *testing.T) {
			run(t, c.by, "REVOKE "+c.revoke+" FROM app")
			defer run(t, c.by, "GRANT "+c.revoke+" TO app")
			err := postgres.Check(t.Context(), app, o)
			if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), c.names) {
				t.Fatalf("Check = %v, want ErrInvalidConfig naming %s", err, c.names)
			}
			e := newExecutor(t, app, o)
			key := uniq(t, "revoked:")
			if l, err := e.Acquire(t.Context(), req(key, time.Minute)); !errors.Is(err, executor.ErrInvalidConfig) {
				if err == nil {
					_ = l.Release(t.Context())
				}
				t.Fatalf("first Acquire = %v, want ErrInvalidConfig", err)
			}
			var n int
			if err := admin.QueryRow(t.Context(), "SELECT count(*) FROM "+s+"lock4go_locks WHERE key = $1", key).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d rows of the refused key (%v), want none", n, err)
			}
		})
	}
}

// exercise runs, through pool, every operation of the executor with
// options o: locks handed from one Template to a waiting other, read
// locks with a writer waiting behind them, permits, renewals, Inspect,
// ForceRelease and a sweep.
func exercise(t *testing.T, pool *pgxpool.Pool, o postgres.Options) {
	t.Helper()
	ea, eb := newExecutor(t, pool, o), newExecutor(t, pool, o)
	cfg := lock4go.Config{Expire: 900 * time.Millisecond, AcquireTimeout: 10 * time.Second, Logger: testLogger(t)}
	a, err := lock4go.New(cfg, ea)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lock4go.New(cfg, eb)
	if err != nil {
		t.Fatal(err)
	}
	handOff(t, a, b, uniq(t, "grants-lock:"))
	handOff(t, a, b, uniq(t, "grants-read:"), lock4go.Shared())
	permits(t, a, uniq(t, "grants-permits:"))
	key := uniq(t, "grants-force:")
	l, err := a.Lock(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(10*time.Second, func() bool { return renewals(a, key) > 0 }) {
		t.Fatalf("no renewal of %q: Err = %v", key, l.Err())
	}
	h, err := eb.Inspect(t.Context(), key)
	if err != nil || h.Owner != l.Owner() {
		t.Fatalf("Inspect = %+v, %v; want the holder", h, err)
	}
	if err := eb.ForceRelease(t.Context(), key, h); err != nil {
		t.Fatalf("ForceRelease = %v", err)
	}
	if err := eb.Sweep(t.Context()); err != nil {
		t.Fatalf("Sweep = %v", err)
	}
}

// handOff takes key with opts on a, queues b's Lock of key (a write lock)
// behind it, and checks that a's release hands it to b.
func handOff(t *testing.T, a, b *lock4go.Template, key string, opts ...lock4go.LockOption) {
	t.Helper()
	l, err := a.Lock(t.Context(), key, opts...)
	if err != nil {
		t.Fatalf("Lock(%q) = %v", key, err)
	}
	got := make(chan error, 1)
	go func() {
		w, err := b.Lock(t.Context(), key)
		if err == nil {
			err = w.Release(t.Context())
		}
		got <- err
	}()
	if !testwait.Until(10*time.Second, func() bool {
		h, err := b.Inspect(t.Context(), key)
		return err == nil && h.Waiters == 1
	}) {
		t.Fatalf("the waiter of %q did not queue", key)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release(%q) = %v", key, err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiter's Lock(%q) = %v", key, err)
	}
}

// permits takes both permits of a semaphore of two on key, is refused a
// third, and releases them.
func permits(t *testing.T, tpl *lock4go.Template, key string) {
	t.Helper()
	var held []*lock4go.Lock
	for range 2 {
		l, err := tpl.Lock(t.Context(), key, lock4go.WithPermits(2))
		if err != nil {
			t.Fatalf("permit = %v", err)
		}
		held = append(held, l)
	}
	if _, err := tpl.TryLock(t.Context(), key, lock4go.WithPermits(2)); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("third permit of two = %v, want ErrNotAcquired", err)
	}
	for _, l := range held {
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// newRole creates the login role name on the server of admin, without a
// right of its own, and drops it (and what it owns or was granted) at the
// end of the test.
func newRole(t *testing.T, admin *pgxpool.Pool, name string) {
	t.Helper()
	drop := func() {
		run(t, admin, `DO $$ BEGIN
			IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '`+name+`') THEN
				DROP OWNED BY `+name+` CASCADE; DROP ROLE `+name+`;
			END IF; END $$`)
	}
	drop()
	run(t, admin, "CREATE ROLE "+name+" LOGIN")
	t.Cleanup(drop)
}

// rolePool returns a pool of connections to the server as role.
func rolePool(t *testing.T, role string) *pgxpool.Pool {
	return newPoolWith(t, server(t).Addr(), func(c *pgxpool.Config) { c.ConnConfig.User = role })
}

// run runs sql (one or more statements) through pool.
func run(t testing.TB, pool *pgxpool.Pool, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 30*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// renewals returns the watchdog's renewals of the lock tpl holds on key.
func renewals(tpl *lock4go.Template, key string) int {
	for _, li := range tpl.Snapshot().Held {
		if li.Key == key {
			return li.Renewals
		}
	}
	return 0
}
