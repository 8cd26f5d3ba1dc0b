package redlock

import (
	"sync"
	"time"
)

// workerIdle is how long an idle worker waits for work before it ends.
const workerIdle = 10 * time.Second

// workers runs the executor's round trips to the masters in goroutines that
// outlive one call: a new goroutine's stack starts small and grows by
// copying on the way into go-redis, which costs as much as the round trip's
// own work on a busy machine; a worker keeps its grown stack. Workers idle
// for workerIdle end; stop ends the idle ones at once and makes later work
// run in goroutines of its own. The zero value is ready to use.
type workers struct {
	mu      sync.Mutex
	idle    []chan func()
	stopped bool
}

// run runs f in a worker.
func (w *workers) run(f func()) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		ch := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		ch <- f
		return
	}
	stopped := w.stopped
	w.mu.Unlock()
	if stopped {
		go f()
		return
	}
	ch := make(chan func(), 1)
	ch <- f
	go w.loop(ch)
}

// loop is a worker: it runs what comes on ch until it has been idle for
// workerIdle or the workers stop.
func (w *workers) loop(ch chan func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		(<-ch)()
		w.mu.Lock()
		if w.stopped {
			w.mu.Unlock()
			return
		}
		w.idle = append(w.idle, ch)
		w.mu.Unlock()
		t.Reset(workerIdle)
		select {
		case f := <-ch:
			ch <- f // run it at the top of the loop
		case <-t.C:
			if w.retire(ch) {
				return
			}
			// Taken just now: its work is on the way.
		}
	}
}

// retire removes ch from the idle workers and reports whether it was
// there (nobody took it meanwhile).
func (w *workers) retire(ch chan func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, c := range w.idle {
		if c == ch {
			w.idle = append(w.idle[:i], w.idle[i+1:]...)
			return true
		}
	}
	return false
}

// stop ends the idle workers; busy ones end after their work, and later
// work runs in goroutines of its own.
func (w *workers) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	for _, ch := range w.idle {
		ch <- func() {}
	}
	w.idle = nil
}
