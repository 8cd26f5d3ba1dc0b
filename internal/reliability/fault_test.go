package reliability

import (
	"fmt"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/testserver"
)

// backendFault is one way to take the backend away from its clients.
type backendFault struct {
	name string
	// inject starts the fault; heal ends it.
	inject, heal func(t *testing.T, srv *testserver.Server, p *testserver.Proxy)
	// fast heals at once instead of after twice the lease.
	fast bool
}

var backendFaults = []backendFault{
	{
		name:   "proxy-blackhole",
		inject: func(t *testing.T, _ *testserver.Server, p *testserver.Proxy) { p.SetBlackhole(true) },
		heal:   func(t *testing.T, _ *testserver.Server, p *testserver.Proxy) { p.SetBlackhole(false); p.Cut() },
	},
	{
		name: "server-pause",
		inject: func(t *testing.T, s *testserver.Server, _ *testserver.Proxy) {
			if err := s.Pause(); err != nil {
				t.Fatal(err)
			}
		},
		heal: func(t *testing.T, s *testserver.Server, _ *testserver.Proxy) {
			if err := s.Resume(); err != nil {
				t.Fatal(err)
			}
		},
	},
	{
		name: "server-restart",
		inject: func(t *testing.T, s *testserver.Server, _ *testserver.Proxy) {
			if err := s.Kill(); err != nil {
				t.Fatal(err)
			}
		},
		heal: func(t *testing.T, s *testserver.Server, _ *testserver.Proxy) {
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
		},
	},
	{
		// Killed and restarted at once, within the lease. Redis runs
		// without persistence, so the restarted server has forgotten
		// every lock while their holders still believe in them: the
		// documented reason to delay a Redis restart by the longest lease
		// (or to enable AOF with fsync always). ZooKeeper and etcd keep
		// their data and must stay exclusive.
		name: "server-restart-fast",
		inject: func(t *testing.T, s *testserver.Server, _ *testserver.Proxy) {
			if err := s.Kill(); err != nil {
				t.Fatal(err)
			}
		},
		heal: func(t *testing.T, s *testserver.Server, _ *testserver.Proxy) {
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
		},
		fast: true,
	},
}

// TestBackendFault is scenario 3: while N=3 processes compete for one key
// through a TCP proxy, the backend goes away for twice the lease: the proxy
// blackholes every connection, the server is paused (SIGSTOP), or the server
// is killed and restarted (same port and data directory; Redis runs without
// persistence, so its keys are gone). A holder in the middle of a long hold
// when the fault starts, asking its context every millisecond, must get no
// "held" answer once the lease may have ended by its own clock (the fault
// in place plus the lease); no two believed-held intervals may overlap, no
// update may be lost, no token may regress; and locks must be granted
// again after the fault heals.
func TestBackendFault(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for i := range pick(1, 3) {
			for _, f := range backendFaults {
				t.Run(f.name, func(t *testing.T) { backendFaultRun(t, e, f, lockKind{}) })
			}
			if t.Failed() {
				t.Fatalf("round %d failed", i)
			}
		}
	})
}

// lockKind is the kind of lock a scenario's holders take: ModeMutex (the
// zero value), ModeRW or ModePermits of permits.
type lockKind struct {
	mode    string
	permits int
}

// args returns the lockcheck arguments of k.
func (k lockKind) args() []string {
	switch k.mode {
	case "", ModeMutex:
		return nil
	case ModePermits:
		return []string{"--lock-kind", k.mode, "--permits", fmt.Sprint(k.permits)}
	}
	return []string{"--lock-kind", k.mode}
}

func backendFaultRun(t *testing.T, e *env, f backendFault, kind lockKind) {
	s := newSpace(e)
	L := e.lease
	proxy, err := testserver.NewProxy(e.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	r := newRun(t, s.backend(proxy.Addr()), s.key("fault"), L)
	common := append([]string{"--duration", "2m", "--acquire-timeout", L.String()}, kind.args()...)
	// One hold long enough to straddle the fault, then the process ends.
	r.start(t, "long", append(common, "--goroutines", "1", "--acquisitions", "1", "--hold", (3*L).String(), "--sample")...)
	for i := range 2 {
		r.start(t, fmt.Sprint("short", i), append(common, "--goroutines", "4", "--hold", "20ms")...)
	}
	acq := r.acquiredBy(t, "long", time.Time{}, 30*time.Second)
	time.Sleep(time.Until(fromNS(acq.Start).Add(50 * time.Millisecond)))
	faultAt := time.Now()
	f.inject(t, e.srv, proxy)
	injected := time.Now() // no renewal sent later can be confirmed
	healed := false
	heal := func() {
		if !healed {
			healed = true
			f.heal(t, e.srv, proxy)
		}
	}
	defer heal() // the server must come back for the tests that follow
	if !f.fast {
		time.Sleep(time.Until(faultAt.Add(2 * L)))
	}
	heal()
	healedAt := time.Now()

	recovered, reps := r.recoverAndStop(t, healedAt, 3*L+15*time.Second, 5)
	caveat := f.fast && e.kind == Redis
	a, err := Analyse(r.dir, AnalyseOptions{AllowOverlap: caveat, AllowStale: caveat, AllowRegression: caveat, Permits: kind.permits})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range a.Violations {
		t.Errorf("violation: %s", v)
	}
	if caveat {
		if a.OverlapCount > 0 {
			t.Logf("CAVEAT (Redis without persistence, restarted within the lease): %d overlapping holds, first by %v; %d stale tokens rejected, %d lost updates",
				a.OverlapCount, a.Overlaps[0].By, a.StaleRejected, a.LostUpdates)
		} else {
			t.Logf("Redis restarted within the lease: no overlap observed this time")
		}
	}
	if !recovered {
		t.Errorf("fewer than 5 acquisitions within %v after the fault healed", 3*L+15*time.Second)
	}

	// Holders that held the lock when the fault began must have stopped
	// answering "held" before the lease could end: the fault in place plus
	// the lease, by their clock (the same machine's wall clock), however
	// late their timers ran: they ask their lock's context, which reads the
	// clock. The fence and the overlap analysis above judge safety whatever
	// they did after.
	_, done, err := ReadLogs(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var told []time.Duration
	for _, iv := range done {
		if iv.Start >= ns(faultAt) || iv.Believed() <= ns(faultAt) {
			continue
		}
		if iv.LostAt != 0 {
			told = append(told, fromNS(iv.LostAt).Sub(faultAt))
		}
		if d := fromNS(iv.LastHeld).Sub(injected); !f.fast && d >= L {
			t.Errorf("%s g%d token %d answered \"held\" %v after the fault was in place, past the lease (%v); lost %q",
				iv.ID, iv.G, iv.Token, d, L, iv.LostErr)
		}
		if iv.ID == "long" && iv.LostAt == 0 && !f.fast {
			t.Errorf("the long holder, mid-hold when the fault began, was never told its lock was lost")
		}
	}
	var backendErrs int64
	for _, rep := range reps {
		backendErrs += rep.BackendErrors
	}
	t.Logf("%s/%s: lost-lock signals after the fault began: %s (lease %v); %s; backend_errors=%d",
		e.kind, f.name, latencies(told), L, a.Summary(), backendErrs)
}
