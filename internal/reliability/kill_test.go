package reliability

import (
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// TestKilledHolder is scenario 2: the holder's process is killed with
// SIGKILL while it holds the lock; the next waiter, already waiting in
// another process, must acquire within the lease plus one second (for
// ZooKeeper the lease is the session timeout). No hold may overlap the
// dead holder's. A fixed lease that runs out before the next process
// waits (starting it takes seconds on a busy machine) leaves nothing to
// kill it in: that round starts over, three times at most.
func TestKilledHolder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for i := range pick(1, 5) {
			for _, mode := range []string{"watchdog", "expire"} {
				t.Run(mode, func(t *testing.T) {
					for try := 1; !killedHolder(t, e, mode, lockKind{}); try++ {
						if try == 3 {
							t.Fatalf("%d rounds in which the next process did not wait before the fixed lease ran out", try)
						}
					}
				})
			}
			if t.Failed() {
				t.Fatalf("round %d failed", i)
			}
		}
	})
}

// killedHolder kills a holder of kind (its first hold: a read lock for
// ModeRW) while a process waits: a writer, or a permit of the same
// semaphore. It reports false, having checked nothing, when the holder's
// fixed lease (mode "expire") ran out, or the holder lost its lock, before
// the other process waited.
func killedHolder(t *testing.T, e *env, mode string, kind lockKind) bool {
	s := newSpace(e)
	L := e.lease
	r := newRun(t, s.backend(), s.key("kill"), L)
	args := append([]string{"--goroutines", "1", "--acquisitions", "1", "--hold", "1m"}, kind.args()...)
	var nextArgs []string
	if kind.mode == ModePermits {
		nextArgs = kind.args()
	}
	if mode == "expire" {
		// A fixed lease longer than the hold would not be safe; the
		// process dies long before it ends anyway.
		args = append(args, "--expire", L.String())
	}
	dead := r.start(t, "dead", args...)
	held := r.acquiredBy(t, "dead", time.Time{}, 20*time.Second)
	next := r.start(t, "next", append([]string{"--goroutines", "1", "--acquisitions", "1", "--hold", "10ms",
		"--acquire-timeout", (L + 10*time.Second).String()}, nextArgs...)...)
	// Kill once the waiter waits: the backend counts it among the key's
	// waiters (a queue entry, or a Redis release subscription). Starting
	// the process takes seconds on a busy machine.
	tpl, _ := s.open(t, lock4go.Config{})
	waiting, over := false, false
	var lost Interval
	if !testwait.Until(20*time.Second, func() bool {
		h, err := tpl.Inspect(t.Context(), s.key("kill"))
		waiting = err == nil && h.Waiters > 0
		over = mode == "expire" && time.Since(fromNS(held.Start)) > L
		lost = r.lostBy(t, "dead")
		return waiting || over || lost.LostAt != 0
	}) {
		t.Fatalf("the next process is not waiting for the key after 20s; %s", r.describe(t))
	}
	switch {
	case waiting:
	case over:
		t.Logf("the next process did not wait within the dead holder's fixed lease %v: starting over", L)
		return false
	default:
		// Its watchdog could not renew in time on a starved machine: the
		// key is free, and there is no holder left to kill.
		t.Logf("the holder lost its lock before the next process waited (%v after it took it: %s): starting over",
			time.Duration(lost.LostAt-lost.Start).Round(time.Millisecond), lost.LostErr)
		return false
	}
	server := startServerProbe(s, tpl)
	killed := dead.signal(t, syscall.SIGKILL)
	<-dead.done
	rep := next.wait(t, time.Minute, false)
	serverDelays := server.Stop()
	acq := r.acquiredBy(t, "next", time.Time{}, time.Second)
	a := r.analyse(t, AnalyseOptions{Killed: map[string]time.Time{"dead": killed}, Permits: kind.permits})
	wait := fromNS(acq.Start).Sub(killed)
	// The waiter cannot act while the machine does not run it, nor the
	// server answer while the machine starves it: the bound grows by the
	// largest delay the waiter's own timers had meanwhile, and by the
	// server's slowest answers to the test's probe (stallServerCalls).
	late := rep.MaxTimerDelay(ns(killed), acq.Start)
	slow := stallServerCalls * timerprobe.MaxOver(serverDelays, ns(killed), acq.Start)
	if bound := L + time.Second + late + slow; wait > bound {
		t.Errorf("next waiter acquired %v after the kill, more than lease + 1s + its largest timer delay %v + %d of the server's slowest answers meanwhile %v (%v)",
			wait, late, stallServerCalls, slow, bound)
	}
	t.Logf("%s/%s %s: next waiter acquired %v after SIGKILL (lease %v, its largest timer delay %v, the server's slowest answer %v); %s",
		e.kind, mode, kind.mode, wait.Round(time.Millisecond), L, late.Round(time.Millisecond), (slow / stallServerCalls).Round(time.Millisecond), a.Summary())
	return true
}

// TestKilledWaiter is the fleet issue's dead waiter: a process dies
// (SIGKILL) while it waits for a busy key, with a second process waiting
// behind it. Once the holder's Release returns, the live waiter must get the key
// within a claim window and a retry interval plus a second on Redis and
// PostgreSQL (the dead waiter's claim lapses), and within the dead waiter's lease
// plus a second on etcd and ZooKeeper (its queue node goes with its
// session), never after the dead waiter's acquire timeout.
func TestKilledWaiter(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		s := newSpace(e)
		L := e.lease
		key := s.key("killed-waiter")
		r := newRun(t, s.backend(), key, L)
		// The holder keeps the key until both waiters queue and one of
		// them is dead (SIGUSR1 ends its hold).
		holder := r.start(t, "holder", "--goroutines", "1", "--acquisitions", "1", "--hold", "1m")
		r.acquiredBy(t, "holder", time.Time{}, 20*time.Second)
		tpl, _ := s.open(t, lock4go.Config{})
		waiters := func(n int) bool {
			h, err := tpl.Inspect(t.Context(), key)
			return err == nil && h.Waiters >= n
		}
		waitArgs := []string{"--goroutines", "1", "--acquisitions", "1", "--hold", "10ms", "--acquire-timeout", "1m"}
		dead := r.start(t, "dead", waitArgs...)
		if !testwait.Until(20*time.Second, func() bool { return waiters(1) }) {
			t.Fatal("the first waiter is not queued after 20s")
		}
		next := r.start(t, "next", waitArgs...)
		if !testwait.Until(20*time.Second, func() bool { return waiters(2) }) {
			t.Fatal("the second waiter is not queued behind the first after 20s")
		}
		server := startServerProbe(s, tpl)
		killed := dead.signal(t, syscall.SIGKILL)
		<-dead.done
		holder.signal(t, syscall.SIGUSR1)
		holder.wait(t, time.Minute, false)
		rep := next.wait(t, time.Minute, false)
		serverDelays := server.Stop()
		acq := r.acquiredBy(t, "next", time.Time{}, time.Second)
		_, ivs, err := ReadLogs(r.dir)
		if err != nil {
			t.Fatal(err)
		}
		// The key is handed on by the holder's Release, which returns after
		// the release's statement or script committed: the claim window
		// counts from no later than that. The hold's end (just before
		// Release) is logged beside it: under load the holder's own process
		// and the server's commit can take a second between the two.
		var ended, released time.Time
		for _, iv := range ivs {
			if iv.ID == "holder" {
				ended, released = fromNS(iv.End), fromNS(iv.ReleasedAt)
			}
		}
		if ended.IsZero() || released.IsZero() || ended.Before(killed) {
			t.Fatalf("the holder's hold ended at %v and its Release returned at %v, the kill was at %v: the scenario did not run as planned", ended, released, killed)
		}
		from, bound := released, 200*time.Millisecond+50*time.Millisecond+time.Second // claim window + retry interval + 1s
		if e.kind != Redis && e.kind != Postgres && e.kind != MySQL {
			from, bound = later(released, killed.Add(L)), time.Second
		}
		// As in killedHolder: the waiter's own timer delays and the
		// server's slowest answers meanwhile widen the bound.
		late := rep.MaxTimerDelay(ns(from), acq.Start)
		slow := stallServerCalls * timerprobe.MaxOver(serverDelays, ns(from), acq.Start)
		wait := fromNS(acq.Start).Sub(from)
		if wait > bound+late+slow {
			t.Errorf("next waiter acquired %v after %v, more than %v + its largest timer delay %v + %d of the server's slowest answers meanwhile %v",
				wait, from, bound, late, stallServerCalls, slow)
		}
		a := r.analyse(t, AnalyseOptions{Killed: map[string]time.Time{"dead": killed}})
		t.Logf("%s: next waiter acquired %v after the release returned (the holder's Release took %v; %v after the kill; lease %v, its largest timer delay %v, the server's slowest answer %v); %s",
			e.kind, fromNS(acq.Start).Sub(released).Round(time.Millisecond), released.Sub(ended).Round(time.Millisecond), fromNS(acq.Start).Sub(killed).Round(time.Millisecond), L, late.Round(time.Millisecond),
			(slow / stallServerCalls).Round(time.Millisecond), a.Summary())
	})
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
