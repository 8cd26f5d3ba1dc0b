package postgres_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// poolIn returns a pool of connections to addr whose sessions have the
// TimeZone tz, closed at the end of the test.
func poolIn(t *testing.T, addr, tz string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testserver.PostgresDSN(addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = tz
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// faketimeFile returns the path of a libfaketime spec file holding spec,
// which the server's user can read.
func faketimeFile(t *testing.T, spec string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lock4go-faketime-*") // t.TempDir's parent is the test's user's only
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "faketime")
	setFaketime(t, path, spec)
	return path
}

// setFaketime writes spec to the libfaketime spec file at path.
func setFaketime(t *testing.T, path, spec string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(spec+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestTimeZone: a lease is clock_timestamp() plus a number of milliseconds
// in a timestamptz, so the sessions' TimeZone changes nothing. The
// database's clock is set (libfaketime) 3 s before the daylight-saving
// change of Europe/Berlin on 29 March 2026; executors whose sessions are
// in Berlin, 14 hours east and 11 hours west of UTC share a key as any
// others: a two-day lease taken in Berlin has two days left (not one hour
// less), and a 4 s lease taken across the change ends after 4 s.
func TestTimeZone(t *testing.T) {
	t.Parallel() // on a server of its own
	change := time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)
	spec := faketimeFile(t, "+0")
	env, err := testserver.FaketimeFile(spec)
	testserver.Check(t, err)
	s, pool := ownServer(t, 4, env)
	// The server is up: its clock goes to 3 s before the change.
	setFaketime(t, spec, fmt.Sprintf("%+d", int64(change.Add(-3*time.Second).Sub(time.Now()).Seconds())))
	var now time.Time
	if err := pool.QueryRow(t.Context(), "SELECT clock_timestamp()").Scan(&now); err != nil {
		t.Fatal(err)
	}
	if d := change.Sub(now); d <= 0 || d > 4*time.Second {
		t.Fatalf("the database's clock says %v, want the 3 s before %v", now, change)
	}
	berlin := newExecutor(t, poolIn(t, s.Addr(), "Europe/Berlin"), postgres.Options{})
	east := newExecutor(t, poolIn(t, s.Addr(), "Pacific/Kiritimati"), postgres.Options{})
	west := newExecutor(t, poolIn(t, s.Addr(), "Pacific/Pago_Pago"), postgres.Options{})
	long, err := berlin.Acquire(t.Context(), req("tz:long", 48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if h, err := west.Inspect(t.Context(), "tz:long"); err != nil {
		t.Fatal(err)
	} else if d := 48*time.Hour - h.TTL; d < 0 || d > 5*time.Second {
		t.Errorf("a 48 h lease taken across the change has %v left, want 48 h less the seconds since", h.TTL)
	}
	start := time.Now()
	if _, err := east.Acquire(t.Context(), req("tz:short", 4*time.Second)); err != nil {
		t.Fatal(err)
	}
	var took time.Duration
	if !testwait.Until(20*time.Second, func() bool {
		l, err := berlin.Acquire(t.Context(), req("tz:short", time.Minute))
		if err != nil && !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatal(err)
		}
		took = time.Since(start)
		return err == nil && l.Release(t.Context()) == nil
	}) {
		t.Fatal("a 4 s lease taken across the change did not end")
	}
	t.Logf("a 4 s lease taken 3 s before the change ended after %v", took)
	if took < 3900*time.Millisecond || took > 6*time.Second {
		t.Errorf("a 4 s lease taken across the change ended after %v", took)
	}
	if err := long.Release(t.Context()); err != nil {
		t.Error(err)
	}
}
