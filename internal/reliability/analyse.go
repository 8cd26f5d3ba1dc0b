package reliability

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// AnalyseOptions says what a run went through.
type AnalyseOptions struct {
	// AllowOverlap accepts overlapping believed-held intervals: a fault
	// the holders cannot know of (a holder process paused) was injected.
	// Lost updates are never accepted.
	AllowOverlap bool
	// AllowStale accepts stale tokens rejected by the fence (a fault was
	// injected). Without faults a rejection means tokens did not increase.
	AllowStale bool
	// AllowRegression accepts token regressions on a mutex key: a failover
	// that lost acknowledged writes can hand a lock out twice.
	AllowRegression bool
	// Killed maps a process id (Interval.ID) to when it was killed: its
	// acquisitions without a logged interval end there.
	Killed map[string]time.Time
	// Permits, when positive, is the size of the semaphore the holders
	// took permits of: up to that many permit intervals may overlap.
	// Read-lock intervals (Interval.Shared) may always overlap each other.
	Permits int
}

// Overlap is a pair of believed-held intervals that intersect.
type Overlap struct {
	// First started first; Second started before First's believed end.
	First, Second Interval
	// By is how long they overlapped.
	By time.Duration
}

// Analysis is the merged view of a run's logs, record and fence store.
type Analysis struct {
	// Acquisitions counts locks obtained; Intervals the completed holds;
	// Open the holds of killed processes that never completed.
	Acquisitions int `json:"acquisitions"`
	Intervals    int `json:"intervals"`
	Open         int `json:"open"`
	// Overlaps are the intersecting believed-held intervals (the first
	// maxOverlaps of them); OverlapCount counts them all.
	Overlaps     []Overlap `json:"overlaps,omitempty"`
	OverlapCount int       `json:"overlap_count"`
	// Writes counts holds whose token the fence accepted and that wrote
	// the record; Final is the record's value; LostUpdates is Writes minus
	// Final.
	Writes      int64 `json:"writes"`
	Final       int64 `json:"final"`
	LostUpdates int64 `json:"lost_updates"`
	// StaleRejected counts holds whose token the fence rejected; Aborted
	// those that gave up on observing the loss of their lock.
	StaleRejected int `json:"stale_rejected"`
	Aborted       int `json:"aborted"`
	// Lost are the holds that observed a lost-lock signal.
	Lost []Interval `json:"-"`
	// LostCount is len(Lost).
	LostCount int `json:"lost"`
	// ReleaseNotHeld counts Release calls that returned ErrLockNotHeld.
	ReleaseNotHeld int `json:"release_not_held"`
	// TokenRegressions counts exclusive holds (locks and write locks) whose
	// token is not above that of an exclusive hold of the same key that
	// started before them: on a mutex, a lock handed out after a newer
	// owner's was granted. Void holds do not count.
	TokenRegressions int `json:"token_regressions"`
	// Regressions are the first maxOverlaps of them: the earlier hold, then
	// the later one with the lower token.
	Regressions []Overlap `json:"-"`
	// Void counts holds whose lock had ended before they began.
	Void int `json:"void"`
	// Fence is the fence store's final state.
	Fence FenceState `json:"fence"`
	// Linearizable is the verdict of a second, public checker on the same
	// history ("ok", "illegal", "unknown: ..."), when the tests ask for
	// one (see checkHistory); "" when none ran.
	Linearizable string `json:"linearizable,omitempty"`
	// Violations lists every broken rule; empty means the run passed.
	Violations []string `json:"violations,omitempty"`
}

// maxOverlaps bounds Analysis.Overlaps.
const maxOverlaps = 10

// Analyse merges the interval logs, the record and the fence store in dir.
func Analyse(dir string, o AnalyseOptions) (Analysis, error) {
	acquired, done, err := ReadLogs(dir)
	if err != nil {
		return Analysis{}, err
	}
	final, err := NewRecord(dir).Read()
	if err != nil {
		return Analysis{}, err
	}
	fence, err := NewFence(dir).State()
	if err != nil {
		return Analysis{}, err
	}
	a := Analysis{Acquisitions: len(acquired), Intervals: len(done), Final: final, Fence: fence}
	all := a.holds(acquired, done, o)
	a.count(done)
	all = slices.DeleteFunc(all, func(iv Interval) bool { return iv.Void })
	a.Void = len(done) - countNonVoid(done)
	a.regressions(all)
	a.overlaps(all, o.Permits)
	a.judge(o)
	if checkHistory != nil {
		checkHistory(dir, o, &a)
	}
	return a, nil
}

// violate records a broken rule.
func (a *Analysis) violate(format string, args ...any) {
	a.Violations = append(a.Violations, fmt.Sprintf(format, args...))
}

// holds returns every hold of the run sorted by start: the completed ones
// (done) and, for a process killed mid-hold, its acquisitions that never
// completed, ending at the kill. An acquisition that never completed in a
// process that was not killed is a violation; both count as Open.
func (a *Analysis) holds(acquired, done []Interval, o AnalyseOptions) []Interval {
	type holdID struct {
		id     string
		g, seq int
	}
	completed := map[holdID]bool{}
	all := append([]Interval(nil), done...)
	for _, iv := range done {
		completed[holdID{iv.ID, iv.G, iv.Seq}] = true
	}
	for _, ev := range acquired {
		if completed[holdID{ev.ID, ev.G, ev.Seq}] {
			continue
		}
		a.Open++
		killed, ok := o.Killed[ev.ID]
		if !ok {
			a.violate("hold %s g%d #%d (token %d) acquired but never ended, and its process was not killed", ev.ID, ev.G, ev.Seq, ev.Token)
			continue
		}
		ev.End = ns(killed)
		all = append(all, ev)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Start < all[j].Start })
	return all
}

// count adds up what the completed holds did: writes, stale tokens
// rejected, holds given up, lost-lock signals and releases of a lock no
// longer held.
func (a *Analysis) count(done []Interval) {
	for _, iv := range done {
		switch {
		case iv.Wrote:
			a.Writes++
		case iv.Rejected:
			a.StaleRejected++
		case iv.Aborted:
			a.Aborted++
		}
		if iv.LostAt != 0 {
			a.Lost = append(a.Lost, iv)
		}
		if iv.ReleaseNotHeld {
			a.ReleaseNotHeld++
		}
	}
	a.LostCount = len(a.Lost)
	a.LostUpdates = a.Writes - a.Final
}

// overlaps sweeps all (sorted by start), keeping the intervals still
// believed held: a new interval conflicts with a writer among them, or,
// being a writer, with any of them; a permit conflicts when permits (at
// least one) are already held.
func (a *Analysis) overlaps(all []Interval, permits int) {
	var active []*Interval
	for i := range all {
		iv := &all[i]
		active = slices.DeleteFunc(active, func(o *Interval) bool { return o.Believed() <= iv.Start })
		if with := conflict(iv, active, permits); with != nil {
			a.OverlapCount++
			if len(a.Overlaps) < maxOverlaps {
				a.Overlaps = append(a.Overlaps, Overlap{First: *with, Second: *iv, By: time.Duration(min(with.Believed(), iv.Believed()) - iv.Start)})
			}
		}
		active = append(active, iv)
	}
}

// conflict returns the interval of active that iv may not overlap, or nil.
func conflict(iv *Interval, active []*Interval, permits int) *Interval {
	if iv.Permit {
		if len(active) >= max(permits, 1) {
			return active[0]
		}
		return nil
	}
	for _, o := range active {
		if !iv.Shared || !o.Shared {
			return o
		}
	}
	return nil
}

// judge turns what the analysis counted into violations, unless o allows
// them.
func (a *Analysis) judge(o AnalyseOptions) {
	if a.OverlapCount > 0 && !o.AllowOverlap {
		ov := a.Overlaps[0]
		a.violate("%d overlaps of believed-held intervals; first: %s g%d token %d [%s, %s] and %s g%d token %d from %s (%v)",
			a.OverlapCount, ov.First.ID, ov.First.G, ov.First.Token, clock(ov.First.Start), clock(ov.First.Believed()),
			ov.Second.ID, ov.Second.G, ov.Second.Token, clock(ov.Second.Start), ov.By)
	}
	if a.TokenRegressions > 0 && !o.AllowRegression {
		r := a.Regressions[0]
		a.violate("%d token regressions on a mutex key; first: %s g%d token %d from %s, then %s g%d token %d from %s",
			a.TokenRegressions, r.First.ID, r.First.G, r.First.Token, clock(r.First.Start),
			r.Second.ID, r.Second.G, r.Second.Token, clock(r.Second.Start))
	}
	if a.LostUpdates > 0 {
		a.violate("%d lost updates: %d accepted writes, record %d", a.LostUpdates, a.Writes, a.Final)
	}
	if a.LostUpdates < 0 && len(o.Killed) == 0 {
		a.violate("record %d is ahead of the %d logged writes", a.Final, a.Writes)
	}
	if a.StaleRejected > 0 && !o.AllowStale {
		a.violate("%d stale tokens rejected without any fault injected (tokens did not increase)", a.StaleRejected)
	}
	a.judgeFence(len(o.Killed) > 0)
}

// judgeFence checks the fence store against the holders' logs: it must
// have accepted and rejected what they logged, or more when a process was
// killed between the fence's answer and its log.
func (a *Analysis) judgeFence(killed bool) {
	f := a.Fence
	if f.Accepted < a.Writes || (!killed && f.Accepted != a.Writes) {
		a.violate("fence accepted %d tokens, holders logged %d writes", f.Accepted, a.Writes)
	}
	if int(f.Rejected) < a.StaleRejected || (!killed && int(f.Rejected) != a.StaleRejected) {
		a.violate("fence rejected %d tokens, holders logged %d rejections", f.Rejected, a.StaleRejected)
	}
}

// regressions counts, per key, the exclusive holds of all (sorted by
// start) whose token is not above that of an exclusive hold that started
// before them. Read locks and permits are left out: holders of one key's
// shares do not exclude each other, so their order says nothing.
func (a *Analysis) regressions(all []Interval) {
	maxTok := map[string]*Interval{}
	for i := range all {
		iv := &all[i]
		if iv.Shared || iv.Permit {
			continue
		}
		prev := maxTok[iv.Key]
		if prev != nil && iv.Token <= prev.Token {
			a.TokenRegressions++
			if len(a.Regressions) < maxOverlaps {
				a.Regressions = append(a.Regressions, Overlap{First: *prev, Second: *iv})
			}
			continue
		}
		maxTok[iv.Key] = iv
	}
}

// countNonVoid counts the holds of ivs that were not void.
func countNonVoid(ivs []Interval) int {
	n := 0
	for _, iv := range ivs {
		if !iv.Void {
			n++
		}
	}
	return n
}

// LostLatencies returns, for every lost-lock signal observed after t, how
// long after t it came.
func (a Analysis) LostLatencies(t time.Time) []time.Duration {
	var out []time.Duration
	for _, iv := range a.Lost {
		if d := fromNS(iv.LostAt).Sub(t); d >= 0 {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Summary is a one-line description of the analysis.
func (a Analysis) Summary() string {
	s := fmt.Sprintf("acquisitions=%d intervals=%d open=%d overlaps=%d writes=%d final=%d lost_updates=%d stale_rejected=%d aborted=%d lost_signals=%d release_not_held=%d token_regressions=%d void=%d",
		a.Acquisitions, a.Intervals, a.Open, a.OverlapCount, a.Writes, a.Final, a.LostUpdates,
		a.StaleRejected, a.Aborted, a.LostCount, a.ReleaseNotHeld, a.TokenRegressions, a.Void)
	if a.Linearizable != "" {
		s += " linearizable=" + a.Linearizable
	}
	return s
}

// clock formats a wall-clock nanosecond time for messages.
func clock(n int64) string { return fromNS(n).Format("15:04:05.000000") }
