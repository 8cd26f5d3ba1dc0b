package reliability

import (
	"slices"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
)

// peak returns the largest number of intervals in all believed held at
// once.
func peak(all []Interval) int {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, iv := range all {
		edges = append(edges, edge{iv.Start, 1}, edge{iv.Believed(), -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		return edges[i].at < edges[j].at || edges[i].at == edges[j].at && edges[i].delta < edges[j].delta
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.delta
		most = max(most, n)
	}
	return most
}

// TestKinds_exclusion runs N=3 lockcheck processes × M=4 goroutines on one
// key with read-write locks (two reads to a write per goroutine) and with
// a 2-permit semaphore, with no fault: no writer may overlap anyone, no
// more than 2 permits may be held at once, no update may be lost; and
// readers, and permits, must really have been held together. For the
// semaphore a fourth process holds a permit from before the others start
// until one of them has the other one: with 5 ms holds, permits handed on
// more slowly than that (ZooKeeper's semaphore passes its own mutex
// between waiters, several round trips, tens of milliseconds on a loaded
// machine) were never held together in a run under load.
func TestKinds_exclusion(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for _, c := range []struct {
			kind    string
			permits int
		}{{ModeRW, 0}, {ModePermits, 2}} {
			t.Run(c.kind, func(t *testing.T) {
				s := newSpace(e)
				r := newRun(t, s.backend(), s.key(c.kind), e.lease)
				load := []string{"--acquisitions", "40", "--goroutines", "4", "--hold", "5ms", "--lock-kind", c.kind}
				if c.permits > 0 {
					load = append(load, "--permits", "2")
				}
				if soak() {
					load[1] = "400"
				}
				var first *proc
				if c.permits > 0 {
					first = r.start(t, "first", "--goroutines", "1", "--acquisitions", "1", "--hold", "1m", "--lock-kind", c.kind, "--permits", "2")
					r.acquiredBy(t, "first", time.Time{}, 20*time.Second)
				}
				r.start(t, "lock", load...)
				r.start(t, "do", append(load, "--api", APIDo)...)
				r.start(t, "expire", append(load, "--expire", e.lease.String())...)
				if first != nil {
					r.acquiredBy(t, "lock", time.Time{}, 20*time.Second)
					first.signal(t, syscall.SIGUSR1) // its hold ends: the others go on with both permits
				}
				reps := r.waitAll(t, pick(2*time.Minute, 5*time.Minute))
				a := r.analyse(t, AnalyseOptions{Permits: c.permits})
				if a.Acquisitions == 0 {
					t.Fatal("no acquisitions")
				}
				if judgeLosses(t, a, reps, 5*time.Millisecond, e.lease) != 0 {
					t.FailNow()
				}
				_, done, err := ReadLogs(r.dir)
				if err != nil {
					t.Fatal(err)
				}
				shared := slices.DeleteFunc(slices.Clone(done), func(iv Interval) bool { return !iv.Shared && !iv.Permit })
				most := peak(shared)
				switch {
				case c.permits > 0 && most != c.permits:
					t.Errorf("at most %d permits held at once, want exactly %d", most, c.permits)
				case c.permits == 0 && most < 2:
					t.Errorf("readers never held the key together (peak %d)", most)
				}
				t.Logf("%s/%s: %s; %d shared holds, peak %d at once", e.kind, c.kind, a.Summary(), len(shared), most)
			})
		}
	})
}

// TestKinds_killedShareHolder kills (SIGKILL) a process holding a read
// lock while a writer waits, and one holding the only permit of a
// semaphore while another waits for it: the share must be freed within the
// lease (plus a second and the waiter's own timer delays).
func TestKinds_killedShareHolder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for _, kind := range []lockKind{{mode: ModeRW}, {mode: ModePermits, permits: 1}} {
			t.Run(kind.mode, func(t *testing.T) {
				for try := 1; !killedHolder(t, e, "watchdog", kind); try++ {
					if try == 3 {
						t.Fatalf("%d rounds in which the holder lost its lock before the next process waited", try)
					}
				}
			})
		}
	})
}

// TestKinds_backendFault runs scenario 3 (TestBackendFault: the backend
// blackholed by a proxy, paused, or killed and restarted, for twice the
// lease while three processes compete) with read-write locks and with a
// 2-permit semaphore:
// no writer may overlap anyone, no more than 2 permits may be held at once,
// and a holder mid-hold when the fault began must be told of the loss
// within the lease. Each fault runs once with one of the kinds (every
// fault runs with plain locks in TestBackendFault); make soak runs every
// fault with both.
func TestKinds_backendFault(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		kinds := []lockKind{{mode: ModeRW}, {mode: ModePermits, permits: 2}}
		n := 0
		for _, f := range backendFaults {
			if f.fast {
				continue // Redis's known caveat, shown for locks
			}
			for i, kind := range kinds {
				if soak() || i == n%len(kinds) {
					t.Run(kind.mode+"/"+f.name, func(t *testing.T) { backendFaultRun(t, e, f, kind) })
				}
			}
			n++
		}
	})
}

// TestKinds_lostReplies runs scenario 4 (TestLostAcquireReplies: the
// replies to acquisitions dropped by a proxy) with read locks and with
// permits: nothing granted that the client never heard of may outlive the
// lease, and the keys are free for another client afterwards.
func TestKinds_lostReplies(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		t.Run("read", func(t *testing.T) { lostReplies(t, e, false, lock4go.Shared()) })
		t.Run("permit", func(t *testing.T) { lostReplies(t, e, false, lock4go.WithPermits(2)) })
	})
}
