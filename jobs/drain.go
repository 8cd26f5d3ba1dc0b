package jobs

import "context"

// Drain waits until this process needs to stay for none of its jobs: none
// runs, and none that returned is kept by this process until its
// at-least-for end. Call it when shutting down, after stopping the
// schedulers and before closing the executors.
//
// On etcd and ZooKeeper a lease cannot be shortened, so this process keeps
// the lock of a job that returned and releases it at the at-least-for end
// by a timer (see [Runner.Run]); closing the executor before then frees
// the job at once (Close revokes the etcd lease, deletes the ZooKeeper
// node), and another instance whose schedule runs later could run the same
// tick again. On Redis, Redlock and PostgreSQL the backend keeps the job
// taken by itself, and Drain waits only for the jobs still running.
//
// Drain returns ctx's error if ctx ends first; jobs started meanwhile are
// waited for too. What it needs is recorded as jobs return, whether or not
// Drain is ever called: for a job this process keeps, a map entry and its
// Lock's Done channel, against the dozen allocations and the round trip of
// the job's lock; other jobs cost nothing.
func (r *Runner) Drain(ctx context.Context) error {
	for {
		r.mu.Lock()
		var wait <-chan struct{}
		running := false
		for name, done := range r.kept {
			select {
			case <-done:
				delete(r.kept, name)
			default:
				wait = done
			}
		}
		for _, j := range r.held {
			running = running || j.Running
		}
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		switch {
		case wait == nil && !running:
			return nil
		case wait == nil:
			wait = changed
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-wait:
		case <-changed:
		}
	}
}
