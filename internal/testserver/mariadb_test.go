package testserver

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// TestMariaDB_faults: the server answers as root over TCP, a pause freezes
// it, and a killed server keeps its committed rows when restarted (InnoDB
// recovers from its redo log).
func TestMariaDB_faults(t *testing.T) {
	t.Parallel()
	s, err := StartMariaDB()
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	db, err := sql.Open("mysql", MariaDBDSN(s.Addr(), "")+"&readTimeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (v int) ENGINE=InnoDB", "INSERT INTO d.t VALUES (42)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = db.QueryRowContext(pctx, "SELECT 1").Scan(new(int))
	pcancel()
	if err == nil {
		t.Fatal("the server answered while paused")
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := db.QueryRowContext(ctx, "SELECT v FROM d.t").Scan(&v); err != nil || v != 42 {
		t.Fatalf("after kill and restart: v = %d, %v; want 42", v, err)
	}
}
