package lock4go

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// watchdog renews the leases of held locks (Redisson's watchdog) and ends
// locks whose lease runs out by the local clock (a fixed expiry, renewals
// that failed, or a lease the backend renews that it stopped confirming:
// see lock.go), so that Done closes then. It is one
// goroutine per Template, started on demand and gone when nothing is held,
// over a heap ordered by the next time each lock needs attention. Renewals
// due together go to each executor as one batch.
type watchdog struct {
	t       *Template
	mu      sync.Mutex
	heap    wdHeap
	running bool
	planned time.Time // when the loop wakes next by itself
	wake    chan struct{}
	// renewing has an entry per executor with a renewal batch in flight:
	// the renewals that fell due meanwhile, sent as the next batch by the
	// same goroutine, so each executor has at most one batch in flight.
	renewing map[executor.Executor][]*hold
}

const (
	// minRenewRetry is the shortest pause before retrying a failed renewal.
	minRenewRetry = 10 * time.Millisecond
	// idleExit is how long the loop outlives the last held lock, so that
	// back-to-back locks do not start a goroutine each.
	idleExit = 50 * time.Millisecond
)

// track starts watching a new lock: loss reported by the executor, and the
// watchdog's renewal or expiry.
func (t *Template) track(h *hold) {
	t.holds.Add(1)
	stop := h.watchLoss()
	h.mu.Lock()
	ended := h.err != nil
	if !ended {
		h.stopLost = stop
	}
	h.mu.Unlock()
	if ended {
		stop.stop()
		return
	}
	switch {
	case !h.renewed:
		t.wd.add(h, h.localEnd())
	case !h.self:
		t.wd.add(h, h.acquiredAt.Add(h.ttl/3))
	case h.ender != nil:
		t.wd.add(h, h.ender.LocalEnd())
	}
}

// untrack stops the watchdog's work on h, at now.
func (t *Template) untrack(h *hold, now time.Time) { t.wd.remove(h, now) }

// add schedules h at at. The loop is woken only if it would otherwise sleep
// past at.
func (w *watchdog) add(h *hold, at time.Time) {
	w.mu.Lock()
	h.wdAt.Store(at)
	heap.Push(&w.heap, h)
	start := !w.running
	wake := !start && at.Before(w.planned)
	if start {
		w.running = true
		w.planned = at
		if w.wake == nil {
			w.wake = make(chan struct{}, 1)
		}
	}
	w.mu.Unlock()
	if start {
		go w.loop()
	} else if wake {
		w.signal()
	}
}

// remove unschedules h. When nothing is left the loop is woken only if it
// would otherwise sleep long past its idle exit.
func (w *watchdog) remove(h *hold, now time.Time) {
	w.mu.Lock()
	if h.wdIndex >= 0 {
		heap.Remove(&w.heap, int(h.wdIndex))
	}
	wake := len(w.heap) == 0 && w.running && w.planned.After(now.Add(idleExit))
	w.mu.Unlock()
	if wake {
		w.signal()
	}
}

// renewErr returns the error of h's last renewal, nil after a success.
func (w *watchdog) renewErr(h *hold) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return h.renewErr
}

func (w *watchdog) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watchdog) loop() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var idleSince time.Time
	for {
		w.mu.Lock()
		now := time.Now()
		if len(w.heap) == 0 {
			if idleSince.IsZero() {
				idleSince = now
			}
			if now.Sub(idleSince) >= idleExit {
				w.running = false
				w.mu.Unlock()
				return
			}
			w.sleepUntil(timer, idleSince.Add(idleExit), now)
			continue
		}
		idleSince = time.Time{}
		if next := w.heap[0].wdAt.Load(); next.After(now) {
			w.sleepUntil(timer, next, now)
			continue
		}
		expired, batches := w.collect(now)
		w.mu.Unlock()
		for _, h := range expired {
			h.expire()
		}
		for e, hs := range batches {
			go w.renewLoop(e, hs)
		}
	}
}

// sleepUntil plans the loop's next wake-up at at, releases w.mu (which the
// caller holds) and sleeps until then or until woken.
func (w *watchdog) sleepUntil(timer *time.Timer, at, now time.Time) {
	w.planned = at
	w.mu.Unlock()
	timer.Reset(at.Sub(now))
	select {
	case <-timer.C:
	case <-w.wake:
	}
}

// collect takes what is due at now: locks whose lease ended, and renewals
// due now or within a thirtieth of their lease, grouped by executor. A lock
// the watchdog only watches the end of (a fixed expiry, a lease the backend
// renews) whose end moved meanwhile is scheduled at its new end. The
// caller holds w.mu.
func (w *watchdog) collect(now time.Time) (expired []*hold, batches map[executor.Executor][]*hold) {
	for len(w.heap) > 0 {
		h := w.heap[0]
		endOnly := !h.renewed || h.self
		if at := h.wdAt.Load(); at.After(now) && (endOnly || h.inflight || at.After(now.Add(h.ttl/30))) {
			break
		}
		if endOnly {
			if end := h.localEnd(); now.Before(end) {
				h.wdAt.Store(end)
				heap.Fix(&w.heap, 0)
				continue
			}
		}
		if endOnly || h.pastEnd(now) {
			heap.Pop(&w.heap)
			expired = append(expired, h)
			continue
		}
		h.inflight = true
		h.wdAt.Store(h.localEnd()) // if the renewal hangs, the lease end decides
		heap.Fix(&w.heap, 0)
		if queued, busy := w.renewing[h.reg.e]; busy {
			w.renewing[h.reg.e] = append(queued, h)
			continue
		}
		if batches == nil {
			batches = map[executor.Executor][]*hold{}
		}
		batches[h.reg.e] = append(batches[h.reg.e], h)
	}
	for e := range batches {
		if w.renewing == nil {
			w.renewing = map[executor.Executor][]*hold{}
		}
		w.renewing[e] = nil
	}
	return expired, batches
}

// renewLoop sends e's renewal batches one at a time until none is queued.
func (w *watchdog) renewLoop(e executor.Executor, hs []*hold) {
	for len(hs) > 0 {
		w.renew(e, hs)
		w.mu.Lock()
		hs = hs[:0]
		for _, h := range w.renewing[e] {
			if h.wdIndex >= 0 { // skip locks released or lost meanwhile
				hs = append(hs, h)
			} else {
				h.inflight = false
			}
		}
		if len(hs) == 0 {
			delete(w.renewing, e)
		} else {
			w.renewing[e] = nil
		}
		w.mu.Unlock()
	}
}

// renew renews hs on e, in one batch when e supports it, bounded by the
// earliest lease end, and reschedules each by its outcome.
func (w *watchdog) renew(e executor.Executor, hs []*hold) {
	sent := time.Now()
	deadline := hs[0].localEnd()
	for _, h := range hs[1:] {
		if end := h.localEnd(); end.Before(deadline) {
			deadline = end
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	errs := renewAll(ctx, e, hs)
	cancel()

	now := time.Now()
	hs[0].reg.stats.record(now, now.Sub(sent), backendErr(errs))
	gone, failed := w.reschedule(hs, errs, sent, now)
	w.signal()
	for _, i := range gone {
		hs[i].lose("a renewal found it held by nobody or someone else", errs[i], leaveLease)
	}
	for _, i := range failed {
		w.t.reportRenewFailed(hs[i], errs[i])
	}
}

// reschedule applies the outcome of renewing hs (errs, sent at sent,
// answered at now) to their lease ends and next renewal times, and returns
// the indexes of the locks found gone and of the renewals that failed.
func (w *watchdog) reschedule(hs []*hold, errs []error, sent, now time.Time) (gone, failed []int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, h := range hs {
		h.inflight = false
		if h.wdIndex < 0 {
			continue // released or lost meanwhile
		}
		switch err := errs[i]; {
		case err == nil:
			h.leaseEnd.Advance(sent.Add(h.ttl - executor.SafetyMargin(h.ttl)))
			h.wdAt.Store(sent.Add(h.ttl / 3))
			h.renewals++
			h.lastRenew = now.Sub(sent)
			h.renewErr = nil
		case errors.Is(err, ErrLockNotHeld):
			gone = append(gone, i)
			continue
		default:
			failed = append(failed, i)
			h.renewErr = err
			at := now.Add(max(h.ttl/12, minRenewRetry))
			if end := h.localEnd(); at.After(end) {
				at = end
			}
			h.wdAt.Store(at)
		}
		heap.Fix(&w.heap, int(h.wdIndex))
	}
	return gone, failed
}

// backendErr returns the first error of a renewal batch that is not a lock
// found gone (an answer), or nil.
func backendErr(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, ErrLockNotHeld) {
			return err
		}
	}
	return nil
}

// renewAll renews hs through e's batch renewal if it has one.
func renewAll(ctx context.Context, e executor.Executor, hs []*hold) []error {
	if br, ok := e.(executor.BatchRenewer); ok {
		items := make([]executor.RenewItem, len(hs))
		for i, h := range hs {
			items[i] = executor.RenewItem{Lease: h.lease, TTL: h.ttl}
		}
		if errs := br.RenewBatch(ctx, items); len(errs) == len(hs) {
			return errs
		}
	}
	errs := make([]error, len(hs))
	for i, h := range hs {
		errs[i] = h.lease.Renew(ctx, h.ttl)
	}
	return errs
}

// wdHeap orders holds by wdAt.
type wdHeap []*hold

func (q wdHeap) Len() int           { return len(q) }
func (q wdHeap) Less(i, j int) bool { return q[i].wdAt.Load().Before(q[j].wdAt.Load()) }
func (q wdHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].wdIndex, q[j].wdIndex = int32(i), int32(j)
}
func (q *wdHeap) Push(x any) {
	h := x.(*hold)
	h.wdIndex = int32(len(*q))
	*q = append(*q, h)
}
func (q *wdHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	h.wdIndex = -1
	*q = old[:len(old)-1]
	return h
}
