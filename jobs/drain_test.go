package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/reliability"
	"github.com/lock4go/lock4go/internal/testkey"
	"github.com/lock4go/lock4go/jobs"
)

// TestDrain is a process shutting down right after a job ran with
// AtLeastFor: Drain, then its executor closed. Another instance is
// refused the job until its at-least-for end. On etcd and ZooKeeper, whose
// leases cannot be shortened, this process keeps the lock, so Drain waits
// for that end (and a Drain whose context ends first says so); on the
// others the backend keeps the job by itself and Drain does not wait.
// Without Drain, Close frees an etcd or ZooKeeper job at once: under make
// test-under-load a fleet's instance stopped 139 ms into a tick's
// at-least-for, and another ran the tick again (TestFleet_eachTickOnce).
func TestDrain(t *testing.T) {
	forEach(t, func(t *testing.T, b *backend) {
		if b.kind == reliability.Memory {
			t.Skip("the memory executor is shared by the test's Templates: nothing to close")
		}
		const atLeast = 1500 * time.Millisecond
		ex, closeEx, err := reliability.Backend{Kind: b.kind, Addrs: b.addrs(), Session: 2 * time.Second}.Open(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = closeEx() }()
		tpl, err := lock4go.New(lock4go.Config{Expire: 2 * time.Second}, ex)
		if err != nil {
			t.Fatal(err)
		}
		r, err := jobs.New(tpl, jobs.Config{AtLeastFor: atLeast})
		if err != nil {
			t.Fatal(err)
		}
		name := testkey.Unique(t, "drain")
		res := r.Run(t.Context(), name, func(context.Context) error { return nil })
		if res.Outcome != jobs.Ran {
			t.Fatalf("Run = %+v", res)
		}
		keptHere := b.kind == reliability.Etcd || b.kind == reliability.ZooKeeper
		if keptHere {
			short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			err := r.Drain(short)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Drain with a context shorter than the at-least-for = %v, want context.DeadlineExceeded", err)
			}
		}
		start := time.Now()
		if err := r.Drain(t.Context()); err != nil {
			t.Fatal(err)
		}
		drained := time.Now()
		if err := closeEx(); err != nil {
			t.Fatal(err)
		}
		switch {
		case keptHere && drained.Before(res.HeldUntil):
			t.Fatalf("Drain returned %v before the at-least-for end of a lock this process keeps", res.HeldUntil.Sub(drained))
		case !keptHere && drained.Sub(start) > atLeast/2:
			t.Fatalf("Drain took %v where the backend keeps the job", drained.Sub(start))
		}
		other, err := jobs.New(b.template(t, nil), jobs.Config{})
		if err != nil {
			t.Fatal(err)
		}
		asked := time.Now()
		res2 := other.Run(t.Context(), name, func(context.Context) error { return nil })
		answered := time.Now()
		// A Run answered before the end was decided by the backend before
		// it too; one asked before but answered after (a stalled request on
		// a busy machine) may rightly have run the job.
		switch {
		case answered.Before(res.HeldUntil) && res2.Outcome != jobs.Skipped:
			t.Errorf("another instance's Run answered %v before the at-least-for end, after Drain and Close = %v, want Skipped", res.HeldUntil.Sub(answered), res2.Outcome)
		case res2.Outcome != jobs.Ran && res2.Outcome != jobs.Skipped:
			t.Errorf("another instance's Run = %+v, want Ran or Skipped", res2)
		}
		t.Logf("%s: Drain took %v; the other instance asked %v and was answered %v before the end: %v", b.kind,
			drained.Sub(start).Round(time.Millisecond), res.HeldUntil.Sub(asked).Round(time.Millisecond),
			res.HeldUntil.Sub(answered).Round(time.Millisecond), res2.Outcome)
	})
}
