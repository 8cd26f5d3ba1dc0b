package lock4go_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

// AcquireError says what happened: the attempts the backend saw, or, when
// it saw none, that the call gave up in the local queue and behind whom.
func TestAcquireError_Error(t *testing.T) {
	bubble(t, func(t *testing.T) {
		mem := memory.New(memory.Options{})
		tpl, _ := lock4go.New(lock4go.Config{}, mem)
		other, _ := lock4go.New(lock4go.Config{AcquireTimeout: 1050 * time.Millisecond}, mem) // another process
		l := mustLock(t, tpl, "k")

		wantMsg(t, "TryLock behind a holder of this process", tryErr(t, tpl),
			`lock4go: lock "k" on memory: no attempt on the backend: 1 caller of this process held or awaited the key, and a call that does not wait does not queue (0s): lock4go: not acquired`)
		wantMsg(t, "TryLock of another process", tryErr(t, other),
			`lock4go: lock "k" on memory: 1 attempt in 0s: lock4go: not acquired`)
		_, err := other.Lock(t.Context(), "k") // waits in the executor's queue
		wantMsg(t, "Lock of another process, until the acquire timeout", err,
			`lock4go: lock "k" on memory: 1 attempt in 1.05s: lock4go: not acquired`)

		waiter := make(chan error, 1)
		go func() {
			w, err := tpl.Lock(t.Context(), "k")
			if err == nil {
				w.Release(t.Context())
			}
			waiter <- err
		}()
		synctest.Wait() // the waiter is queued behind the holder
		_, err = tpl.Lock(t.Context(), "k", lock4go.WithAcquireTimeout(time.Second))
		wantMsg(t, "Lock queued behind this process's holder and waiter", err,
			`lock4go: lock "k" on memory: no attempt on the backend: gave up after 1s queued behind 2 callers of this process: lock4go: not acquired`)
		var aerr *lock4go.AcquireError
		if !errors.As(err, &aerr) || aerr.Attempts != 0 || !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Fatalf("Lock = %#v, want an AcquireError of 0 attempts wrapping ErrNotAcquired", err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := <-waiter; err != nil {
			t.Fatalf("the queued waiter: %v", err)
		}
	})
}

func TestAcquireError_Error_attempts(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 1050 * time.Millisecond, RetryInterval: 100 * time.Millisecond}, f)
		_, err := tpl.Lock(t.Context(), "k")
		wantMsg(t, "Lock of a busy key, until the acquire timeout", err,
			`lock4go: lock "k" on fake: 11 attempts in 1.05s: lock4go: not acquired`)
	})
}

func tryErr(t *testing.T, tpl *lock4go.Template) error {
	t.Helper()
	l, err := tpl.TryLock(t.Context(), "k")
	if err == nil {
		l.Release(t.Context())
		t.Fatal("TryLock of a held key succeeded")
	}
	return err
}

func wantMsg(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Errorf("%s:\n got %v\nwant %s", what, err, want)
	}
	if err != nil && strings.Contains(err.Error(), "0 attempts") {
		t.Errorf("%s: %v says 0 attempts", what, err)
	}
}
