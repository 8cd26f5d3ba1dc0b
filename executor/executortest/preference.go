package executortest

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// testWriterPreference checks that once a writer waits, a reader that
// comes later does not get in beside the readers holding the key, and that
// readers waiting behind a writer are all granted at its release.
//
// On an executor with claims ([Options.ClaimWindow]) the release hands
// the key to the writer as a claim its next attempt takes. A writer none
// of whose attempts could ask within the claim window (the machine
// stalled it) may be passed over once by the readers queued behind it: it
// must then have the next turn, before a reader that comes after it ran
// again. The writer's own attempts, sent and answered, show whether it
// could ask in time; nothing else excuses a reader that gets in first.
func (s *suite) testWriterPreference(t *testing.T) {
	s.needShared(t)
	a, b, c, d := s.f(t), s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	r1 := mustAcquire(t, a, s.read(k, 0, false))
	log := &attemptLog{}
	writer := acquireLoggedAsync(ctx, b, s.req(k, 0, true), log)
	waiting(t, a, k, 1)
	mustNotAcquire(t, c, s.read(k, 0, false))
	readers := []<-chan acquired{acquireAsync(ctx, c, s.read(k, 0, true)), acquireAsync(ctx, d, s.read(k, 0, true))}
	waiting(t, a, k, 3)
	probe := timerprobe.Start()
	defer probe.Stop()
	h := handOff{before: time.Now(), log: log, probe: probe, writer: writer}
	release(t, r1)
	first, i := firstGrant(ctx, t, append([]<-chan acquired{writer}, readers...))
	if i == 0 {
		s.writerFirst(ctx, t, first.l, readers)
		return
	}
	h.reader, h.other = first, readers[2-i]
	s.passedOver(ctx, t, a, k, h)
}

// writerFirst checks the writer's turn w: no reader holds the key with
// it, and the readers are granted at its release.
func (s *suite) writerFirst(ctx context.Context, t *testing.T, w executor.Lease, readers []<-chan acquired) {
	for _, r := range readers {
		select {
		case got := <-r:
			if got.err != nil {
				t.Fatal(got.err)
			}
			release(t, got.l, w)
			t.Fatal("a reader that came after the waiting writer holds the key with it")
		default:
		}
	}
	release(t, w)
	for _, r := range readers { // both readers, neither waiting for the other
		defer release(t, await(ctx, t, r, "a reader waiting behind the writer, at its release"))
	}
}

// handOff is what testWriterPreference knows of the release that handed
// the key on: when it began, the writer's attempts, and the acquisitions
// still running.
type handOff struct {
	before time.Time // just before the release began
	log    *attemptLog
	probe  *timerprobe.Probe
	writer <-chan acquired
	reader acquired        // the reader granted first
	other  <-chan acquired // the other reader's acquisition
}

// passedOver checks a hand-off in which a reader had the key before the
// writer: only an executor with claims may do that, only while the writer
// is late for its claim (lateFor), and a reader that comes once the writer
// ran again must wait behind it. inspector counts k's waiters.
func (s *suite) passedOver(ctx context.Context, t *testing.T, inspector executor.Executor, k string, h handOff) {
	if h.reader.at.Before(h.before.Add(s.o.ClaimWindow)) {
		t.Fatalf("a reader had the key %v after the release began, within the writer's claim window %v", h.reader.at.Sub(h.before), s.o.ClaimWindow)
	}
	until := s.lateFor(t, "the writer", h.before, time.Time{}, h.log)
	t.Logf("this process's timers ran up to %v late meanwhile (timerprobe)", timerprobe.Max(h.probe.Delays(), h.before.UnixNano(), until.UnixNano()))
	// The writer's late attempt found the key the readers' and put the
	// writer first in the queue: a reader that comes now waits behind it.
	late := acquireAsync(ctx, s.f(t), s.read(k, 0, true))
	waiting(t, inspector, k, 2)
	pending, holding := []<-chan acquired{h.other, late}, h.reader
	for {
		releasing := time.Now()
		release(t, holding.l)
		got, i := firstGrant(ctx, t, append([]<-chan acquired{h.writer}, pending...))
		if i == 0 {
			s.writerFirst(ctx, t, got.l, pending)
			return
		}
		if got.at.After(releasing) {
			// Not of the group that had the key before: the writer was
			// passed over again, which only another lapse allows.
			until = s.lateFor(t, "the writer", releasing, until, h.log)
		}
		pending, holding = slices.Delete(pending, i-1, i), got
	}
}

// lateFor fails t unless who, whose attempts log holds, was passed over by
// a hand-off whose release began at releasing because it was late for its
// claim, and returns until when it was late. The executor must hand off by
// claims ([Options.ClaimWindow]); and either who was still late from a
// hand-off before (its late attempt, answered at until, came after
// releasing), or its first attempt after a wake since releasing was
// answered past the claim window (one answered within it would have taken
// the claim).
func (s *suite) lateFor(t *testing.T, who string, releasing, until time.Time, log *attemptLog) time.Time {
	t.Helper()
	if s.o.ClaimWindow == 0 {
		t.Fatalf("%s was passed over by a later waiter", who)
	}
	if until.After(releasing) {
		return until
	}
	var woke attemptSpan
	if !testwait.Until(10*time.Second, func() (ok bool) { woke, ok = log.wokenAfter(releasing); return ok }) {
		t.Fatalf("%s was passed over and not woken within 10s of the release", who)
	}
	if woke.answered.Before(releasing.Add(s.o.ClaimWindow)) {
		t.Fatalf("%s was passed over, though its attempt after its wake was answered %v after the release began, within the claim window %v",
			who, woke.answered.Sub(releasing), s.o.ClaimWindow)
	}
	t.Logf("%s was passed over: its attempt after its wake was sent %v after the release began and answered after %v, past the claim window %v",
		who, woke.sent.Sub(releasing), woke.answered.Sub(releasing), s.o.ClaimWindow)
	return woke.answered
}

// firstGrant receives the first outcome of chs and returns it and its
// index; it fails t when that acquisition failed or ctx ends first.
func firstGrant(ctx context.Context, t *testing.T, chs []<-chan acquired) (acquired, int) {
	t.Helper()
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
	for _, ch := range chs {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	i, v, _ := reflect.Select(cases)
	if i == 0 {
		t.Fatalf("none of %d waiters was granted: %v", len(chs), ctx.Err())
	}
	got := v.Interface().(acquired)
	if got.err != nil {
		t.Fatalf("waiter %d of %d: %v", i-1, len(chs), got.err)
	}
	return got, i - 1
}

// acquireLoggedAsync runs acquireLogged in a goroutine of its own and
// delivers its outcome on the channel it returns.
func acquireLoggedAsync(ctx context.Context, e executor.Executor, r executor.Request, log *attemptLog) <-chan acquired {
	ch := make(chan acquired, 1)
	go func() {
		l, err := acquireLogged(ctx, e, r, log)
		ch <- acquired{l, err, time.Now()}
	}()
	return ch
}

// attemptLog records a waiter's attempts. A nil log records nothing. It
// is safe for concurrent use.
type attemptLog struct {
	mu       sync.Mutex
	attempts []attemptSpan
}

// attemptSpan is one attempt: when it was sent and answered, whether it
// followed a wake (an executor with claims then asks the backend, never
// answers from what it knows), and whether it took the key.
type attemptSpan struct {
	sent, answered time.Time
	woken, took    bool
}

// add records an attempt.
func (l *attemptLog) add(a attemptSpan) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts = append(l.attempts, a)
}

// wokenAfter returns the first attempt that followed a wake and was sent
// at or after from.
func (l *attemptLog) wokenAfter(from time.Time) (attemptSpan, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.attempts {
		if a.woken && !a.sent.Before(from) {
			return a, true
		}
	}
	return attemptSpan{}, false
}
