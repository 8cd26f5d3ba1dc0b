package lifecycle

import (
	"sync"
	"time"
)

// An executor's background work: goroutines that Close waits for (a
// [Group]), and the pauses of their retry loops (a [Backoff]).

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

// Backoff is a pause that doubles after each retry, from Min up to Max.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next returns the pause before the next retry and doubles the one after.
func (b *Backoff) Next() time.Duration {
	if b.cur < b.Min {
		b.cur = b.Min
	}
	d := b.cur
	b.cur = min(2*b.cur, b.Max)
	return d
}

// Reset starts the pauses over from Min, after a success.
func (b *Backoff) Reset() { b.cur = 0 }

// Wait pauses for Next, or until done is closed; it reports false when
// done ended the pause.
func (b *Backoff) Wait(done <-chan struct{}) bool {
	t := time.NewTimer(b.Next())
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}
