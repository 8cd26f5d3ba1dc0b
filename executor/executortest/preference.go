package executortest

import (
	"context"
	"reflect"
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
	h.reader, h.other = first.l, readers[2-i]
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
	reader executor.Lease  // the reader granted first
	other  <-chan acquired // the other reader's acquisition
}

// passedOver checks a hand-off in which a reader had the key before the
// writer: only an executor with claims may do that, only once the claim
// window passed before the writer's attempt after its wake (the one that
// asks the backend) was answered, and the writer must then have the next
// turn, before a reader that comes after that attempt. inspector counts
// k's waiters.
func (s *suite) passedOver(ctx context.Context, t *testing.T, inspector executor.Executor, k string, h handOff) {
	granted := time.Now()
	lapse := h.before.Add(s.o.ClaimWindow)
	if s.o.ClaimWindow == 0 {
		t.Fatal("a reader that came after the waiting writer had the key before it")
	}
	if granted.Before(lapse) {
		t.Fatalf("a reader had the key %v after the release began, within the writer's claim window %v", granted.Sub(h.before), s.o.ClaimWindow)
	}
	// The writer's attempt after its wake: one that ran within the claim
	// window would have taken the key. The readers were granted after a
	// takeover, so an answer "busy" put the writer first in the queue.
	var woke attemptSpan
	if !testwait.Until(10*time.Second, func() (ok bool) { woke, ok = h.log.wokenAfter(h.before); return ok }) {
		t.Fatal("the writer, passed over, made no attempt after a wake within 10s")
	}
	if woke.answered.Before(lapse) {
		t.Fatalf("the writer's attempt after its wake was sent %v after the release began and answered after %v, within its claim window %v, and a reader had the key first",
			woke.sent.Sub(h.before), woke.answered.Sub(h.before), s.o.ClaimWindow)
	}
	t.Logf("the writer was passed over: its attempt after its wake was sent %v after the release began and answered after %v, past its claim window %v; this process's timers ran up to %v late meanwhile (timerprobe)",
		woke.sent.Sub(h.before), woke.answered.Sub(h.before), s.o.ClaimWindow, timerprobe.Max(h.probe.Delays(), h.before.UnixNano(), woke.answered.UnixNano()))
	late := acquireAsync(ctx, s.f(t), s.read(k, 0, true))
	waiting(t, inspector, k, 2)
	release(t, h.reader)
	// The other reader was served with the first, unless its own claim
	// lapsed too: then it waits behind the writer, which was first.
	got, i := firstGrant(ctx, t, []<-chan acquired{h.writer, h.other})
	if i == 0 {
		s.writerFirst(ctx, t, got.l, []<-chan acquired{late, h.other})
		return
	}
	release(t, got.l)
	w := await(ctx, t, h.writer, "the passed-over writer, at the readers' release")
	s.writerFirst(ctx, t, w, []<-chan acquired{late})
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
		ch <- acquired{l, err}
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
