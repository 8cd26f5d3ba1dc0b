package reliability

import (
	"fmt"
	"testing"
	"time"
)

// TestCancellationStorm is scenario 5: one lockcheck process makes 2000
// acquisitions (10000 under LOCK4GO_SOAK=1) over 4 keys from 8 goroutines,
// each cancelled at a random point (one in eight before the call). No lock
// may be reported obtained after its context was cancelled; every
// obtained lock must be released, and a release may fail only because the
// lock was lost before it (ErrLockLost: a loaded machine drops ZooKeeper
// connections, and the loss is then reported, not hidden), never because
// another owner holds it; after the lease no key may be held or
// queued for on the backend (checked by the process itself, while its
// client and session are still alive, then on the server once it has
// exited); and once the executor and its client are closed no goroutine
// may be left in the process (goleak).
func TestCancellationStorm(t *testing.T) {
	delays := map[string]time.Duration{Redis: 2 * time.Millisecond, ZooKeeper: 50 * time.Millisecond, Etcd: 15 * time.Millisecond, Postgres: 5 * time.Millisecond, MySQL: 5 * time.Millisecond}
	forEachBackend(t, func(t *testing.T, e *env) {
		s := newSpace(e)
		r := newRun(t, s.backend(), s.key("storm"), e.lease)
		total := pick(2000, 10000)
		p := r.start(t, "storm", "--mode", "storm", "--goroutines", "8", "--storm-keys", "4",
			"--storm-total", fmt.Sprint(total), "--storm-delay", delays[e.kind].String(),
			"--storm-settle", (e.lease + time.Second).String(), "--acquire-timeout", "2s")
		rep := p.wait(t, pick(3*time.Minute, 10*time.Minute), false)
		st := rep.Storm
		if st == nil {
			t.Fatalf("no storm report: %+v", rep)
		}
		if st.Attempts != int64(total) || st.Successes+st.Cancelled+st.OtherErrors != st.Attempts {
			t.Errorf("outcomes do not add up: %+v", *st)
		}
		if st.Successes == 0 || st.Cancelled == 0 {
			t.Errorf("the storm did not mix successes and cancellations: %+v", *st)
		}
		if st.LateSuccesses != 0 || st.HeldAfter != 0 || st.Leaks != "" || len(st.Leftovers) != 0 {
			t.Errorf("storm: late %d held %d leftovers %q leaks %q", st.LateSuccesses, st.HeldAfter, st.Leftovers, st.Leaks)
		}
		// On the server, after the process exited: nothing but Redis
		// fencing counters, each with a TTL.
		inv := s.inventory(t)
		if len(inv.LockNodes) != 0 || len(inv.NoTTL) != 0 {
			t.Errorf("left on the backend: lock entries %q, keys without TTL %q", inv.LockNodes, inv.NoTTL)
		}
		t.Logf("%s: %d attempts in %v: %d obtained, %d cancelled (%d before the call), %d other errors, %d late (%d within the longest scheduling delay %v), %d release errors (%d of locks lost before their release), leftovers %d, leaks %v",
			e.kind, st.Attempts, st.Elapsed.Round(time.Millisecond), st.Successes, st.Cancelled, st.PreCancelled,
			st.OtherErrors, st.LateSuccesses, st.ExcusedLate, st.SchedDelayMax.Round(time.Microsecond), st.ReleaseErrors, st.LostReleases, len(st.Leftovers), st.Leaks != "")
	})
}
