package jobs

import (
	"slices"
	"strings"
	"time"
)

// JobInfo describes a job this process holds: running, or kept until its
// at-least-for end.
type JobInfo struct {
	// Name is the job's name, its lock key.
	Name string
	// Executor names the executor holding it.
	Executor string
	// Owner and Token are the lock's owner value and fencing token.
	Owner string
	Token int64
	// Started is when the lock was taken.
	Started time.Time
	// Running is true while the job's function runs.
	Running bool
	// HeldUntil is the at-least-for end, once the function returned (zero
	// while it runs).
	HeldUntil time.Time
}

// Held returns the jobs this process holds, by name: those running and
// those kept until their at-least-for end. lockdebug shows them.
func (r *Runner) Held() []JobInfo {
	now := time.Now()
	r.mu.Lock()
	out := make([]JobInfo, 0, len(r.held))
	for name, j := range r.held {
		if !j.Running && !now.Before(j.HeldUntil) {
			delete(r.held, name)
			continue
		}
		out = append(out, j)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b JobInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// track records j as held.
func (r *Runner) track(j JobInfo) {
	r.mu.Lock()
	r.held[j.Name] = j
	r.mu.Unlock()
}

// untrack records that the job of j no longer runs: kept until until, or
// forgotten when until is zero. kept, when not nil, is closed once this
// process has released a lock it keeps until then (see Drain).
func (r *Runner) untrack(j JobInfo, until time.Time, kept <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.held[j.Name]; !ok || cur.Owner != j.Owner {
		return
	}
	if r.changed != nil {
		close(r.changed) // a Drain waits
		r.changed = nil
	}
	if kept != nil {
		r.kept[j.Name] = kept
	}
	if until.IsZero() {
		delete(r.held, j.Name)
		return
	}
	j.Running, j.HeldUntil = false, until
	r.held[j.Name] = j
}
