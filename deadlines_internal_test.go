package lock4go

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

var errTestBound = errors.New("test bound")

// Calls ending in one step share a context that ends at the step's start,
// never after a call's own end; it is cancelled only when a later step has
// replaced it and its last call has left.
func TestJointBounds_join(t *testing.T) {
	s := newJointBounds(256*time.Second, errTestBound) // a step of 10 ms
	if s.step != maxStep {
		t.Fatalf("step %v, want %v", s.step, maxStep)
	}
	end := time.Now().Add(time.Hour)
	a := s.join(end)
	b := s.join(end.Add(s.step - (end.Sub(monoOrigin) % s.step) - 1)) // the step's last instant
	if a == nil || a != b {
		t.Fatalf("two calls ending in one step: %p and %p, want one joint bound", a, b)
	}
	d, ok := a.ctx.Deadline()
	if !ok || d.After(end) || !d.After(end.Add(-s.step)) {
		t.Fatalf("deadline %v for an end of %v: want at most the end, less than a step before it", d, end)
	}
	if s.join(end.Add(-s.step)) != nil {
		t.Fatal("a call ending before the current step shared it")
	}
	c := s.join(end.Add(s.step)) // replaces a
	if c == nil || c == a {
		t.Fatalf("a call in the next step got %p, want a new bound", c)
	}
	a.leave()
	if a.ctx.Err() != nil {
		t.Fatal("the replaced bound was cancelled while a call still used it")
	}
	b.leave()
	if !errors.Is(a.ctx.Err(), context.Canceled) {
		t.Fatalf("the replaced bound after its last call left: Err = %v, want Canceled", a.ctx.Err())
	}
	c.leave()
	if c.ctx.Err() != nil {
		t.Fatal("the current bound was cancelled when its calls left: a later call in its step would find it ended")
	}
	if again := s.join(end.Add(s.step)); again != c {
		t.Fatalf("a call in the current step got %p, want the current bound %p", again, c)
	}
}

// A joint bound ends at its deadline with the cause of its kind.
func TestJointBounds_deadline(t *testing.T) {
	s := newJointBounds(time.Second, errTestBound)
	b := s.join(time.Now().Add(50 * time.Millisecond))
	defer b.leave()
	<-b.ctx.Done()
	if cause := context.Cause(b.ctx); cause != errTestBound {
		t.Fatalf("cause %v, want %v", cause, errTestBound)
	}
	if !errors.Is(b.ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err %v, want DeadlineExceeded", b.ctx.Err())
	}
}

// Concurrent calls with rising ends: no call finds its bound cancelled
// while it uses it, and every replaced bound is cancelled once its calls
// have left.
func TestJointBounds_concurrent(t *testing.T) {
	s := newJointBounds(256*time.Millisecond, errTestBound) // a step of 1 ms
	base := time.Now().Add(time.Hour)
	var (
		mu   sync.Mutex
		seen = map[*jointBound]bool{}
		wg   sync.WaitGroup
	)
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				b := s.join(base.Add(time.Duration(i*8+g) * 50 * time.Microsecond))
				if b == nil {
					continue // a later step is current: the call makes its own
				}
				if b.ctx.Err() != nil {
					t.Error("a joined bound is cancelled")
				}
				mu.Lock()
				seen[b] = true
				mu.Unlock()
				b.leave()
			}
		})
	}
	wg.Wait()
	cur := s.cur.Load()
	for b := range seen {
		if b != cur && b.ctx.Err() == nil {
			t.Fatalf("a replaced bound (step %d, current %d) is not cancelled after its calls left", b.at, cur.at)
		}
	}
	if len(seen) < 2 {
		t.Fatalf("%d bounds, want the steps to move on", len(seen))
	}
}

// A bound of less than 256 ns is never joint.
func TestJointBounds_tiny(t *testing.T) {
	if b := newJointBounds(100, errTestBound).join(time.Now().Add(time.Second)); b != nil {
		t.Fatal("joined a bound with a step of 0")
	}
}

type valueKey struct{}

// A joint bound with a caller's values answers as the bound of
// context.WithoutCancel(values) would: the bound's deadline, end and cause,
// the caller's values, not the caller's cancellation; and a context derived
// from it ends with the bound.
func TestJointBound_with(t *testing.T) {
	s := newJointBounds(time.Second, errTestBound)
	caller, cancelCaller := context.WithCancel(context.WithValue(context.Background(), valueKey{}, "v"))
	b := s.join(time.Now().Add(100 * time.Millisecond))
	defer b.leave()
	if b.with(context.Background()) != b.ctx {
		t.Fatal("a joint bound on context.Background is not the bound itself")
	}
	ctx := b.with(caller)
	if ctx.Value(valueKey{}) != "v" {
		t.Fatalf("Value = %v, want the caller's value", ctx.Value(valueKey{}))
	}
	if d, _ := ctx.Deadline(); d != mustDeadline(t, b.ctx) {
		t.Fatalf("deadline %v, want the bound's", d)
	}
	cancelCaller()
	if ctx.Err() != nil {
		t.Fatal("the caller's cancellation ended a detached joint bound")
	}
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	<-child.Done()
	if ctx.Err() == nil || context.Cause(ctx) != errTestBound || context.Cause(child) != errTestBound {
		t.Fatalf("after the bound: Err %v, Cause %v, child's Cause %v; want the bound's cause %v", ctx.Err(), context.Cause(ctx), context.Cause(child), errTestBound)
	}
}

func mustDeadline(t *testing.T, ctx context.Context) time.Time {
	t.Helper()
	d, ok := ctx.Deadline()
	if !ok {
		t.Fatal("no deadline")
	}
	return d
}
