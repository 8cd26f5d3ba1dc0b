package bench

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Plan says what a run measures and how long each measure may take.
type Plan struct {
	// Uncontended bounds each subject's uncontended pairs.
	Uncontended Budget
	// Contenders are the goroutine counts of the contended runs.
	Contenders []int
	// ContendedFor is the length of each contended run.
	ContendedFor time.Duration
	// Waiters are the waiter counts of the hand-off runs.
	Waiters []int
	// Handoff bounds each hand-off run by samples and time.
	Handoff Budget
	// Hold is how long a holder keeps the lock in hand-off runs.
	Hold time.Duration
	// AcquireTimeout bounds each Lock call (Lock4j's default: 3s).
	AcquireTimeout time.Duration
}

// DefaultPlan is the plan of the published figures: about three minutes on
// two cores.
func DefaultPlan() Plan {
	return Plan{
		Uncontended:    Budget{Ops: 3000, Time: 2 * time.Second},
		Contenders:     []int{16, 64},
		ContendedFor:   2 * time.Second,
		Waiters:        []int{2, 64},
		Handoff:        Budget{Ops: 300, Time: 3 * time.Second},
		Hold:           5 * time.Millisecond,
		AcquireTimeout: 3 * time.Second,
	}
}

// QuickPlan is a short plan for smoke tests.
func QuickPlan() Plan {
	return Plan{
		Uncontended:    Budget{Ops: 200, Time: 300 * time.Millisecond},
		Contenders:     []int{16},
		ContendedFor:   300 * time.Millisecond,
		Waiters:        []int{2},
		Handoff:        Budget{Ops: 20, Time: 600 * time.Millisecond},
		Hold:           5 * time.Millisecond,
		AcquireTimeout: 3 * time.Second,
	}
}

// Row is every figure of one subject.
type Row struct {
	Subject     *Subject
	Uncontended UncontendedResult
	Contended   map[int]ContendedResult // by goroutines
	Commands    map[int]Delta           // backend commands during each contended run
	Handoff     map[int]HandoffResult   // by waiters
	Errs        []error
}

// CommandsPerAcquisition returns the server-side commands and the sent
// requests per acquisition of the contended run with n goroutines.
func (r *Row) CommandsPerAcquisition(n int) (server, sent float64, ok bool) {
	c, ok1 := r.Contended[n]
	d, ok2 := r.Commands[n]
	if !ok1 || !ok2 || c.Acquired == 0 {
		return 0, 0, false
	}
	return float64(d.Total()) / float64(c.Acquired), float64(d.Sent) / float64(c.Acquired), true
}

// Run measures every subject of c under p, logging progress to log.
func Run(ctx context.Context, env *Env, c *Catalog, p Plan, log io.Writer) []*Row {
	rows := make([]*Row, len(c.Subjects))
	t0 := time.Now()
	solo, err := UncontendedAll(ctx, c.Subjects, func(s *Subject) string { return benchKey(s, "solo") },
		func(s *Subject) Counter { return env.Counter(s.Backend) }, p.Uncontended)
	if err != nil {
		fmt.Fprintf(log, "uncontended: ERROR %v\n", err)
	}
	for i, s := range c.Subjects {
		r := &Row{Subject: s, Contended: map[int]ContendedResult{}, Commands: map[int]Delta{}, Handoff: map[int]HandoffResult{}}
		rows[i] = r
		u := solo[i]
		r.Uncontended = u
		var err error
		if u.Pair.N == 0 {
			err = fmt.Errorf("no uncontended figure")
		}
		srv, sent, _ := u.CommandsPerPair()
		r.note(log, err, "%-34s uncontended p50 %-9v p99 %-9v %8.0f ops/s  cmds/pair %.1f (sent %.1f) %v", s.Name, u.Pair.P50, u.Pair.P99, u.OpsSec, srv, sent, u.Commands)
	}
	fmt.Fprintf(log, "uncontended, interleaved pair by pair: %v\n", time.Since(t0).Round(time.Millisecond))
	for i, s := range c.Subjects {
		r := rows[i]
		key := func(what string) string { return benchKey(s, what) }
		t0 := time.Now()
		if !s.Waits {
			continue
		}
		for _, n := range p.Contenders {
			var cr ContendedResult
			d, err := Count(ctx, env.Counter(s.Backend), func() error {
				var err error
				cr, err = Contended(ctx, s, key(fmt.Sprintf("c%d", n)), ContendedOptions{
					Goroutines: n, Duration: p.ContendedFor, AcquireTimeout: p.AcquireTimeout,
				})
				return err
			}, "info")
			r.Contended[n], r.Commands[n] = cr, d
			srv, sent, _ := r.CommandsPerAcquisition(n)
			r.note(log, err, "%-34s %2d goroutines %8.0f acq/s  max wait %-9v timeouts %d  per-g %d..%d  cmds/acq %.1f (sent %.1f)",
				s.Name, n, cr.OpsSec, cr.MaxWait.Round(time.Microsecond), cr.Timeouts, cr.MinPerG, cr.MaxPerG, srv, sent)
			if cr.Violations > 0 {
				r.Errs = append(r.Errs, fmt.Errorf("%s: %d mutual-exclusion violations with %d goroutines", s.Name, cr.Violations, n))
			}
		}
		for _, w := range p.Waiters {
			h, err := Handoff(ctx, s, key(fmt.Sprintf("h%d", w)), HandoffOptions{
				Waiters: w, Hold: p.Hold, AcquireTimeout: p.AcquireTimeout, Budget: p.Handoff,
			})
			r.Handoff[w] = h
			r.note(log, err, "%-34s hand-off %2d waiters p50 %-9v p99 %-9v (n=%d, misses %d)",
				s.Name, w, h.Handoff.P50.Round(time.Microsecond), h.Handoff.P99.Round(time.Microsecond), h.Handoff.N, h.Misses)
		}
		fmt.Fprintf(log, "%-34s done in %v\n", s.Name, time.Since(t0).Round(time.Millisecond))
	}
	return rows
}

func (r *Row) note(log io.Writer, err error, format string, args ...any) {
	if err != nil {
		r.Errs = append(r.Errs, err)
		fmt.Fprintf(log, "%s: ERROR %v\n", r.Subject.Name, err)
		return
	}
	fmt.Fprintf(log, format+"\n", args...)
}

// benchKey is the key subject s uses for measure what.
func benchKey(s *Subject, what string) string {
	return fmt.Sprintf("lockbench:%s:%s", slug(s.Name), what)
}

// slug makes a key part of a subject name.
func slug(name string) string {
	b := make([]byte, 0, len(name))
	for _, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b = append(b, c)
		default:
			if len(b) > 0 && b[len(b)-1] != '-' {
				b = append(b, '-')
			}
		}
	}
	return string(b)
}
