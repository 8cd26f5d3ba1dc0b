package queued

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// A check that fails runs again on the next attempt; once it passed, it
// runs no more, until Again; concurrent attempts run it one at a time.
func TestFirstCheck(t *testing.T) {
	var f FirstCheck
	var runs, inside, most atomic.Int32
	bad := errors.New("no rights")
	fail := true
	check := func(ctx context.Context) error {
		runs.Add(1)
		n := inside.Add(1)
		defer inside.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if fail {
			return bad
		}
		return nil
	}
	ctx := context.Background()
	if err := f.Run(ctx, check); !errors.Is(err, bad) {
		t.Fatalf("failing check: %v", err)
	}
	if err := f.Run(ctx, check); !errors.Is(err, bad) {
		t.Fatalf("failing check, second attempt: %v", err)
	}
	fail = false
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.Run(ctx, check); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := runs.Load(); got != 3 {
		t.Errorf("check ran %d times, want 3 (two failures, one pass)", got)
	}
	if most.Load() != 1 {
		t.Errorf("%d checks ran at once", most.Load())
	}
	f.Again()
	if err := f.Run(ctx, check); err != nil || runs.Load() != 4 {
		t.Errorf("after Again: err %v, %d runs, want a fourth", err, runs.Load())
	}
}

// An attempt whose ctx ends while another runs the check gives up.
func TestFirstCheck_gaveUp(t *testing.T) {
	var f FirstCheck
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- f.Run(context.Background(), func(context.Context) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Run(ctx, func(context.Context) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting attempt whose ctx ended: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func TestHolderKind(t *testing.T) {
	for _, c := range []struct {
		in      string
		kind    executor.Kind
		permits int
	}{{"w", executor.KindLock, 0}, {"r", executor.KindRead, 0}, {"p3", executor.KindPermits, 3}, {"", executor.KindLock, 0}} {
		if k, n := HolderKind(c.in); k != c.kind || n != c.permits {
			t.Errorf("HolderKind(%q) = %v, %d; want %v, %d", c.in, k, n, c.kind, c.permits)
		}
	}
}

func TestInspected(t *testing.T) {
	if _, err := Inspected("x", "k", nil, "w", 0); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Errorf("no holders: %v", err)
	}
	hs := []executor.Holder{{Owner: "a", Token: 4}, {Owner: "b", Token: 5}}
	h, err := Inspected("x", "k", hs, "r", 2)
	if err != nil || h.Owner != "a" || h.Token != 4 || len(h.Holders) != 2 || h.Kind != executor.KindRead || h.Waiters != 2 {
		t.Errorf("Inspected = %+v, %v", h, err)
	}
}

func TestBackendErr(t *testing.T) {
	bad := errors.New("reset")
	if err := BackendErr(context.Background(), bad); !errors.Is(err, executor.ErrBackend) || !errors.Is(err, bad) {
		t.Errorf("live ctx: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := BackendErr(ctx, bad); !errors.Is(err, executor.ErrBackend) || !errors.Is(err, context.Canceled) {
		t.Errorf("ended ctx: %v", err)
	}
}

// SweepPages reads pages until a short one, each after the last key of
// the one before, tidies every key, and stops at the first error.
func TestSweepPages(t *testing.T) {
	keys := make([]string, SweepBatch+3)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%05d", i)
	}
	var afters, tidied []string
	stale := func(ctx context.Context, after string) ([]string, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("stale called without a deadline")
		}
		afters = append(afters, after)
		i, _ := slices.BinarySearch(keys, after)
		if after != "" {
			i++
		}
		return keys[i:min(i+SweepBatch, len(keys))], nil
	}
	tidy := func(ctx context.Context, k string) error {
		tidied = append(tidied, k)
		return nil
	}
	if err := SweepPages(context.Background(), time.Second, stale, tidy); err != nil {
		t.Fatal(err)
	}
	if want := []string{"", keys[SweepBatch-1]}; !slices.Equal(afters, want) {
		t.Errorf("pages after %q, want %q", afters, want)
	}
	if !slices.Equal(tidied, keys) {
		t.Errorf("tidied %d keys, want all %d in order", len(tidied), len(keys))
	}
	bad := errors.New("row locked")
	n := 0
	err := SweepPages(context.Background(), time.Second, stale, func(context.Context, string) error {
		n++
		return bad
	})
	if !errors.Is(err, bad) || n != 1 {
		t.Errorf("a failing tidy: err %v after %d calls, want it after 1", err, n)
	}
}
