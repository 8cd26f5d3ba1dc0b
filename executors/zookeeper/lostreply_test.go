package zookeeper

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// TestExecutor_Acquire_lostCreateReplyLiveConn drops the reply to the lock
// node's create while the connection stays up, and lets Acquire give up:
// go-zookeeper would wait for that reply until the connection drops, which
// here it never does. The node the server created must still go, at once,
// so that another client gets the key. In the second case the replies to
// the clean-up's first search are lost too, and it must try again.
func TestExecutor_Acquire_lostCreateReplyLiveConn(t *testing.T) {
	addr := server(t)
	for _, tc := range []struct {
		name      string
		dropAfter time.Duration // how long replies stay dropped after Acquire returns
		wantStuck bool          // a clean-up step must be seen stuck and retried
	}{
		{"clean-up answered", 0, false},
		{"clean-up reply lost too", 1200 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := startProxy(t, addr)
			// The session outlives the drops, and go-zookeeper's read timeout
			// (two thirds of it, 2.7s) too: the connection never drops.
			e := newExecutor(t, dial(t, testSession, proxy.Addr()), Options{})
			other := newExecutor(t, dial(t, testSession, addr), Options{})
			key := "lost-create:" + t.Name()
			warm, err := e.Acquire(t.Context(), req(key, false)) // creates the parent
			if err != nil {
				t.Fatal(err)
			}
			if err := warm.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
			session := e.conn.SessionID()

			proxy.SetDropReplies(true)
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			_, err = e.Acquire(ctx, req(key, true))
			cancel()
			if !errors.Is(err, executor.ErrNotAcquired) {
				t.Fatalf("Acquire with its create reply lost = %v, want ErrNotAcquired", err)
			}
			// The server granted the lock to nobody.
			if _, err := other.Inspect(t.Context(), key); err != nil {
				t.Fatalf("Inspect = %v: the create never reached the server", err)
			}
			time.Sleep(tc.dropAfter) // the clean-up's first replies are lost too
			proxy.SetDropReplies(false)
			droppedUntil := time.Now()

			deadline := droppedUntil.Add(5 * time.Second)
			for {
				_, err := other.Inspect(t.Context(), key)
				if errors.Is(err, executor.ErrLockNotHeld) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("orphan lock node still queued 5s after the drops ended (Inspect: %v)", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Logf("orphan gone %v after the drops ended", time.Since(droppedUntil).Round(time.Millisecond))
			if got := e.conn.SessionID(); got != session {
				t.Fatalf("session changed (%x, was %x): the scenario needs a live connection", got, session)
			}
			if tc.wantStuck && e.stats.stuckSteps.Load() == 0 {
				t.Errorf("no clean-up step was retried after its reply was lost")
			}
			l, err := other.Acquire(t.Context(), req(key, false))
			if err != nil {
				t.Fatalf("another client cannot take the key: %v", err)
			}
			if err := l.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
