package mysql_test

import (
	"context"
	"database/sql"
	"os"
	"sync"
	"testing"
	"time"
)

// TestKill_sleepVersusLock measures why the wake connection waits for a
// named lock, not in SLEEP(): KILL QUERY, as releases ring a wake
// connection, of statements sleeping in SLEEP() against statements
// waiting for a named lock another connection holds, 8 targets and 8
// killers at once. A measurement for docs/mysql.md, not a rule of the
// executor: LOCK4GO_MYSQL_KILL=1.
func TestKill_sleepVersusLock(t *testing.T) {
	if os.Getenv("LOCK4GO_MYSQL_KILL") != "1" {
		t.Skip("a measurement for docs/mysql.md: LOCK4GO_MYSQL_KILL=1")
	}
	db := rootDB(t)
	anchor, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer anchor.Close()
	for i := range 8 {
		if _, err := anchor.ExecContext(t.Context(), "DO GET_LOCK(CONCAT('killtest', ?), 0)", i); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []struct {
		name string
		wait func(i int) string
	}{
		{"SLEEP(5)", func(int) string { return "SELECT SLEEP(5)" }},
		{"GET_LOCK(held, 5)", func(i int) string { return "SELECT GET_LOCK(CONCAT('killtest', " + fmtInt(int64(i)) + "), 5)" }},
	} {
		t.Logf("%s: slowest of 400 KILL QUERY %v", w.name, killTargets(t, db, w.wait))
	}
}

// killTargets runs wait(i) in a loop on 8 connections (i = 0..7) while 8
// goroutines kill their statements, 50 each, and returns the slowest KILL.
func killTargets(t *testing.T, db *sql.DB, wait func(i int) string) time.Duration {
	ctx, stop := context.WithCancel(t.Context())
	var targets sync.WaitGroup
	ids := make([]int64, 8)
	for i := range ids {
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.QueryRowContext(t.Context(), "SELECT CONNECTION_ID()").Scan(&ids[i]); err != nil {
			t.Fatal(err)
		}
		q := wait(i)
		targets.Go(func() {
			for ctx.Err() == nil {
				var v sql.NullInt64
				_ = conn.QueryRowContext(context.WithoutCancel(ctx), q).Scan(&v)
			}
		})
	}
	var (
		mu      sync.Mutex
		slowest time.Duration
		killers sync.WaitGroup
	)
	for k := range 8 {
		killers.Go(func() {
			for n := range 50 {
				time.Sleep(2 * time.Millisecond)
				start := time.Now()
				_, _ = db.ExecContext(t.Context(), "KILL QUERY "+fmtInt(ids[(k+n)%len(ids)]))
				mu.Lock()
				slowest = max(slowest, time.Since(start))
				mu.Unlock()
			}
		})
	}
	killers.Wait()
	stop()
	for _, id := range ids {
		_, _ = db.ExecContext(t.Context(), "KILL QUERY "+fmtInt(id))
	}
	targets.Wait()
	return slowest
}
