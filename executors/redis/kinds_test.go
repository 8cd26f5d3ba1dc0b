package redis_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

// kindsTemplates returns n Templates, each over an executor with its own
// client: n processes on one server.
func kindsTemplates(t *testing.T, n int) ([]*lock4go.Template, *goredis.Client) {
	t.Helper()
	srv := server(t)
	var tpls []*lock4go.Template
	for range n {
		e := newExecutor(t, newClient(t, srv.Addr(), ctxTimeouts), redis.Options{})
		tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: 20 * time.Second, Logger: testLogger(t)}, e)
		if err != nil {
			t.Fatal(err)
		}
		tpls = append(tpls, tpl)
	}
	return tpls, newClient(t, srv.Addr())
}

// Readers queued behind a writer are woken together at its release, and
// a writer queued behind readers gets the key when the last one leaves.
func TestKinds_readersWokenTogether(t *testing.T) {
	tpls, _ := kindsTemplates(t, 4)
	ctx := t.Context()
	key := uniq(t, "rw")
	w, err := tpls[0].Lock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	readers := make(chan *lock4go.Lock, 3)
	for _, tpl := range tpls[1:] {
		go func() {
			l, err := tpl.Lock(ctx, key, lock4go.Shared())
			if err != nil {
				t.Error(err)
			}
			readers <- l
		}()
	}
	waitQueued(t, tpls[0], key, 3)
	if err := w.Release(ctx); err != nil {
		t.Fatal(err)
	}
	var held []*lock4go.Lock
	for range 3 {
		held = append(held, <-readers) // all three hold at once: none released yet
	}
	h, err := tpls[0].Inspect(ctx, key)
	if err != nil || h.Kind != lock4go.KindRead || len(h.Holders) != 3 {
		t.Fatalf("Inspect = %+v, %v; want 3 readers", h, err)
	}
	writerAfterReaders(t, tpls, key, held)
}

// writerAfterReaders checks that a writer of tpls[0] that waits for
// key, held by the readers held, keeps a new reader out and is granted
// only once every reader released.
func writerAfterReaders(t *testing.T, tpls []*lock4go.Template, key string, held []*lock4go.Lock) {
	t.Helper()
	ctx := t.Context()
	writer := make(chan *lock4go.Lock, 1)
	go func() {
		l, err := tpls[0].Lock(ctx, key)
		if err != nil {
			t.Error(err)
		}
		writer <- l
	}()
	waitQueued(t, tpls[0], key, 1)
	if _, err := tpls[1].TryLock(ctx, key, lock4go.Shared()); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("a reader got in beside the waiting writer: %v", err)
	}
	for _, l := range held {
		select {
		case <-writer:
			t.Fatal("writer granted while readers hold")
		default:
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := (<-writer).Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitQueued waits until key's wait queue holds n executors.
func waitQueued(t *testing.T, tpl *lock4go.Template, key string, n int) {
	t.Helper()
	if !testwait.Until(10*time.Second, func() bool {
		h, err := tpl.Inspect(t.Context(), key)
		return err == nil && h.Waiters == n
	}) {
		h, err := tpl.Inspect(t.Context(), key)
		t.Fatalf("%q: %+v, %v; want %d queued", key, h, err, n)
	}
}

// Never more than n permits out, across processes and goroutines; each
// holder's token is above every earlier one.
func TestKinds_permitsBound(t *testing.T) {
	tpls, _ := kindsTemplates(t, 3)
	key := uniq(t, "sem")
	const n = 2
	var mu sync.Mutex
	inside, peak, total := 0, 0, 0
	var wg sync.WaitGroup
	for i := range 9 {
		tpl := tpls[i%len(tpls)]
		wg.Go(func() {
			for range 5 {
				err := tpl.Do(t.Context(), key, func(context.Context) error {
					mu.Lock()
					inside++
					total++
					peak = max(peak, inside)
					mu.Unlock()
					time.Sleep(2 * time.Millisecond) // work, so overlaps would show
					mu.Lock()
					inside--
					mu.Unlock()
					return nil
				}, lock4go.WithPermits(n))
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if peak > n || total != 45 {
		t.Fatalf("peak %d holders (want ≤ %d), %d runs (want 45)", peak, n, total)
	}
}

// A key is one kind at a time: a lock, a read-write lock, or a semaphore
// of one size.
func TestKinds_mismatch(t *testing.T) {
	tpls, _ := kindsTemplates(t, 2)
	ctx := t.Context()
	key := uniq(t, "kind")
	p, err := tpls[0].Lock(ctx, key, lock4go.WithPermits(3))
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string][]lock4go.LockOption{
		"lock":          nil,
		"read lock":     {lock4go.Shared()},
		"other permits": {lock4go.WithPermits(2)},
	} {
		if _, err := tpls[1].TryLock(ctx, key, opts...); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s on a 3-permit semaphore = %v, want ErrInvalidConfig", name, err)
		}
	}
	p.Release(ctx)
	l, err := tpls[1].Lock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpls[0].TryLock(ctx, key, lock4go.WithPermits(3)); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Errorf("permit on a held lock = %v, want ErrInvalidConfig", err)
	}
	l.Release(ctx)
}

// A read lock renewed by the watchdog outlives its TTL; one whose holder
// stops renewing frees the key when its lease ends.
func TestKinds_sharedRenewal(t *testing.T) {
	tpls, _ := kindsTemplates(t, 2)
	ctx := t.Context()
	key := uniq(t, "renew")
	tpl, err := lock4go.New(lock4go.Config{Expire: 900 * time.Millisecond, Logger: testLogger(t)}, newExecutor(t, newClient(t, server(t).Addr(), ctxTimeouts), redis.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	r, err := tpl.Lock(ctx, key, lock4go.Shared())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // over two leases long: renewals must have kept it
	if r.Err() != nil {
		t.Fatalf("renewed read lock lost: %v", r.Err())
	}
	if _, err := tpls[0].TryLock(ctx, key); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("writer got in beside a renewed reader: %v", err)
	}
	r.Release(ctx)
	fixed, err := tpls[0].Lock(ctx, key, lock4go.Shared(), lock4go.WithExpire(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	<-fixed.Done()
	w, err := tpls[1].Lock(ctx, key, lock4go.WithAcquireTimeout(5*time.Second))
	if err != nil {
		t.Fatalf("writer after the reader's fixed lease ended: %v", err)
	}
	w.Release(ctx)
}
