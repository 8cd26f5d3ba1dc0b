package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// APIs a holder can use.
const (
	// APILock takes the lock with Template.Lock and releases it itself, so
	// it sees Release's error.
	APILock = "lock"
	// APIDo runs the hold inside Template.Do and learns the token by
	// re-entering the lock from Do's context.
	APIDo = "do"
	// APILead runs the hold as the leader inside Template.Lead (one
	// leadership per acquisition) and learns the token with LockFrom.
	APILead = "lead"
)

// Lock kinds the holders take.
const (
	// ModeMutex: every hold is a lock (the default).
	ModeMutex = "mutex"
	// ModeRW: every third hold of a goroutine is a write lock, the others
	// are read locks (lock4go.Shared). Readers read the record and do not
	// write it.
	ModeRW = "rw"
	// ModePermits: every hold is one of HolderConfig.Permits permits
	// (lock4go.WithPermits). Holders do not write the record.
	ModePermits = "permits"
)

// HolderConfig configures [RunHolders].
type HolderConfig struct {
	// Mode is ModeMutex, ModeRW or ModePermits; zero means ModeMutex.
	Mode string
	// Permits is the semaphore's size in ModePermits.
	Permits int
	// Key is the one lock key every holder competes for.
	Key string
	// Goroutines is the number of holders in this process.
	Goroutines int
	// Acquisitions is how many locks the process takes in all; zero means
	// as many as Duration allows.
	Acquisitions int
	// Duration bounds the run; zero means until Acquisitions are done.
	Duration time.Duration
	// Hold is how long a holder sleeps between reading and writing the
	// record.
	Hold time.Duration
	// Expire, when positive, gives every lock a fixed lease (WithExpire);
	// zero means watchdog locks with the Template's Config.Expire.
	Expire time.Duration
	// API is APILock, APIDo or APILead; zero means APILock.
	API string
	// Sample makes each hold, instead of sleeping Hold, sample the clock
	// and then ask its context's Err every millisecond for Hold, until Err
	// is not nil: the interval records the last "held" answer (LastHeld)
	// and how many came after the longest gap between samples (a pause of
	// the process).
	Sample bool
	// IgnoreLost makes holders sleep through a lost lock and present their
	// token anyway, as a process paused between its check and its write
	// would: the fence must reject it. Without it a holder that observes
	// the loss during the hold gives up (Aborted).
	IgnoreLost bool
	// Linger keeps the lock for this long after the write (or until it is
	// lost) before releasing it, so that the loss of a lock can be seen
	// after the holder acted on it. Zero releases at once.
	Linger time.Duration
	// EndHolds, once closed, ends the sleep of every hold in progress or
	// to come at once, as if Hold had passed: a test holds the lock until
	// the event it waits for has happened. Nil means never.
	EndHolds <-chan struct{}
	// Dir holds the record, the fence store and the interval logs.
	Dir string
	// ID names this process in the logs.
	ID string
}

// Report is what one process observed. Counters are totals over its
// holders.
type Report struct {
	ID      string `json:"id"`
	PID     int    `json:"pid"`
	Backend string `json:"backend"`
	Key     string `json:"key,omitempty"`

	// Acquisitions counts locks obtained.
	Acquisitions int64 `json:"acquisitions"`
	// NotAcquired counts acquisitions that ended with ErrNotAcquired
	// (busy until the acquire timeout).
	NotAcquired int64 `json:"not_acquired"`
	// BackendErrors counts acquisitions that ended with ErrBackend.
	BackendErrors int64 `json:"backend_errors"`
	// OtherErrors counts acquisitions that ended with any other error.
	OtherErrors int64 `json:"other_errors"`
	// Writes counts holds whose token the fence accepted and whose record
	// write followed.
	Writes int64 `json:"writes"`
	// StaleRejected counts holds whose token the fence rejected.
	StaleRejected int64 `json:"stale_rejected"`
	// Aborted counts holds that observed the loss of their lock before
	// presenting their token, and gave up.
	Aborted int64 `json:"aborted"`
	// Lost counts lost-lock signals: contexts cancelled with ErrLockLost.
	Lost int64 `json:"lost"`
	// ReleaseErrors counts failed Release calls; ReleaseNotHeld those of
	// them that wrap ErrLockNotHeld.
	ReleaseErrors  int64 `json:"release_errors"`
	ReleaseNotHeld int64 `json:"release_not_held"`

	// Errors is a sample of distinct errors seen.
	Errors []string `json:"errors,omitempty"`
	// Violations are failures this process could tell by itself.
	Violations []string `json:"violations,omitempty"`
	// Elapsed is the run time.
	Elapsed time.Duration `json:"elapsed_ns"`
	// TimerDelays are the late wake-ups of this process's timer probe
	// (see package timerprobe): how late the process could observe a signal.
	TimerDelays []timerprobe.Delay `json:"timer_delays,omitempty"`

	// Storm is the result of a cancellation storm (lockcheck --mode storm).
	Storm *StormReport `json:"storm,omitempty"`
}

// maxErrorSamples bounds Report.Errors.
const maxErrorSamples = 20

// collector collects a Report from many goroutines.
type collector struct {
	mu     sync.Mutex
	report Report
	seen   map[string]bool
}

func (r *collector) add(f func(*Report)) {
	r.mu.Lock()
	f(&r.report)
	r.mu.Unlock()
}

func (r *collector) sample(err error) {
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if !r.seen[msg] && len(r.report.Errors) < maxErrorSamples {
		r.seen[msg] = true
		r.report.Errors = append(r.report.Errors, msg)
	}
}

func (r *collector) violation(format string, args ...any) {
	r.add(func(rep *Report) {
		if len(rep.Violations) < 100 {
			rep.Violations = append(rep.Violations, fmt.Sprintf(format, args...))
		}
	})
}

// RunHolders runs cfg.Goroutines holders over tpl until cfg.Acquisitions
// locks were taken, cfg.Duration passed or ctx ends, and returns what they
// observed. Each hold is logged to the process's interval file in cfg.Dir.
func RunHolders(ctx context.Context, tpl *lock4go.Template, cfg HolderConfig) (Report, error) {
	if err := cfg.normalise(); err != nil {
		return Report{}, err
	}
	log, err := CreateLog(cfg.Dir, cfg.ID)
	if err != nil {
		return Report{}, err
	}
	defer log.Close()
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	r := &collector{report: Report{ID: cfg.ID, PID: os.Getpid(), Key: cfg.Key}}
	var tickets atomic.Int64
	tickets.Store(int64(cfg.Acquisitions))
	began := time.Now()
	probe := timerprobe.Start()
	var wg sync.WaitGroup
	for g := range cfg.Goroutines {
		h := &holder{tpl: tpl, cfg: cfg, g: g, r: r, log: log,
			record: NewRecord(cfg.Dir), fence: NewFence(cfg.Dir)}
		if cfg.Expire > 0 {
			h.opts = append(h.opts, lock4go.WithExpire(cfg.Expire))
		}
		wg.Go(func() { h.loop(ctx, &tickets) })
	}
	wg.Wait()
	r.report.Elapsed = time.Since(began)
	r.report.TimerDelays = probe.Stop()
	return r.report, nil
}

// normalise checks cfg and fills in the defaults of its zero fields.
func (cfg *HolderConfig) normalise() error {
	if cfg.Goroutines <= 0 || cfg.Key == "" || cfg.Dir == "" || cfg.ID == "" {
		return fmt.Errorf("reliability: holders need a key, a dir, an id and goroutines")
	}
	if cfg.Acquisitions <= 0 && cfg.Duration <= 0 {
		return fmt.Errorf("reliability: holders need acquisitions or a duration")
	}
	if cfg.API == "" {
		cfg.API = APILock
	}
	if cfg.API != APILock && cfg.API != APIDo && cfg.API != APILead {
		return fmt.Errorf("reliability: unknown api %q", cfg.API)
	}
	switch cfg.Mode {
	case "":
		cfg.Mode = ModeMutex
	case ModeMutex, ModeRW:
	case ModePermits:
		if cfg.Permits <= 0 {
			return fmt.Errorf("reliability: permits mode needs permits")
		}
	default:
		return fmt.Errorf("reliability: unknown mode %q", cfg.Mode)
	}
	return nil
}

// holder is one goroutine taking the lock again and again.
type holder struct {
	tpl    *lock4go.Template
	cfg    HolderConfig
	opts   []lock4go.LockOption
	g, seq int
	shared bool // the current hold is a read lock or permit
	r      *collector
	log    *Log
	record *Record
	fence  *Fence
}

// loop takes the lock again and again until ctx ends or, when the run
// counts acquisitions, no ticket is left: each hold takes one, and an
// acquisition that failed gives its ticket back.
func (h *holder) loop(ctx context.Context, tickets *atomic.Int64) {
	for ctx.Err() == nil {
		if h.cfg.Acquisitions > 0 && tickets.Add(-1) < 0 {
			return
		}
		if !h.once(ctx) && h.cfg.Acquisitions > 0 {
			tickets.Add(1)
		}
	}
}

// kindOpts returns the options of the next hold's kind and sets h.shared.
func (h *holder) kindOpts() []lock4go.LockOption {
	switch {
	case h.cfg.Mode == ModePermits:
		h.shared = true
		return append(h.opts[:len(h.opts):len(h.opts)], lock4go.WithPermits(h.cfg.Permits))
	case h.cfg.Mode == ModeRW && (h.seq+1)%3 != 0:
		h.shared = true
		return append(h.opts[:len(h.opts):len(h.opts)], lock4go.Shared())
	}
	h.shared = false
	return h.opts
}

// once takes the lock once and holds it; it reports whether it got it.
func (h *holder) once(ctx context.Context) bool {
	opts := h.kindOpts()
	switch h.cfg.API {
	case APIDo:
		return h.onceDo(ctx, opts)
	case APILead:
		return h.onceLead(ctx, opts)
	}
	l, err := h.tpl.Lock(ctx, h.cfg.Key, opts...)
	if err != nil {
		h.failed(ctx, err)
		return false
	}
	iv := h.begin(l.Token())
	lctx, cancel := l.Context(context.Background())
	h.hold(lctx, &iv)
	cancel()
	rerr := l.Release(context.Background())
	iv.ReleasedAt = ns(time.Now())
	if rerr != nil {
		iv.ReleaseErr = rerr.Error()
		iv.ReleaseNotHeld = errors.Is(rerr, lock4go.ErrLockNotHeld)
	}
	h.finish(iv)
	return true
}

// onceDo takes the lock through Template.Do.
func (h *holder) onceDo(ctx context.Context, opts []lock4go.LockOption) bool {
	var iv Interval
	ran, held := false, false
	// Do is not bounded by the run's end (a hold must not be cut short by
	// it); the acquire timeout bounds the wait.
	err := h.tpl.Do(context.WithoutCancel(ctx), h.cfg.Key, func(fctx context.Context) error {
		ran = true
		// Re-entering the lock from Do's context yields its token.
		l, err := h.tpl.Lock(fctx, h.cfg.Key, opts...)
		if err != nil {
			h.r.violation("g%d: re-entry inside Do failed: %v", h.g, err)
			return err
		}
		held = true
		iv = h.begin(l.Token())
		if err := l.Release(fctx); err != nil {
			h.r.violation("g%d: release of a re-entered handle failed: %v", h.g, err)
		}
		h.hold(fctx, &iv)
		return nil
	}, opts...)
	if !ran {
		h.failed(ctx, err)
		return false
	}
	if !held {
		return true // the violation is recorded
	}
	iv.ReleasedAt = ns(time.Now())
	if err != nil && !errors.Is(err, lock4go.ErrLockLost) {
		iv.ReleaseErr = err.Error()
	}
	h.finish(iv)
	return true
}

// onceLead takes the lock as the leader of Template.Lead, for one
// leadership: fn cancels the campaign before it returns. The campaign, and
// a hold in progress, end with ctx.
func (h *holder) onceLead(ctx context.Context, opts []lock4go.LockOption) bool {
	var iv Interval
	ran := false
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	err := h.tpl.Lead(lctx, h.cfg.Key, func(fctx context.Context) error {
		defer stop()
		ran = true
		l := lock4go.LockFrom(fctx, h.cfg.Key)
		if l == nil {
			h.r.violation("g%d: Lead's context carries no lock", h.g)
			return nil
		}
		iv = h.begin(l.Token())
		h.hold(fctx, &iv)
		return nil
	}, opts...)
	if !ran {
		if ctx.Err() == nil {
			h.failed(ctx, err)
		}
		return false
	}
	iv.ReleasedAt = ns(time.Now())
	h.finish(iv)
	return true
}

// leaseLeft returns how long the lease of this holder's lock (by its
// token) has left by the local clock, 0 when the Template does not say or
// the backend keeps the lease alive (its local end then follows the
// session's heartbeats, not the acquisition).
func (h *holder) leaseLeft(token int64) time.Duration {
	for _, l := range h.tpl.Snapshot().Held {
		if l.Token == token && l.Renewal != lock4go.RenewalBackend {
			return l.LeaseLeft
		}
	}
	return 0
}

// begin starts an interval and logs the acquisition.
func (h *holder) begin(token int64) Interval {
	h.seq++
	iv := Interval{
		ID: h.cfg.ID, PID: os.Getpid(), G: h.g, Seq: h.seq, Key: h.cfg.Key,
		Token: token, Start: ns(time.Now()), Shared: h.shared && h.cfg.Mode == ModeRW, Permit: h.cfg.Mode == ModePermits,
		LeaseLeft: int64(h.leaseLeft(token)),
	}
	ev := iv
	ev.Kind = KindAcquired
	if err := h.log.Write(ev); err != nil {
		h.r.violation("log: %v", err)
	}
	h.r.add(func(r *Report) { r.Acquisitions++ })
	return iv
}

// ask samples the clock and then asks lctx whether the lock is still
// held, as an application does right before a side effect. A "held"
// answer moves iv.LastHeld to the sampled time; a loss is recorded in
// lostAt at that time.
func (h *holder) ask(lctx context.Context, iv *Interval, lostAt *atomic.Int64) bool {
	at := ns(time.Now())
	if lctx.Err() == nil {
		iv.LastHeld = at
		return true
	}
	noteLost(lctx, lostAt)
	return false
}

// sleep waits out the hold: it sleeps through a loss with IgnoreLost,
// samples with Sample, and otherwise ends early when lctx is done.
func (h *holder) sleep(lctx context.Context, iv *Interval, lostAt *atomic.Int64) {
	switch {
	case h.cfg.IgnoreLost:
		time.Sleep(h.cfg.Hold)
	case h.cfg.Sample:
		h.sample(lctx, iv, lostAt)
	default:
		awaitOrLost(lctx, h.cfg.Hold, h.cfg.EndHolds, lostAt)
	}
}

// sample asks every millisecond, for Hold or until the answer is not
// "held", and counts the held answers after the longest gap between two
// samples.
func (h *holder) sample(lctx context.Context, iv *Interval, lostAt *atomic.Int64) {
	until := time.Now().Add(h.cfg.Hold)
	prev := time.Now()
	for {
		now := time.Now()
		if gap := int64(now.Sub(prev)); gap > iv.Gap {
			iv.Gap, iv.HeldAfterGap = gap, 0
		}
		prev = now
		if !h.ask(lctx, iv, lostAt) {
			return
		}
		iv.Samples++
		iv.HeldAfterGap++
		if now.After(until) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// act ends the hold as its kind and what it observed say: a reader checks
// the record did not change; a holder that observed the loss gives up
// (unless IgnoreLost); the others present their token to the fence and, if
// accepted, write the record read at the start plus one.
func (h *holder) act(lctx context.Context, iv *Interval, lostAt *atomic.Int64) {
	v := iv.Read
	switch {
	case h.shared:
		// A reader or permit holder writes nothing: a writer beside a
		// reader shows as a changed record (and as an overlap).
		if v2, err := h.record.Read(); err == nil && v2 != v && h.cfg.Mode == ModeRW && lostAt.Load() == 0 && lctx.Err() == nil {
			h.r.violation("g%d: the record changed from %d to %d under a read lock (token %d)", h.g, v, v2, iv.Token)
		}
	case lostAt.Load() != 0 && !h.cfg.IgnoreLost:
		iv.Aborted = true
	default:
		accepted, last, err := h.fence.Accept(iv.Token)
		iv.FenceLast = last
		switch {
		case err != nil:
			h.r.violation("g%d: %v", h.g, err)
		case !accepted:
			iv.Rejected = true
		default:
			tag := strconv.Itoa(os.Getpid()) + "." + strconv.Itoa(h.g)
			if err := h.record.Write(v+1, tag); err != nil {
				h.r.violation("g%d: %v", h.g, err)
			} else {
				iv.Wrote = true
			}
		}
	}
}

// hold does the read-sleep-write on the record. lctx is cancelled with
// cause ErrLockLost if the lock is lost.
func (h *holder) hold(lctx context.Context, iv *Interval) {
	var lostAt atomic.Int64
	observed := make(chan struct{})
	stop := context.AfterFunc(lctx, func() {
		defer close(observed)
		noteLost(lctx, &lostAt)
	})
	// A lock already over when the hold began was never held.
	iv.Void = !h.ask(lctx, iv, &lostAt)
	v, err := h.record.Read()
	if err != nil {
		h.r.violation("g%d: %v", h.g, err)
	}
	iv.Read, iv.ReadAt = v, ns(time.Now())
	if !iv.Void || h.cfg.IgnoreLost {
		h.sleep(lctx, iv, &lostAt)
	}
	if !h.cfg.IgnoreLost && lostAt.Load() == 0 {
		h.ask(lctx, iv, &lostAt) // right before the write
	}
	h.act(lctx, iv, &lostAt)
	iv.End = ns(time.Now())
	if h.cfg.Linger > 0 {
		awaitOrLost(lctx, h.cfg.Linger, nil, &lostAt)
	}
	if !stop() {
		// The callback ran or is running: wait for it, so lostAt is final.
		select {
		case <-observed:
		case <-time.After(time.Second):
		}
	}
	// stop can win the race against a cancellation that has closed Done
	// but not yet reached the callback; the cause still tells.
	if lctx.Err() != nil {
		noteLost(lctx, &lostAt)
	}
	if at := lostAt.Load(); at != 0 {
		iv.LostAt = at
		iv.LostErr = context.Cause(lctx).Error()
	}
}

// noteLost records now in lostAt, unless a time is already there, if lctx
// was cancelled because the lock was lost.
func noteLost(lctx context.Context, lostAt *atomic.Int64) {
	if errors.Is(context.Cause(lctx), lock4go.ErrLockLost) {
		lostAt.CompareAndSwap(0, ns(time.Now()))
	}
}

// awaitOrLost waits d, or until end closes, or until lctx ends (noting a
// lost lock in lostAt).
func awaitOrLost(lctx context.Context, d time.Duration, end <-chan struct{}, lostAt *atomic.Int64) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-end:
	case <-lctx.Done():
		noteLost(lctx, lostAt)
	}
}

// finish logs a completed interval and counts it.
func (h *holder) finish(iv Interval) {
	iv.Kind = KindInterval
	if err := h.log.Write(iv); err != nil {
		h.r.violation("log: %v", err)
	}
	h.r.add(func(r *Report) {
		switch {
		case iv.Wrote:
			r.Writes++
		case iv.Rejected:
			r.StaleRejected++
		case iv.Aborted:
			r.Aborted++
		}
		if iv.LostAt != 0 {
			r.Lost++
		}
		if iv.ReleaseErr != "" {
			r.ReleaseErrors++
			if iv.ReleaseNotHeld {
				r.ReleaseNotHeld++
			}
		}
	})
}

// failed counts an acquisition that did not succeed.
func (h *holder) failed(ctx context.Context, err error) {
	switch {
	case errors.Is(err, lock4go.ErrNotAcquired):
		h.r.add(func(r *Report) { r.NotAcquired++ })
	case errors.Is(err, lock4go.ErrBackend):
		h.r.add(func(r *Report) { r.BackendErrors++ })
		h.r.sample(err)
	default:
		h.r.add(func(r *Report) { r.OtherErrors++ })
		h.r.sample(err)
		if ctx.Err() == nil {
			h.r.violation("g%d: unexpected acquire error: %v", h.g, err)
		}
	}
	if ctx.Err() == nil && !errors.Is(err, lock4go.ErrNotAcquired) {
		// A backend that is down fails at once; do not spin.
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// MaxTimerDelay returns the largest delay of this process's timers due
// between from and to (Unix nanoseconds).
func (r Report) MaxTimerDelay(from, to int64) time.Duration {
	return timerprobe.Max(r.TimerDelays, from, to)
}
