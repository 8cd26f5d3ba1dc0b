package reliability

import (
	"fmt"
	"testing"
	"time"
)

// TestMutualExclusion runs N=3 lockcheck processes × M=4 goroutines on one
// key of each backend, with no fault: no two believed-held intervals may
// overlap, no update may be lost, no token may be rejected as stale, and
// no lock may be lost unless the machine starved its process (see
// judgeLosses). The processes mix Template.Lock, Template.Do and
// fixed-expire locks.
func TestMutualExclusion(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		s := newSpace(e)
		r := newRun(t, s.backend(), s.key("mutex"), e.lease)
		load := []string{"--acquisitions", "40"}
		if soak() {
			load = []string{"--duration", "60s"}
		}
		began := time.Now()
		r.start(t, "lock", append(load, "--goroutines", "4", "--hold", "5ms")...)
		r.start(t, "do", append(load, "--goroutines", "4", "--hold", "5ms", "--api", APIDo)...)
		r.start(t, "expire", append(load, "--goroutines", "4", "--hold", "5ms", "--expire", e.lease.String())...)
		reps := r.waitAll(t, pick(2*time.Minute, 3*time.Minute))
		a := r.analyse(t, AnalyseOptions{})
		var notAcquired, backendErrs int64
		for _, rep := range reps {
			notAcquired += rep.NotAcquired
			backendErrs += rep.BackendErrors
		}
		if judgeLosses(t, a, reps, 5*time.Millisecond, e.lease) != 0 {
			for _, p := range r.procs {
				t.Logf("%s stderr:\n%s", p.id, p.stderr())
			}
		}
		if a.Acquisitions == 0 {
			t.Fatal("no acquisitions")
		}
		t.Logf("%s: %s; not_acquired=%d backend_errors=%d in %v", e.kind, a.Summary(), notAcquired, backendErrs, time.Since(began).Round(time.Millisecond))
	})
}

// TestChecker_catchesNonDistributedLock is the checker's negative control:
// the memory executor locks within one process only, so three processes
// hold the key at once, and the checker must report the overlaps and the
// damage they do: lost updates, or stale writes the fence store rejected
// (which of the two depends on how the writes interleave; with every
// overlapping writer fenced off, no update is lost).
func TestChecker_catchesNonDistributedLock(t *testing.T) {
	r := newRun(t, Backend{Kind: Memory}, "mutex", time.Second)
	for i := range 3 {
		r.start(t, fmt.Sprint("p", i), "--acquisitions", "20", "--goroutines", "2", "--hold", "5ms")
	}
	r.waitAll(t, time.Minute)
	a, err := Analyse(r.dir, AnalyseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	damage := a.LostUpdates + int64(a.StaleRejected)
	if a.OverlapCount == 0 || damage == 0 || len(a.Violations) == 0 {
		t.Fatalf("checker missed a broken lock: %s; violations %q", a.Summary(), a.Violations)
	}
	t.Logf("negative control: %s", a.Summary())
}
