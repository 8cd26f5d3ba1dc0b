package lock4go_test

import (
	"testing"
	"testing/synctest"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

// Template.Inspect adds to the backend's view the goroutines of this
// process waiting in the local queue, which the backend never sees.
func TestTemplate_Inspect_localWaiters(t *testing.T) {
	bubble(t, func(t *testing.T) {
		mem := memory.New(memory.Options{})
		tpl, _ := lock4go.New(lock4go.Config{}, mem)
		other, _ := lock4go.New(lock4go.Config{}, mem) // another process
		l := mustLock(t, tpl, "k")
		done := make(chan error, 3)
		for _, t2 := range []*lock4go.Template{tpl, tpl, other} {
			go func() {
				w, err := t2.Lock(t.Context(), "k")
				if err == nil {
					err = w.Release(t.Context())
				}
				done <- err
			}()
		}
		synctest.Wait()
		h, err := tpl.Inspect(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		if h.Kind != lock4go.KindLock || len(h.Holders) != 1 || h.Holders[0].Owner != l.Owner() || h.Token != l.Token() ||
			h.Waiters != 1 || h.LocalWaiters != 2 {
			t.Fatalf("Inspect = %+v; want the holder %s, 1 waiter on the backend (the other process), 2 goroutines in the local queue", h, l.Owner())
		}
		if h, err := other.Inspect(t.Context(), "k"); err != nil || h.LocalWaiters != 0 {
			t.Fatalf("Inspect from the other Template = %+v, %v; want no local waiter (its goroutine waits on the backend)", h, err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	})
}
