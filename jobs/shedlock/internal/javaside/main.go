// Command javaside is ShedLock's side of the interop tests: it takes a
// job's lock with the statements and commands ShedLock's own source issues
// (its JdbcTemplate provider with usingDbTime on PostgreSQL, its Redis
// provider), holds it until its standard input closes, and unlocks it as
// ShedLock does. No ShedLock jar can be had here; this is its protocol,
// written from its source, in a process of its own.
//
//	javaside -backend postgres|redis -addr HOST:PORT -name JOB -atmost 10s -atleast 1s
//
// It prints "locked" or "skipped", and "unlocked" after the unlock.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	backend := flag.String("backend", "postgres", "postgres or redis")
	addr := flag.String("addr", "", "the server's address")
	name := flag.String("name", "", "the job's name")
	atMost := flag.Duration("atmost", 10*time.Second, "lockAtMostFor")
	atLeast := flag.Duration("atleast", 0, "lockAtLeastFor")
	safe := flag.Bool("safe", true, "Redis: ShedLock's safeUpdate")
	flag.Parse()
	ctx := context.Background()
	var p provider
	var err error
	switch *backend {
	case "postgres":
		p, err = newJDBC(ctx, *addr)
	case "redis":
		p = newRedis(*addr, *safe)
	default:
		err = fmt.Errorf("unknown backend %q", *backend)
	}
	if err == nil {
		err = run(ctx, p, lockConfig{name: *name, atMostFor: *atMost, atLeastFor: *atLeast, createdAt: time.Now()})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "javaside:", err)
		os.Exit(1)
	}
}

// lockConfig is ShedLock's LockConfiguration.
type lockConfig struct {
	name                  string
	atMostFor, atLeastFor time.Duration
	createdAt             time.Time
}

// provider is ShedLock's LockProvider, with its SimpleLock's unlock.
type provider interface {
	lock(ctx context.Context, c lockConfig) (bool, error)
	unlock(ctx context.Context, c lockConfig) error
}

// run locks, holds until stdin closes, and unlocks.
func run(ctx context.Context, p provider, c lockConfig) error {
	ok, err := p.lock(ctx, c)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Println("skipped")
		return nil
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	if err := p.unlock(ctx, c); err != nil {
		return err
	}
	fmt.Println("unlocked")
	return nil
}
