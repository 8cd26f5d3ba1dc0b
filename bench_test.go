package lock4go_test

import (
	"context"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// BenchmarkTemplate_LockRelease is the Template's own cost per uncontended
// acquisition on the in-process executor.
func BenchmarkTemplate_LockRelease(b *testing.B) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		l, err := tpl.Lock(ctx, "bench:key")
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTemplate_Do adds Do's context (re-entry, loss cancellation).
func BenchmarkTemplate_Do(b *testing.B) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := tpl.Do(ctx, "bench:key", fn); err != nil {
			b.Fatal(err)
		}
	}
}

// An uncontended Lock and Release on the in-process executor allocates the
// lock's state and the executor's lease, nothing else: no context, timer,
// closure for the loss signal or owner string of its own (owners come
// eight to an allocation).
func TestTemplate_LockRelease_allocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops owners' batches")
	}
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pair := func() {
		l, err := tpl.Lock(ctx, "allocs:key")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pair()
	if n := testing.AllocsPerRun(400, pair); n > 2 {
		t.Fatalf("%v allocations per Lock and Release, want 2", n)
	}
}

// netExec is the memory executor dressed as a networked one: the Template
// bounds its attempts and releases with contexts, as it does Redis's.
type netExec struct{ *memory.Executor }

func (n netExec) Capabilities() executor.Capabilities {
	c := n.Executor.Capabilities()
	c.InProcess = false
	return c
}

// BenchmarkTemplate_LockRelease_networked is the Template's own cost per
// uncontended acquisition on a networked executor (the round trip aside):
// the contexts that bound the attempt and the release.
func BenchmarkTemplate_LockRelease_networked(b *testing.B) {
	tpl, _ := lock4go.New(lock4go.Config{}, netExec{memory.New(memory.Options{})})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		l, err := tpl.Lock(ctx, "bench:key")
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// A caller whose own deadline comes before the acquire timeout plus the
// attempt grace bounds the attempt itself: the Template makes no context
// (and timer) of its own for it.
func TestTemplate_LockRelease_callerDeadlineAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops owners' batches")
	}
	tpl, err := lock4go.New(lock4go.Config{}, netExec{memory.New(memory.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(ctx context.Context) float64 {
		return testing.AllocsPerRun(200, func() {
			l, err := tpl.Lock(ctx, "allocs:key")
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
	long, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	short, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	// context.WithDeadlineCause takes 4 allocations (the context, its
	// timer and two functions); under an earlier deadline of the caller's
	// it still took 2 (it becomes a WithCancel).
	if a, b := allocs(long), allocs(short); a-b < 4 {
		t.Fatalf("%v allocations per pair under a deadline of a second, %v under an hour's: want 4 fewer", b, a)
	}
}

// On context.Background the attempt's and the release's contexts are shared
// by the calls that end in the same step (deadlines.go): a pair on a
// networked executor costs what it costs in process, the holds and leases,
// plus a share of the contexts, not two contexts and timers of its own.
func TestTemplate_LockRelease_backgroundAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops owners' batches")
	}
	tpl, err := lock4go.New(lock4go.Config{}, netExec{memory.New(memory.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := testing.AllocsPerRun(1000, func() {
		l, err := tpl.Lock(ctx, "allocs:key")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%v allocations per pair", n)
	if n >= 3 {
		t.Fatalf("%v allocations per Lock and Release on context.Background, want fewer than 3 (2 and a share of the contexts)", n)
	}
}
