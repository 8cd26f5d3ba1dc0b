package reliability

import (
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// TestPausedHolder is scenario 1: the holder's process is paused with
// SIGSTOP for twice the lease. A successor must acquire meanwhile. On
// SIGCONT the old holder's context must already be cancelled or be
// cancelled within one renewal interval (a third of the lease); its fenced
// write (it sleeps through the loss, as a process paused between its check
// and its write would) must be rejected; its Release must return
// ErrLockNotHeld and must not touch the successor's lock. A watchdog lock
// that lingers and a fixed lease released at once run in every run; make
// soak runs the four combinations five times.
func TestPausedHolder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for i := range pick(1, 5) {
			for _, c := range pauseCases() {
				t.Run(c.name(), func(t *testing.T) { pausedHolder(t, e, c.mode, c.linger) })
			}
			if t.Failed() {
				t.Fatalf("round %d failed", i)
			}
		}
	})
}

// pauseCase is one way of holding the lock through a pause: a watchdog
// lock or a fixed lease ("expire"), released at once after the write or
// kept for a lease after it (linger).
type pauseCase struct {
	mode   string
	linger bool
}

// name is the subtest's name.
func (c pauseCase) name() string {
	if c.linger {
		return c.mode + "/linger"
	}
	return c.mode + "/release-at-once"
}

// pauseCases returns the cases a run covers: each lease mode and each
// ending once, all four combinations under make soak.
func pauseCases() []pauseCase {
	return pick([]pauseCase{{"watchdog", true}, {"expire", false}},
		[]pauseCase{{"watchdog", false}, {"watchdog", true}, {"expire", false}, {"expire", true}})
}

// pausedHolder runs one pause. With linger the old holder keeps its lock
// for a lease after its write, so the test sees when it is told of the
// loss; without it the holder releases right after its write, racing the
// Template's own detection, and Release must still say ErrLockNotHeld.
func pausedHolder(t *testing.T, e *env, mode string, linger bool) {
	s := newSpace(e)
	L := e.lease
	key := s.key("pause")
	r := newRun(t, s.backend(), key, L)
	holderArgs := []string{"--goroutines", "1", "--acquisitions", "1", "--hold", (L / 2).String(), "--ignore-lost"}
	if mode == "expire" {
		holderArgs = append(holderArgs, "--expire", L.String())
	}
	if linger {
		holderArgs = append(holderArgs, "--linger", L.String())
	}
	old := r.start(t, "old", holderArgs...)
	acq := r.acquiredBy(t, "old", time.Time{}, 20*time.Second)
	tpl, _ := s.open(t, lock4go.Config{})
	server := startServerProbe(s, tpl)
	defer server.Stop()
	paused := old.signal(t, syscall.SIGSTOP)
	if lag := paused.Sub(fromNS(acq.Start)); lag > L/4 {
		t.Logf("paused %v after the acquisition", lag)
	}
	// Successors: 2 processes × 2 goroutines, 2 short holds each.
	for _, id := range []string{"next1", "next2"} {
		r.start(t, id, "--goroutines", "2", "--acquisitions", "2", "--hold", (L / 10).String(),
			"--acquire-timeout", (4*L + 5*time.Second).String())
	}
	time.Sleep(time.Until(paused.Add(2 * L))) // the pause lasts 2×lease
	// A successor must acquire, and write through the fence, while the
	// holder is paused: only a write with a newer token makes the fence
	// reject the old holder's. The lease ends about a lease after the
	// pause, but on a busy machine starting the successors and the hand-off
	// may take longer than the second lease, so the holder stays paused
	// until a successor has written, for as long as the successors wait
	// (their acquire timeout).
	first := awaitSuccessorWrite(t, r.dir, paused.Add(4*L+5*time.Second))
	if first == nil {
		t.Fatalf("no successor acquired and wrote within %v of the pause", 4*L+5*time.Second)
	}
	resumed := old.signal(t, syscall.SIGCONT)
	if wait := fromNS(first.Start).Sub(paused); wait > 2*L {
		t.Logf("the first successor acquired %v after the pause, later than 2×lease (%v)", wait, 2*L)
	}
	reps := r.waitAll(t, time.Minute)
	serverDelays := server.Stop()

	a := r.analyse(t, AnalyseOptions{AllowOverlap: true, AllowStale: true})
	var oldIv *Interval
	_, done, _ := ReadLogs(r.dir)
	for i := range done {
		iv := &done[i]
		if iv.ID == "old" {
			oldIv = iv
			continue
		}
		successorLoss(t, *iv, reps, L/10, L, serverDelays)
		if iv.Token <= acq.Token {
			t.Errorf("successor token %d not above the paused holder's %d", iv.Token, acq.Token)
		}
	}
	if oldIv == nil {
		t.Fatal("the paused holder logged no interval")
	}
	detect := time.Duration(0)
	switch {
	case oldIv.LostAt == 0 && linger:
		t.Errorf("paused holder never told its lock was lost within %v of SIGCONT: interval %+v (resumed %s); its stderr:\n%s",
			L, *oldIv, resumed.Format("15:04:05.000000"), old.stderr())
	case oldIv.LostAt == 0:
		t.Logf("paused holder released before the Template noticed the loss")
	default:
		detect = fromNS(oldIv.LostAt).Sub(resumed)
		// A resumed process the machine does not run at once learns late:
		// the bound grows by the largest delay its own timers had then.
		late := reportOf(reps, "old").MaxTimerDelay(ns(resumed), oldIv.LostAt)
		if detect > L/3+late {
			t.Errorf("paused holder told %v after SIGCONT, more than one renewal interval (%v) and its largest timer delay (%v)", detect, L/3, late)
		}
	}
	if !oldIv.Rejected {
		t.Errorf("paused holder's fenced write not rejected (token %d, fence had %d, wrote %v)", oldIv.Token, oldIv.FenceLast, oldIv.Wrote)
	}
	if !oldIv.ReleaseNotHeld {
		t.Errorf("paused holder's Release = %q, want ErrLockNotHeld", oldIv.ReleaseErr)
	}
	succWait := fromNS(first.Start).Sub(paused)
	t.Logf("%s/%s linger=%v: successor acquired %v after the pause (lease %v); old holder told %v after SIGCONT (%s); %s",
		e.kind, mode, linger, succWait.Round(time.Millisecond), L, detect.Round(time.Millisecond), oldIv.LostErr, a.Summary())
}

// successorLoss checks that the pause did not disturb the successor's hold
// iv, of length hold with a lease of lease: it was not lost and its
// release succeeded, unless it was lost at its local end while the machine
// stalled the hold or the server (judgeLoss; server are the server's slow
// answers to the test's probe), and its release then said ErrLockNotHeld.
func successorLoss(t *testing.T, iv Interval, reps []Report, hold, lease time.Duration, server []timerprobe.Delay) {
	t.Helper()
	if iv.LostAt == 0 {
		// A release that finds the lock gone, after a hold that ended in
		// time, is explained only by a server so slow (a third of the
		// lease) that the release landed after the lease.
		slow := timerprobe.MaxOver(server, iv.Start-int64(lease), iv.ReleasedAt)
		if iv.ReleaseErr != "" && !(iv.ReleaseNotHeld && slow >= lease/3) {
			t.Errorf("successor %s g%d token %d disturbed: release %q (the server's slowest answer meanwhile %v)", iv.ID, iv.G, iv.Token, iv.ReleaseErr, slow)
		}
		return
	}
	x := judgeLoss(iv, reps, hold, lease, server)
	if !x.excused() || (iv.ReleaseErr != "" && !iv.ReleaseNotHeld) {
		t.Errorf("successor disturbed: %v; release %q", x, iv.ReleaseErr)
		return
	}
	t.Logf("successor's excused loss: %v", x)
}

// awaitSuccessorWrite polls the run's logs until a holder other than "old"
// has ended a hold in which it wrote, or deadline passes (nil). It returns
// the earliest acquisition by a successor.
func awaitSuccessorWrite(t *testing.T, dir string, deadline time.Time) *Interval {
	t.Helper()
	var first *Interval
	wrote := testwait.Every(time.Until(deadline), 10*time.Millisecond, func() bool {
		acqs, done, err := ReadLogs(dir)
		if err != nil {
			t.Fatal(err)
		}
		first = nil
		for i := range acqs {
			if acqs[i].ID != "old" && (first == nil || acqs[i].Start < first.Start) {
				first = &acqs[i]
			}
		}
		for _, iv := range done {
			if iv.ID != "old" && iv.Wrote {
				return true
			}
		}
		return false
	})
	if !wrote {
		return nil
	}
	return first
}

// reportOf returns the report of the process id (zero if none).
func reportOf(reps []Report, id string) Report {
	for _, r := range reps {
		if r.ID == id {
			return r
		}
	}
	return Report{}
}

// TestPausedHolder_sampling is scenario 1 seen from inside fn, for
// watchdog and fixed leases, in Do and as the leader in Lead: the holder
// samples the clock and then its context's Err every millisecond, and its
// process is paused with SIGSTOP until a successor has written (a lease at
// least). The lease could have ended a lease after the pause began (its
// last renewal, keep-alive or heartbeat was sent before), so no sample
// taken from then on may answer "held", however late the resumed
// process's timers and goroutines run.
func TestPausedHolder_sampling(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for _, c := range samplingCases() {
			t.Run(c[0]+"/"+c[1], func(t *testing.T) { pausedSampler(t, e, c[0], c[1]) })
		}
	})
}

// samplingCases returns the lease modes and APIs a sampling run covers:
// each mode and each API once, all four combinations under make soak.
func samplingCases() [][2]string {
	return pick([][2]string{{"watchdog", APIDo}, {"expire", APILead}},
		[][2]string{{"watchdog", APIDo}, {"watchdog", APILead}, {"expire", APIDo}, {"expire", APILead}})
}

// pausedSampler runs one pause of a sampling holder.
func pausedSampler(t *testing.T, e *env, mode, api string) {
	s := newSpace(e)
	L := e.lease
	r := newRun(t, s.backend(), s.key("sample"), L)
	args := []string{"--goroutines", "1", "--acquisitions", "1", "--api", api, "--sample",
		"--hold", (4*L + 10*time.Second).String(), "--duration", "2m"}
	if mode == "expire" {
		args = append(args, "--expire", L.String())
	}
	old := r.start(t, "old", args...)
	acq := r.acquiredBy(t, "old", time.Time{}, 20*time.Second)
	paused := old.signal(t, syscall.SIGSTOP)
	for _, id := range []string{"next1", "next2"} {
		r.start(t, id, "--goroutines", "2", "--acquisitions", "2", "--hold", (L / 10).String(),
			"--acquire-timeout", (4*L + 5*time.Second).String())
	}
	time.Sleep(time.Until(paused.Add(L + time.Second)))
	if awaitSuccessorWrite(t, r.dir, paused.Add(4*L+5*time.Second)) == nil {
		t.Fatalf("no successor acquired and wrote within %v of the pause", 4*L+5*time.Second)
	}
	resumed := old.signal(t, syscall.SIGCONT)
	r.waitAll(t, time.Minute)
	r.analyse(t, AnalyseOptions{AllowOverlap: true, AllowStale: true})

	_, done, err := ReadLogs(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var oldIv *Interval
	for i := range done {
		if done[i].ID == "old" {
			oldIv = &done[i]
		}
	}
	if oldIv == nil {
		t.Fatalf("the paused holder logged no interval; its stderr:\n%s", old.stderr())
	}
	bound := paused.Add(L)
	last := fromNS(oldIv.LastHeld)
	if !last.Before(bound) {
		t.Errorf("%s/%s/%s: the paused holder's context answered \"held\" at %v after the lease could have ended (pause + lease), %v after SIGCONT: %d held answers after the %v pause",
			e.kind, mode, api, last.Sub(bound).Round(time.Microsecond), last.Sub(resumed).Round(time.Microsecond),
			oldIv.HeldAfterGap, time.Duration(oldIv.Gap).Round(time.Millisecond))
	}
	if oldIv.LostAt == 0 {
		t.Errorf("the paused holder never observed ErrLockLost (interval %+v)", *oldIv)
	}
	t.Logf("%s/%s/%s: acquired %s, paused %v later for %v; last held answer %v before the bound, lost seen %v after SIGCONT (%s)",
		e.kind, mode, api, clock(acq.Start), paused.Sub(fromNS(acq.Start)).Round(time.Millisecond), resumed.Sub(paused).Round(time.Millisecond),
		bound.Sub(last).Round(time.Millisecond), fromNS(oldIv.LostAt).Sub(resumed).Round(time.Microsecond), oldIv.LostErr)
}
