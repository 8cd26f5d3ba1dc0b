package redis

import "context"

// maxIdleWorkers bounds the workers an executor keeps parked between calls;
// a worker that finishes while that many are parked ends. Calls beyond the
// parked workers start new ones, so concurrency is not bounded by it.
const maxIdleWorkers = 16

// worker is a goroutine of an [Executor] that runs the calls handed off by
// [Executor.run], parked between them. Reusing it spares each call starting
// a goroutine.
type worker struct {
	jobs chan job // capacity 1, empty while parked: a hand-off never blocks
}

// job is one call handed off to a worker: its result goes to out, a channel
// with room for it, so an abandoned call never blocks its worker.
type job struct {
	ctx context.Context
	fn  func(context.Context) result
	out chan<- result
}

// handOff gives j to the most recently parked worker, or to a new one. It
// reports false, and does not run j, once the executor is closed. The job
// is sent under mu, so Close cannot slip between taking a worker and giving
// it the job.
func (e *Executor) handOff(j job) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	if n := len(e.idle); n > 0 {
		w := e.idle[n-1]
		e.idle[n-1] = nil
		e.idle = e.idle[:n-1]
		w.jobs <- j
		return true
	}
	w := &worker{jobs: make(chan job, 1)}
	w.jobs <- j
	e.core.Go(func() { e.work(w) }) // not stopped: e.closed is false under e.mu
	return true
}

// work runs w's jobs until the executor is closed, or until w finds enough
// workers parked.
func (e *Executor) work(w *worker) {
	for j := range w.jobs {
		r := j.fn(j.ctx)
		// Park before handing the result over, so that the caller's next
		// call finds this worker instead of starting another.
		parked := e.park(w)
		j.out <- r
		if !parked {
			return
		}
	}
}

// stopIdle ends the parked workers, as the executor closes; e.mu is held.
// Busy workers end when they finish their job.
func (e *Executor) stopIdle() {
	for _, w := range e.idle {
		close(w.jobs)
	}
	e.idle = nil
}

// park puts w back among the idle workers and reports true, or reports
// false when w should end: the executor is closed, or enough are parked.
func (e *Executor) park(w *worker) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || len(e.idle) >= maxIdleWorkers {
		return false
	}
	e.idle = append(e.idle, w)
	return true
}
