package lock4go_test

import (
	"context"
	"testing"

	"github.com/lock4go/lock4go"
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
