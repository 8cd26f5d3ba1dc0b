package kit

import "sync"

// Group runs an executor's background work (clean-ups, keep-alives) in
// goroutines that Close waits for. The zero value is ready to use.
type Group struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Go runs f in a goroutine of the group. It reports false, without running
// f, once Close has begun. f must return soon after the executor's own
// closing signal.
func (g *Group) Go(f func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		f()
	}()
	return true
}

// Stop refuses new work from now on, without waiting.
func (g *Group) Stop() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// Close refuses new work and waits for the running goroutines.
func (g *Group) Close() {
	g.Stop()
	g.wg.Wait()
}
