package reliability

import (
	"context"
	"sync"
	"time"
)

const (
	// timerProbeInterval is how often the timer probe expects to run.
	timerProbeInterval = 10 * time.Millisecond
	// timerDelayFloor is the smallest delay the probe records.
	timerDelayFloor = 5 * time.Millisecond
	// maxTimerDelays bounds the delays a process records.
	maxTimerDelays = 4000
)

// TimerDelay is one late wake-up of a process's timer probe.
type TimerDelay struct {
	// Due is when the timer was due, in Unix nanoseconds.
	Due int64 `json:"due"`
	// Delay is how much later it fired.
	Delay time.Duration `json:"delay_ns"`
}

// timerProbe measures how late this process's timers fire: a goroutine
// that wakes every timerProbeInterval and records each wake-up later than
// timerDelayFloor past its due time. On a busy machine a process is not
// scheduled for hundreds of milliseconds at a time; a lost-lock signal due
// at a moment cannot be observed before the process runs again, so time
// bounds on signals are judged against the delays the same process
// measured around that moment.
type timerProbe struct {
	mu     sync.Mutex
	delays []TimerDelay
	stop   context.CancelFunc
	done   chan struct{}
}

// startTimerProbe starts measuring until finish is called.
func startTimerProbe() *timerProbe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &timerProbe{stop: cancel, done: make(chan struct{})}
	go p.run(ctx)
	return p
}

func (p *timerProbe) run(ctx context.Context) {
	defer close(p.done)
	t := time.NewTimer(timerProbeInterval)
	defer t.Stop()
	for due := time.Now().Add(timerProbeInterval); ; due = time.Now().Add(timerProbeInterval) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if late := time.Since(due); late >= timerDelayFloor {
			p.mu.Lock()
			if len(p.delays) < maxTimerDelays {
				p.delays = append(p.delays, TimerDelay{Due: ns(due), Delay: late})
			}
			p.mu.Unlock()
		}
		t.Reset(timerProbeInterval)
	}
}

// finish stops the probe and returns the delays it recorded.
func (p *timerProbe) finish() []TimerDelay {
	p.stop()
	<-p.done
	return p.delays
}

// MaxTimerDelay returns the largest delay of the timers due between from
// and to (Unix nanoseconds).
func (r Report) MaxTimerDelay(from, to int64) time.Duration {
	var m time.Duration
	for _, d := range r.TimerDelays {
		if d.Due >= from && d.Due <= to && d.Delay > m {
			m = d.Delay
		}
	}
	return m
}
