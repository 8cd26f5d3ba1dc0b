package reliability

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// postgresRows lists the rows of the default tables whose key contains
// name (every row when name is ""), as "locks/<key>",
// "shares/<key>/<owner>", "waiters/<key>/<member>:<kind>" and
// "voids/<owner>", with whether each is live (a writer, claim, share or
// queue entry that has not expired) and whether it ended without a
// release (expired, and for a key's row nothing live left of the key).
const postgresRows = `
SELECT 'locks/' || l.key, l.owner IS NOT NULL AND l.expires_at > clock_timestamp(),
	NOT (l.owner IS NOT NULL AND l.expires_at > clock_timestamp())
	AND NOT EXISTS (SELECT 1 FROM lock4go_shares s WHERE s.key = l.key AND s.expires_at > clock_timestamp())
	AND NOT EXISTS (SELECT 1 FROM lock4go_waiters w WHERE w.key = l.key AND w.expires_at > clock_timestamp())
FROM lock4go_locks l WHERE strpos(l.key, $1) > 0
UNION ALL
SELECT 'shares/' || key || '/' || owner, expires_at > clock_timestamp(), expires_at <= clock_timestamp()
FROM lock4go_shares WHERE strpos(key, $1) > 0
UNION ALL
SELECT 'waiters/' || key || '/' || member || ':' || kind, expires_at > clock_timestamp(), expires_at <= clock_timestamp()
FROM lock4go_waiters WHERE strpos(key, $1) > 0
UNION ALL
SELECT 'voids/' || owner, false, expires_at <= clock_timestamp()
FROM lock4go_voids WHERE $1 = ''`

// readPostgres fills inv with the rows of the keys containing name at addr.
func readPostgres(ctx context.Context, addr, name string, inv *inventory) error {
	return eachPostgresRow(ctx, addr, name, func(entry string, live, expired bool) {
		inv.Entries = append(inv.Entries, entry)
		if live {
			inv.LockNodes = append(inv.LockNodes, entry)
		}
		if expired {
			inv.Expired = append(inv.Expired, entry)
		}
	})
}

// eachPostgresRow calls fn for each row of postgresRows.
func eachPostgresRow(ctx context.Context, addr, name string, fn func(entry string, live, expired bool)) error {
	conn, err := pgx.Connect(ctx, PostgresDSN(addr))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, postgresRows, name)
	if err != nil {
		return err
	}
	var (
		entry         string
		live, expired bool
	)
	_, err = pgx.ForEachRow(rows, []any{&entry, &live, &expired}, func() error {
		fn(entry, live, expired)
		return nil
	})
	return err
}

// postgresResidue reports whether a PostgreSQL row may stay after every
// lock was released: a void marker, which ends by itself (its time is
// checked apart).
func postgresResidue(n string) bool { return strings.HasPrefix(n, "voids/") }

// tablesLeft checks what a space left on PostgreSQL or MySQL after its
// locks were released: expired rows only (on MySQL, the free rows of
// released keys too), each removed by a sweep. It describes them.
func tablesLeft(t *testing.T, s space, ex executor.Executor, inv inventory) string {
	t.Helper()
	if len(inv.Expired) != len(inv.Entries)-len(inv.LockNodes) {
		t.Errorf("%d rows neither live nor expired, of %d", len(inv.Entries)-len(inv.LockNodes)-len(inv.Expired), len(inv.Entries))
	}
	sw, ok := ex.(interface{ Sweep(context.Context) error })
	if !ok {
		t.Fatalf("%T has no Sweep", ex)
	}
	// A sweep skips a row another statement holds at that moment, and a
	// void of a lost reply still landing creates its key's row (free)
	// after it: what one sweep leaves, the next ones remove (make soak: one
	// row of 10 200 left after a single sweep on MySQL). A row that
	// outlives sweeps for 10 s is a failure.
	sweeps := 0
	var after inventory
	testwait.Every(10*time.Second, readStep, func() bool {
		if err := sw.Sweep(t.Context()); err != nil {
			t.Fatalf("Sweep = %v", err)
		}
		sweeps++
		after = s.inventory(t)
		return len(after.Entries) == 0
	})
	if len(after.Entries) != 0 {
		t.Errorf("%d rows left after %d sweeps in 10s, e.g. %q", len(after.Entries), sweeps, after.Entries[:min(3, len(after.Entries))])
	}
	return fmt.Sprintf("%d expired rows (queue entries of waiters that left, leases that ended), none after %d sweeps", len(inv.Expired), sweeps)
}
