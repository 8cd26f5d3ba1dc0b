package lock4go

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Snapshot is a moment's view of what one Template is doing, for
// operations pages (package lockdebug) and health checks. It is taken
// piece by piece, without stopping the Template, so its parts may disagree
// by the few microseconds it takes. It holds no credentials; keys and
// owner values are as the callers gave and drew them.
type Snapshot struct {
	// Time is when the snapshot was taken.
	Time time.Time
	// Executors lists the registered executors in priority order.
	Executors []ExecutorStats
	// Held lists the locks the Template holds, by executor and key. A lock
	// whose lease has run out by the local clock is not listed, even before
	// the watchdog ends it.
	Held []LockInfo
	// Queues lists the keys that goroutines of this process are waiting
	// for in the local queue, by executor and key.
	Queues []KeyQueue
	// Failures lists recent failures, newest first: the latest 32 busy keys
	// and expired fixed leases, and the latest 32 of the other kinds.
	Failures []Failure
}

// Renewal says what keeps a held lock's lease alive.
type Renewal string

// Renewal modes.
const (
	// RenewalWatchdog: the Template's watchdog renews it every third of its
	// lease.
	RenewalWatchdog Renewal = "watchdog"
	// RenewalBackend: the backend keeps it alive while the client's session
	// lives (a ZooKeeper session, an etcd keep-alive).
	RenewalBackend Renewal = "backend"
	// RenewalFixed: a fixed lease ([WithExpire]), never renewed.
	RenewalFixed Renewal = "fixed"
)

// LockInfo describes one lock a Template holds, as [Template.Snapshot]
// reports it.
type LockInfo struct {
	Key      string
	Executor string
	// Kind is the kind of lock, as [executor.Holder.Kind] says it:
	// [KindLock] (a mutex, or the write lock of a read-write lock),
	// [KindRead] ([Shared]) or [KindPermits] ([WithPermits]).
	Kind  Kind
	Token int64
	// Owner is the owner value stored with the lock on the backend.
	Owner      string
	AcquiredAt time.Time
	// Handles counts the handles sharing the lock (more than one when
	// re-entered).
	Handles int
	Renewal Renewal
	// LeaseLeft is how long the lease lasts by the local clock without
	// another renewal (for [RenewalBackend], without another confirmed
	// keep-alive or heartbeat); zero when the executor does not tell.
	LeaseLeft time.Duration
	// Renewals counts the watchdog's successful renewals, and LastRenewal
	// is the round trip of the latest of them.
	Renewals    int
	LastRenewal time.Duration
}

// KeyQueue is the local queue of one key: goroutines of this process that
// wait for their turn before they ask the backend.
type KeyQueue struct {
	Executor string
	Key      string
	// Waiting counts the goroutines waiting for the key's turn.
	Waiting int
	// Acquiring is set while a goroutine has the turn but not yet the lock:
	// its attempt is in flight, or it waits on the backend for another
	// process to release the key.
	Acquiring bool
}

// Health is an executor's state as the Template's own round trips show it.
type Health string

// Health states.
const (
	// HealthUnknown: no round trip since the Template was created.
	HealthUnknown Health = "unknown"
	// HealthOK: the latest round trip was answered.
	HealthOK Health = "ok"
	// HealthFailing: the latest round trip failed (an error, or no answer
	// in time).
	HealthFailing Health = "failing"
)

// ExecutorStats describes one executor and its round trips over the last
// minute. Round trips are acquire attempts that cannot have waited in a
// backend queue (on queue-based executors such as etcd and ZooKeeper, only
// those of TryLock), renewal batches and releases. Those of in-process
// executors are counted but not timed (P50 and P99 stay zero): they cost
// less than reading the clock.
type ExecutorStats struct {
	Name     string
	Priority int
	// Primary is set for the executor used when a call picks none.
	Primary bool
	Health  Health
	// LastRoundTrip is when the latest round trip ended (zero if none).
	LastRoundTrip time.Time
	// RoundTrips counts the round trips timed in the last minute, and P50
	// and P99 are their latency percentiles (within 19%).
	RoundTrips int
	P50, P99   time.Duration
	// Errors counts backend errors in the last minute, ErrorsTotal since
	// the Template was created.
	Errors      int
	ErrorsTotal int64
	// LastError is the latest backend error (nil if none) and LastErrorAt
	// when it happened.
	LastError   error
	LastErrorAt time.Time
}

// Snapshot returns what the Template is doing now: locks held, goroutines
// queued per key, recent failures and each executor's health and latency.
// It is cheap enough for a page refreshed every second, and never blocks
// on a backend.
func (t *Template) Snapshot() Snapshot {
	now := time.Now()
	s := Snapshot{Time: now, Executors: make([]ExecutorStats, len(t.execs))}
	for i, r := range t.execs {
		s.Executors[i] = r.describe(now, r == t.primary)
	}
	var holders []*hold
	s.Queues, holders = t.localQueues()
	holders = t.shared.view(holders)
	for _, h := range holders {
		if hl, ok := t.describe(h, now); ok {
			s.Held = append(s.Held, hl)
		}
	}
	slices.SortFunc(s.Held, func(a, b LockInfo) int {
		return cmp.Or(cmp.Compare(a.Executor, b.Executor), cmp.Compare(a.Key, b.Key))
	})
	s.Failures = t.failures.list()
	slices.SortStableFunc(s.Failures, func(a, b Failure) int { return b.Time.Compare(a.Time) })
	return s
}

// describe returns the statistics of r at now.
func (r *registered) describe(now time.Time, primary bool) ExecutorStats {
	sum := r.stats.summary(now)
	health := HealthOK
	switch {
	case sum.last.IsZero():
		health = HealthUnknown
	case sum.failing:
		health = HealthFailing
	}
	return ExecutorStats{
		Name: r.name, Priority: r.e.Priority(), Primary: primary, Health: health,
		LastRoundTrip: sum.last, RoundTrips: sum.n, P50: sum.p50, P99: sum.p99,
		Errors: sum.errs, ErrorsTotal: sum.errorsOverall, LastError: sum.lastErr, LastErrorAt: sum.lastErrAt,
	}
}

// describe returns h as a LockInfo, and false when it is no longer held at
// now (released, lost, or its lease ran out by the local clock).
func (t *Template) describe(h *hold, now time.Time) (LockInfo, bool) {
	h.mu.Lock()
	ended, refs := h.err != nil, int(h.refs)
	h.mu.Unlock()
	if ended {
		return LockInfo{}, false
	}
	hl := LockInfo{
		Key: h.key, Executor: h.reg.name, Kind: h.kind(), Token: h.token, Owner: h.owner,
		AcquiredAt: h.acquiredAt, Handles: refs, Renewal: RenewalWatchdog,
	}
	switch {
	case !h.renewed:
		hl.Renewal = RenewalFixed
	case h.self:
		hl.Renewal = RenewalBackend
	}
	t.wd.mu.Lock()
	hl.Renewals, hl.LastRenewal = h.renewals, h.lastRenew
	t.wd.mu.Unlock()
	if end := h.localEnd(); !end.IsZero() {
		hl.LeaseLeft = end.Sub(now)
		if hl.LeaseLeft <= 0 {
			return LockInfo{}, false
		}
	}
	return hl, true
}

// kind returns h's kind as [LockInfo.Kind] names it.
func (h *hold) kind() Kind {
	switch {
	case h.permits > 0:
		return KindPermits
	case h.shared:
		return KindRead
	}
	return KindLock
}

// sharedHolds are the held read locks and permits, which take no turn in
// the local queue, for Snapshot.
type sharedHolds struct {
	mu sync.Mutex
	m  map[*hold]struct{}
}

func (s *sharedHolds) add(h *hold) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[*hold]struct{}{}
	}
	s.m[h] = struct{}{}
	s.mu.Unlock()
}

func (s *sharedHolds) remove(h *hold) {
	s.mu.Lock()
	delete(s.m, h)
	s.mu.Unlock()
}

// view appends the held read locks and permits to holders.
func (s *sharedHolds) view(holders []*hold) []*hold {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h := range s.m {
		holders = append(holders, h)
	}
	return holders
}

// localQueues returns the keys goroutines of this process wait for in the
// local queue, by executor and key, and the locks held through a turn.
// Counts read while goroutines come and go are a moment's approximation.
func (t *Template) localQueues() (queues []KeyQueue, holders []*hold) {
	for _, st := range t.turns.States() {
		if st.Hold != nil {
			holders = append(holders, st.Hold)
		}
		acquiring := st.Taken && st.Hold == nil
		if st.Waiting > 0 || acquiring {
			queues = append(queues, KeyQueue{Executor: st.Key.exec, Key: st.Key.key, Waiting: st.Waiting, Acquiring: acquiring})
		}
	}
	slices.SortFunc(queues, func(a, b KeyQueue) int {
		return cmp.Or(cmp.Compare(a.Executor, b.Executor), cmp.Compare(a.Key, b.Key))
	})
	return queues, holders
}
