package redlock

import (
	"context"
	"sync"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.Waiter = (*Executor)(nil)

// WatchRelease implements executor.Waiter over every master's
// [redis.Executor.WatchRelease]: an attempt that found the key busy queued
// this process on each master where it was busy, and a release on any of
// them (handing this process the key there) signals the returned channel.
// The Template then tries the whole quorum again. Watches on the masters are
// opened in parallel; delivery is best effort, as on one master, and the
// Template also retries at its interval. stop must be called exactly once;
// it never blocks on the network. Once Close has begun the channel is
// ready at once.
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	if e.isClosed() {
		out := make(chan struct{}, 1)
		out <- struct{}{}
		return out, func() {}
	}
	chans := make([]<-chan struct{}, len(e.nodes))
	stops := make([]func(), len(e.nodes))
	e.each(len(e.nodes), func(i int) { chans[i], stops[i] = e.nodes[i].WatchRelease(ctx, key) })
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(len(chans))
	for _, c := range chans {
		go func() {
			defer wg.Done()
			for {
				select {
				case _, ok := <-c:
					select {
					case out <- struct{}{}:
					default:
					}
					if !ok {
						return
					}
				case <-done:
					return
				case <-e.done:
					select {
					case out <- struct{}{}:
					default:
					}
					return
				}
			}
		}()
	}
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			for _, s := range stops {
				s()
			}
		})
	}
}
