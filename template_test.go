package lock4go_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

func TestNew_defaults(t *testing.T) {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	c := tpl.Config()
	if c.Expire != 30*time.Second || c.AcquireTimeout != 3*time.Second || c.RetryInterval != 100*time.Millisecond ||
		c.KeyPrefix != "lock4go" || c.Primary != "memory" || c.ReleaseTimeout != 3*time.Second || c.Logger == nil {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestNew_invalid(t *testing.T) {
	mem := memory.New(memory.Options{})
	tests := []struct {
		name  string
		cfg   lock4go.Config
		execs []executor.Executor
		want  error
	}{
		{"negative expire", lock4go.Config{Expire: -1}, []executor.Executor{mem}, lock4go.ErrInvalidConfig},
		{"negative acquire timeout", lock4go.Config{AcquireTimeout: -time.Second}, []executor.Executor{mem}, lock4go.ErrInvalidConfig},
		{"negative retry interval", lock4go.Config{RetryInterval: -time.Second}, []executor.Executor{mem}, lock4go.ErrInvalidConfig},
		{"negative release timeout", lock4go.Config{ReleaseTimeout: -time.Second}, []executor.Executor{mem}, lock4go.ErrInvalidConfig},
		{"no executors", lock4go.Config{}, nil, lock4go.ErrInvalidConfig},
		{"nil executor", lock4go.Config{}, []executor.Executor{nil}, lock4go.ErrInvalidConfig},
		{"typed nil executor", lock4go.Config{}, []executor.Executor{(*memory.Executor)(nil)}, lock4go.ErrInvalidConfig},
		{"unnamed executor", lock4go.Config{}, []executor.Executor{&fakeExec{}}, lock4go.ErrInvalidConfig},
		{"duplicate names", lock4go.Config{}, []executor.Executor{mem, memory.New(memory.Options{})}, lock4go.ErrInvalidConfig},
		{"unknown primary", lock4go.Config{Primary: "redis"}, []executor.Executor{mem}, lock4go.ErrUnknownExecutor},
		{"queued, no waiter", lock4go.Config{}, []executor.Executor{queuedNoWaiter{&fakeExec{name: "q"}}}, lock4go.ErrInvalidConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := lock4go.New(tc.cfg, tc.execs...)
			if !errors.Is(err, tc.want) || tpl != nil {
				t.Fatalf("New = %v, %v; want %v", tpl, err, tc.want)
			}
		})
	}
}

func TestTemplate_executorSelection(t *testing.T) {
	redis := &fakeExec{name: "redis", prio: 100}
	etcd := &fakeExec{name: "etcd", prio: 300}
	mem := memory.New(memory.Options{})
	zk := &fakeExec{name: "zookeeper", prio: 200}
	tests := []struct {
		name    string
		primary string
		opt     lock4go.LockOption
		want    string
	}{
		{"priority picks redis", "", lock4go.LockOption{}, "redis"},
		{"config primary", "etcd", lock4go.LockOption{}, "etcd"},
		{"per call", "", lock4go.WithExecutor("zookeeper"), "zookeeper"},
		{"per call beats primary", "etcd", lock4go.WithExecutor("memory"), "memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := lock4go.New(lock4go.Config{Primary: tc.primary}, mem, etcd, zk, redis)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(tpl.ExecutorNames(), ","); got != "redis,zookeeper,etcd,memory" {
				t.Fatalf("Executors() = %s", got)
			}
			l, err := tpl.Lock(t.Context(), "k", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release(t.Context())
			if l.Executor() != tc.want {
				t.Fatalf("executor = %s, want %s", l.Executor(), tc.want)
			}
		})
	}
	tpl, _ := lock4go.New(lock4go.Config{}, mem)
	if _, err := tpl.Lock(t.Context(), "k", lock4go.WithExecutor("nope")); !errors.Is(err, lock4go.ErrUnknownExecutor) {
		t.Fatalf("unknown executor: %v", err)
	}
}

func TestTemplate_Lock_badInput(t *testing.T) {
	f := &fakeExec{name: "fake", prio: 1}
	tpl, err := lock4go.New(lock4go.Config{}, f)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		key  string
		opts []lock4go.LockOption
		want error
	}{
		{"empty key", "", nil, lock4go.ErrInvalidKey},
		{"NUL", "a\x00b", nil, lock4go.ErrInvalidKey},
		{"not UTF-8", "a\xffb", nil, lock4go.ErrInvalidKey},
		{"too long", strings.Repeat("k", lock4go.MaxKeyLen+1), nil, lock4go.ErrInvalidKey},
		{"negative expire", "k", []lock4go.LockOption{lock4go.WithExpire(-time.Second)}, lock4go.ErrInvalidConfig},
		{"negative acquire timeout", "k", []lock4go.LockOption{lock4go.WithAcquireTimeout(-1)}, lock4go.ErrInvalidConfig},
		{"negative retry interval", "k", []lock4go.LockOption{lock4go.WithRetryInterval(-1)}, lock4go.ErrInvalidConfig},
		{"unknown executor", "k", []lock4go.LockOption{lock4go.WithExecutor("x")}, lock4go.ErrUnknownExecutor},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []func() (*lock4go.Lock, error){
				func() (*lock4go.Lock, error) { return tpl.Lock(t.Context(), tc.key, tc.opts...) },
				func() (*lock4go.Lock, error) { return tpl.TryLock(t.Context(), tc.key, tc.opts...) },
			} {
				if l, err := call(); !errors.Is(err, tc.want) || l != nil {
					t.Fatalf("got %v, %v; want %v", l, err, tc.want)
				}
			}
			err := tpl.Do(t.Context(), tc.key, func(context.Context) error { return nil }, tc.opts...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Do = %v, want %v", err, tc.want)
			}
		})
	}
	if err := tpl.Do(t.Context(), "k", nil); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Fatalf("Do(nil) = %v", err)
	}
	if err := tpl.Release(t.Context(), nil); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Fatalf("Release(nil) = %v", err)
	}
	if n := len(f.attempts()); n != 0 {
		t.Fatalf("bad input reached the executor %d times", n)
	}
}

func TestLock_Release_cancelledContext(t *testing.T) {
	mem := memory.New(memory.Options{})
	tpl, _ := lock4go.New(lock4go.Config{}, mem)
	l, err := tpl.Lock(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release with a cancelled ctx = %v", err)
	}
	if _, err := mem.Inspect(t.Context(), "k"); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("key still held after Release: %v", err)
	}
	<-l.Done()
	if !errors.Is(l.Err(), lock4go.ErrLockNotHeld) || errors.Is(l.Err(), lock4go.ErrLockLost) {
		t.Fatalf("Err after release = %v", l.Err())
	}
	if err := l.Release(t.Context()); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("second Release = %v", err)
	}
}

func TestTemplate_Do_panicReleases(t *testing.T) {
	mem := memory.New(memory.Options{})
	tpl, _ := lock4go.New(lock4go.Config{}, mem)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recover() = %v, want boom", r)
			}
		}()
		_ = tpl.Do(t.Context(), "k", func(context.Context) error { panic("boom") })
	}()
	if _, err := mem.Inspect(t.Context(), "k"); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("key still held after a panic in Do: %v", err)
	}
}

func TestTemplate_Do_returnsFnError(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	want := errors.New("fn failed")
	if err := tpl.Do(t.Context(), "k", func(context.Context) error { return want }); !errors.Is(err, want) {
		t.Fatalf("Do = %v, want %v", err, want)
	}
}

func TestTemplate_Observer(t *testing.T) {
	var kinds []string
	obs := lock4go.ObserverFunc(func(_ context.Context, e lock4go.Event) { kinds = append(kinds, e.Kind.String()) })
	tpl, _ := lock4go.New(lock4go.Config{Observer: obs}, memory.New(memory.Options{}))
	l, err := tpl.Lock(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.TryLock(t.Context(), "k"); err == nil {
		t.Fatal("TryLock on a held key succeeded")
	}
	_ = l.Release(t.Context())
	if got := strings.Join(kinds, ","); got != "acquired,not_acquired,released" {
		t.Fatalf("events = %s", got)
	}
}

func TestTemplate_Inspect(t *testing.T) {
	mem := memory.New(memory.Options{})
	tpl, _ := lock4go.New(lock4go.Config{}, mem, &fakeExec{name: "fake", prio: 1000})
	if _, err := tpl.Inspect(t.Context(), "k"); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("Inspect free key = %v", err)
	}
	l, err := tpl.Lock(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if tpl.HeldLocks() != 1 {
		t.Fatalf("HeldLocks = %d", tpl.HeldLocks())
	}
	h, err := tpl.Inspect(t.Context(), "k")
	if err != nil || h.Owner != l.Owner() || h.Token != l.Token() {
		t.Fatalf("Inspect = %+v, %v", h, err)
	}
	if _, err := tpl.Inspect(t.Context(), "k", lock4go.WithExecutor("fake")); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Inspect on an executor without it = %v", err)
	}
	if _, err := tpl.Inspect(t.Context(), ""); !errors.Is(err, lock4go.ErrInvalidKey) {
		t.Fatalf("Inspect empty key = %v", err)
	}
	_ = l.Release(t.Context())
	if tpl.HeldLocks() != 0 {
		t.Fatalf("HeldLocks after release = %d", tpl.HeldLocks())
	}
}
