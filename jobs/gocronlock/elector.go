package gocronlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-co-op/gocron/v2"

	"github.com/lock4go/lock4go"
)

// ErrNotLeader is IsLeader's answer on an instance that does not lead.
var ErrNotLeader = errors.New("gocronlock: not the leader")

// Elector is a gocron.Elector: it campaigns for a key through
// lock4go.Template.Lead in a goroutine of its own, and IsLeader answers
// nil while this instance holds the leadership lock (its Err, which reads
// the clock, is nil). It is safe for concurrent use. Close it to stop.
type Elector struct {
	key    string
	cur    atomic.Pointer[lock4go.Lock]
	cancel context.CancelFunc
	wg     sync.WaitGroup
	err    error // Lead's, once it returned
}

var _ gocron.Elector = (*Elector)(nil)

// NewElector starts campaigning for key on tpl, with the options of
// Lead, until ctx ends or Close is called.
func NewElector(ctx context.Context, tpl *lock4go.Template, key string, opts ...lock4go.LockOption) *Elector {
	ctx, cancel := context.WithCancel(ctx)
	e := &Elector{key: key, cancel: cancel}
	e.wg.Go(func() {
		e.err = tpl.Lead(ctx, key, func(lctx context.Context) error {
			e.cur.Store(lock4go.LockFrom(lctx, key))
			<-lctx.Done()
			e.cur.Store(nil)
			return nil
		}, opts...)
	})
	return e
}

// IsLeader returns nil while this instance leads, and an error wrapping
// [ErrNotLeader] otherwise.
func (e *Elector) IsLeader(context.Context) error {
	l := e.cur.Load()
	if l == nil {
		return fmt.Errorf("%w: %q", ErrNotLeader, e.key)
	}
	if err := l.Err(); err != nil {
		return fmt.Errorf("%w: %q: %w", ErrNotLeader, e.key, err)
	}
	return nil
}

// Context returns a child of parent that carries the leadership lock and
// is cancelled with cause lock4go.ErrLockLost when the leadership is lost;
// on an instance that does not lead, one already cancelled with cause
// [ErrNotLeader].
func (e *Elector) Context(parent context.Context) (context.Context, context.CancelFunc) {
	if l := e.cur.Load(); l != nil {
		return l.Context(parent)
	}
	ctx, cancel := context.WithCancelCause(parent)
	cancel(fmt.Errorf("%w: %q", ErrNotLeader, e.key))
	return ctx, func() {}
}

// Close stops campaigning and steps down (the lock is released), and
// returns Lead's error if it ended for another reason than Close.
func (e *Elector) Close() error {
	e.cancel()
	e.wg.Wait()
	if errors.Is(e.err, context.Canceled) {
		return nil
	}
	return e.err
}
