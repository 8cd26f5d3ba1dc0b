package bench

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/internal/testserver"
)

var (
	redlockOnce sync.Once
	redlockEnv  *RedlockEnv
	redlockErr  error
)

// redlockMasters returns three masters shared by the package's Redlock
// tests and benchmarks, started on first use and stopped by TestMain.
func redlockMasters(tb testing.TB) *RedlockEnv {
	tb.Helper()
	redlockOnce.Do(func() { redlockEnv, redlockErr = StartRedlock(3) })
	testserver.Check(tb, redlockErr)
	return redlockEnv
}

// TestRedlock_interopRedsync takes one key alternately with lock4go's
// Redlock and with redsync's Mutex over the same three masters: while one
// holds it the other cannot take it, in both directions, and after the
// release the other can.
func TestRedlock_interopRedsync(t *testing.T) {
	e := redlockMasters(t)
	ours, err := redlock.New(e.Clients(), redlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	tpl, err := lock4go.New(lock4go.Config{}, ours)
	if err != nil {
		t.Fatal(err)
	}
	pools := make([]redsyncredis.Pool, len(e.Addrs))
	for i := range e.Addrs {
		pools[i] = redsyncgoredis.NewPool(e.Client(i))
	}
	rs := redsync.New(pools...)
	const key = "lockbench-interop:redsync"
	ctx := t.Context()

	// lock4go holds: redsync cannot take it.
	l, err := tpl.Lock(ctx, key, lock4go.WithAcquireTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	m := rs.NewMutex(key, redsync.WithTries(1), redsync.WithExpiry(10*time.Second))
	if err := m.LockContext(ctx); err == nil {
		t.Fatal("redsync took a key lock4go's Redlock holds")
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	// Released: redsync takes it, and lock4go cannot while it holds it.
	if err := m.LockContext(ctx); err != nil {
		t.Fatalf("redsync after lock4go's release: %v", err)
	}
	_, err = tpl.Lock(ctx, key, lock4go.WithAcquireTimeout(300*time.Millisecond))
	if !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("lock4go's Redlock while redsync holds the key = %v, want ErrNotAcquired", err)
	}
	if ok, err := m.UnlockContext(ctx); !ok || err != nil {
		t.Fatalf("redsync unlock = %v, %v", ok, err)
	}
	// redsync released by compare-and-delete: lock4go takes it (by polling:
	// redsync's release wakes nobody).
	l, err = tpl.Lock(ctx, key, lock4go.WithAcquireTimeout(time.Second))
	if err != nil {
		t.Fatalf("lock4go after redsync's release: %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRedlock is an uncontended Lock+Release through a Template: on
// one master alone (lock4go's Redis executor), on three with lock4go's
// Redlock, and on three with redsync. Targets: redlock ≤ 1.2× the single
// master and ≤ 1.0× redsync.
func BenchmarkRedlock(b *testing.B) {
	e := redlockMasters(b)
	subjects, err := RedlockSubjects(context.Background(), e)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		for _, s := range subjects {
			_ = s.Close()
		}
	}()
	for _, s := range subjects {
		b.Run(s.Name, func(b *testing.B) {
			l, err := s.Contender(0)
			if err != nil {
				b.Fatal(err)
			}
			key := "lockbench-redlock-go:" + s.Name
			ctx := context.Background()
			for b.Loop() {
				u, err := l.Lock(ctx, key)
				if err != nil {
					b.Fatal(err)
				}
				if err := u(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ executor.Executor = (*redlock.Executor)(nil)

// BenchmarkRedlockFloor is the raw floor of the Redlock comparison: SET NX
// PX and DEL on one master, and on three masters in parallel (a goroutine
// each), with no Lua, no token and no Template.
func BenchmarkRedlockFloor(b *testing.B) {
	e := redlockMasters(b)
	cs := e.Clients()
	ctx := context.Background()
	const key = "lockbench-redlock-floor"
	b.Run("1 master", func(b *testing.B) {
		for b.Loop() {
			if err := cs[0].SetNX(ctx, key, "x", time.Minute).Err(); err != nil {
				b.Fatal(err)
			}
			if err := cs[0].Del(ctx, key).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("3 masters in parallel", func(b *testing.B) {
		var wg sync.WaitGroup
		for b.Loop() {
			for _, del := range []bool{false, true} {
				for _, c := range cs {
					wg.Go(func() {
						if del {
							c.Del(ctx, key)
						} else {
							c.SetNX(ctx, key, "x", time.Minute)
						}
					})
				}
				wg.Wait()
			}
		}
	})
}
