// Package timerprobe measures how late a process's timers fire, and how
// long a server takes to answer ([StartCalls]), so that
// tests on a busy machine can extend a time bound by the delay the same
// process saw around the moment, instead of by a guess.
package timerprobe

import (
	"context"
	"sync"
	"time"
)

const (
	// interval is how often the probe expects to run.
	interval = 10 * time.Millisecond
	// floor is the smallest delay the probe records.
	floor = 5 * time.Millisecond
	// maxDelays bounds the delays a probe records.
	maxDelays = 4000
)

// Delay is one late wake-up of a probe.
type Delay struct {
	// Due is when the timer was due, in Unix nanoseconds.
	Due int64 `json:"due"`
	// Delay is how much later it fired.
	Delay time.Duration `json:"delay_ns"`
}

// Probe measures how late this process's timers fire: a goroutine that
// wakes every 10ms and records each wake-up later than 5ms past its due
// time. On a busy machine a process is not
// scheduled for hundreds of milliseconds at a time; a lost-lock signal due
// at a moment cannot be observed before the process runs again, so time
// bounds on signals are judged against the delays the same process
// measured around that moment.
type Probe struct {
	mu     sync.Mutex
	delays []Delay
	stop   context.CancelFunc
	done   chan struct{}
}

// Start starts measuring until Stop is called.
func Start() *Probe {
	return start(func(_ context.Context, due time.Time) Delay {
		return Delay{Due: due.UnixNano(), Delay: time.Since(due)}
	})
}

// start runs measure every interval until Stop, measure being given the
// time it was due, and records what it measured from floor up.
func start(measure func(ctx context.Context, due time.Time) Delay) *Probe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Probe{stop: cancel, done: make(chan struct{})}
	go p.run(ctx, measure)
	return p
}

func (p *Probe) run(ctx context.Context, measure func(ctx context.Context, due time.Time) Delay) {
	defer close(p.done)
	t := time.NewTimer(interval)
	defer t.Stop()
	for due := time.Now().Add(interval); ; due = time.Now().Add(interval) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if d := measure(ctx, due); d.Delay >= floor {
			p.mu.Lock()
			if len(p.delays) < maxDelays {
				p.delays = append(p.delays, d)
			}
			p.mu.Unlock()
		}
		t.Reset(interval)
	}
}

// Stop stops the probe and returns the delays it recorded. It may be
// called again.
func (p *Probe) Stop() []Delay {
	p.stop()
	<-p.done
	return p.delays
}

// Delays returns the delays recorded so far, without stopping the probe.
func (p *Probe) Delays() []Delay {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Delay(nil), p.delays...)
}

// Max returns the largest of delays whose timer was due between from and
// to (Unix nanoseconds).
func Max(delays []Delay, from, to int64) time.Duration {
	var m time.Duration
	for _, d := range delays {
		if d.Due >= from && d.Due <= to && d.Delay > m {
			m = d.Delay
		}
	}
	return m
}

// StartCalls measures how long a server takes to answer: a goroutine calls
// call every 10ms, one call at a time, and records each call that took 5ms
// or more as a Delay due when it began (a call still running at Stop is
// recorded with the time it had taken). A process's timers can be on time
// while the server it waits for is starved (a database's backends on a
// busy machine): bounds on what the server must do are judged against
// these, with [MaxOver].
func StartCalls(call func(ctx context.Context) error) *Probe {
	return start(func(ctx context.Context, _ time.Time) Delay {
		began := time.Now()
		_ = call(ctx) // a failed call took its time too
		return Delay{Due: began.UnixNano(), Delay: time.Since(began)}
	})
}

// MaxOver returns the largest of delays whose span (from its due time to
// its end) overlaps from..to (Unix nanoseconds): the slowest call that ran
// during that time, for delays [StartCalls] recorded.
func MaxOver(delays []Delay, from, to int64) time.Duration {
	var m time.Duration
	for _, d := range delays {
		if d.Due <= to && d.Due+int64(d.Delay) >= from && d.Delay > m {
			m = d.Delay
		}
	}
	return m
}
