package reliability

import (
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
)

// TestKilledHolder is scenario 2: the holder's process is killed with
// SIGKILL while it holds the lock; the next waiter, already waiting in
// another process, must acquire within the lease plus one second (for
// ZooKeeper the lease is the session timeout). No hold may overlap the
// dead holder's.
func TestKilledHolder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for i := range pick(1, 5) {
			for _, mode := range []string{"watchdog", "expire"} {
				t.Run(mode, func(t *testing.T) { killedHolder(t, e, mode) })
			}
			if t.Failed() {
				t.Fatalf("round %d failed", i)
			}
		}
	})
}

func killedHolder(t *testing.T, e *env, mode string) {
	s := newSpace(e)
	L := e.lease
	r := newRun(t, s.backend(), s.key("kill"), L)
	args := []string{"--goroutines", "1", "--acquisitions", "1", "--hold", "1m"}
	if mode == "expire" {
		// A fixed lease longer than the hold would not be safe; the
		// process dies long before it ends anyway.
		args = append(args, "--expire", L.String())
	}
	dead := r.start(t, "dead", args...)
	r.acquiredBy(t, "dead", time.Time{}, 20*time.Second)
	next := r.start(t, "next", "--goroutines", "1", "--acquisitions", "1", "--hold", "10ms",
		"--acquire-timeout", (L + 10*time.Second).String())
	// Kill once the waiter waits: the backend counts it among the key's
	// waiters (a queue entry, or a Redis release subscription). Starting
	// the process takes seconds on a busy machine.
	tpl, _ := s.open(t, lock4go.Config{})
	if !eventually(20*time.Second, func() bool {
		h, err := tpl.Inspect(t.Context(), s.key("kill"))
		return err == nil && h.Waiters > 0
	}) {
		t.Fatal("the next process is not waiting for the key after 20s")
	}
	killed := dead.signal(t, syscall.SIGKILL)
	<-dead.done
	rep := next.wait(t, time.Minute, false)
	acq := r.acquiredBy(t, "next", time.Time{}, time.Second)
	a := r.analyse(t, AnalyseOptions{Killed: map[string]time.Time{"dead": killed}})
	wait := fromNS(acq.Start).Sub(killed)
	// The waiter cannot act while the machine does not run it: the bound
	// grows by the largest delay its own timers had meanwhile.
	late := rep.MaxTimerDelay(ns(killed), acq.Start)
	if bound := L + time.Second + late; wait > bound {
		t.Errorf("next waiter acquired %v after the kill, more than lease + 1s + its largest timer delay %v (%v)", wait, late, bound)
	}
	t.Logf("%s/%s: next waiter acquired %v after SIGKILL (lease %v, its largest timer delay %v); %s", e.kind, mode, wait.Round(time.Millisecond), L, late.Round(time.Millisecond), a.Summary())
}
