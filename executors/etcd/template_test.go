package etcd_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// Through the Template: a watchdog lock whose lease is revoked from outside
// cancels the holder's context with ErrLockLost, and a waiter on another
// Template gets the lock.
func TestTemplate_Do_leaseRevoked(t *testing.T) {
	testserver.Check(t, srvErr)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cli := newClient(t, srv.Addr())
	cfg := lock4go.Config{Expire: 3 * time.Second, AcquireTimeout: 10 * time.Second, Logger: quiet}
	tplA, err := lock4go.New(cfg, newExec(t, cli, etcd.Options{Logger: quiet}))
	if err != nil {
		t.Fatal(err)
	}
	tplB, err := lock4go.New(cfg, newExec(t, newClient(t, srv.Addr()), etcd.Options{Logger: quiet}))
	if err != nil {
		t.Fatal(err)
	}
	k := uniqueKey(t)
	held := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- tplA.Do(t.Context(), k, func(ctx context.Context) error {
			close(held)
			<-ctx.Done()
			return context.Cause(ctx)
		})
	}()
	<-held
	waiter := make(chan error, 1)
	go func() {
		l, err := tplB.Lock(t.Context(), k)
		if err == nil {
			err = l.Release(t.Context())
		}
		waiter <- err
	}()
	waitEntries(t, cli, k, 2) // the waiter queued
	if _, err := cli.Revoke(t.Context(), entryLease(t, cli, k)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Do = %v, want ErrLockLost", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("holder's context not cancelled after its lease was revoked")
	}
	if err := <-waiter; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}
