package lock4go_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

// leader is one candidate of a Lead test: its own Template (a process) over
// a shared executor, and signals of its terms.
type leader struct {
	tpl     *lock4go.Template
	elected chan context.Context // each term's context
	stepFn  chan error           // what fn returns next: sent by the test
	done    chan error           // Lead's result
}

// campaign starts a candidate; it retries (and pauses after stepping down)
// every retry.
func campaign(t *testing.T, ctx context.Context, mem *memory.Executor, key string, retry time.Duration, opts ...lock4go.LockOption) *leader {
	t.Helper()
	tpl, err := lock4go.New(lock4go.Config{RetryInterval: retry}, mem)
	if err != nil {
		t.Fatal(err)
	}
	c := &leader{tpl: tpl, elected: make(chan context.Context), stepFn: make(chan error), done: make(chan error, 1)}
	go func() {
		c.done <- tpl.Lead(ctx, key, func(ctx context.Context) error {
			c.elected <- ctx
			select {
			case err := <-c.stepFn:
				return err
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}, opts...)
	}()
	return c
}

func TestLead_handsOverWhenLeaderStepsDown(t *testing.T) {
	mem := memory.New(memory.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// a pauses long after stepping down; b, woken by the release, takes
	// over well before.
	a := campaign(t, ctx, mem, "leader", time.Second)
	actx := <-a.elected
	b := campaign(t, ctx, mem, "leader", 5*time.Millisecond)

	// Inspect tells who leads: the holder is a's term.
	h, err := a.tpl.Inspect(ctx, "leader")
	if err != nil {
		t.Fatal(err)
	}
	term := lock4go.LockFrom(actx, "leader")
	if term == nil || h.Owner != term.Owner() || h.Token != term.Token() {
		t.Fatalf("Inspect = %+v, leader's term = %v", h, term)
	}
	select {
	case <-b.elected:
		t.Fatal("two leaders")
	default:
	}

	// a steps down (fn returns nil): b, which waits, leads.
	a.stepFn <- nil
	bctx := <-b.elected
	if next := lock4go.LockFrom(bctx, "leader"); next.Token() <= term.Token() {
		t.Fatalf("new leader's token %d not above %d", next.Token(), term.Token())
	}
	b.stepFn <- nil
	select { // someone leads again: b stepped down, not out
	case <-a.elected:
	case <-b.elected:
	}

	// ctx ends: every Lead returns its cause and the key is free.
	cancel()
	for _, c := range []*leader{a, b} {
		if err := <-c.done; !errors.Is(err, context.Canceled) {
			t.Errorf("Lead after cancel = %v, want context.Canceled", err)
		}
	}
	if _, err := a.tpl.Inspect(t.Context(), "leader"); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("Inspect after both stopped = %v, want ErrLockNotHeld", err)
	}
}

func TestLead_fnErrorEndsCampaign(t *testing.T) {
	mem := memory.New(memory.Options{})
	a := campaign(t, t.Context(), mem, "leader", 5*time.Millisecond)
	<-a.elected
	boom := errors.New("boom")
	a.stepFn <- boom
	if err := <-a.done; !errors.Is(err, boom) {
		t.Fatalf("Lead = %v, want fn's error", err)
	}
	if _, err := a.tpl.Inspect(t.Context(), "leader"); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("key still held after the leader failed: %v", err)
	}
}

// A lost leadership cancels the term with ErrLockLost, and Lead campaigns
// again.
func TestLead_lossCampaignsAgain(t *testing.T) {
	mem := memory.New(memory.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a := campaign(t, ctx, mem, "leader", 5*time.Millisecond, lock4go.WithExpire(time.Hour))
	actx := <-a.elected
	h, err := mem.Inspect(ctx, "leader")
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.ForceRelease(ctx, "leader", h); err != nil {
		t.Fatal(err)
	}
	<-actx.Done()
	if !errors.Is(context.Cause(actx), lock4go.ErrLockLost) {
		t.Fatalf("term's cause = %v, want ErrLockLost", context.Cause(actx))
	}
	<-a.elected // campaigned again and won
	cancel()
	if err := <-a.done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Lead = %v", err)
	}
}

func TestLead_badInput(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	fn := func(context.Context) error { return nil }
	for _, c := range []struct {
		name string
		key  string
		fn   func(context.Context) error
		opts []lock4go.LockOption
		want error
	}{
		{"nil fn", "k", nil, nil, lock4go.ErrInvalidConfig},
		{"empty key", "", fn, nil, lock4go.ErrInvalidKey},
		{"bad expire", "k", fn, []lock4go.LockOption{lock4go.WithExpire(-1)}, lock4go.ErrInvalidConfig},
		{"unknown executor", "k", fn, []lock4go.LockOption{lock4go.WithExecutor("x")}, lock4go.ErrUnknownExecutor},
	} {
		if err := tpl.Lead(t.Context(), c.key, c.fn, c.opts...); !errors.Is(err, c.want) {
			t.Errorf("%s: Lead = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestLockFrom(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if lock4go.LockFrom(t.Context(), "k") != nil {
		t.Fatal("LockFrom of a plain context is not nil")
	}
	err := tpl.Do(t.Context(), "k", func(ctx context.Context) error {
		l := lock4go.LockFrom(ctx, "k")
		if l == nil || l.Key() != "k" || l.Token() <= 0 {
			t.Fatalf("LockFrom = %v", l)
		}
		if err := l.Release(ctx); !errors.Is(err, lock4go.ErrLockNotHeld) {
			t.Errorf("Release of LockFrom's handle = %v, want ErrLockNotHeld", err)
		}
		if _, err := tpl.TryLock(context.Background(), "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Errorf("lock released by LockFrom's handle: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
