package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// lease is one held lock of an [Executor]. Its fields other than deadline and
// timer are immutable; those two are guarded by e.mu.
type lease struct {
	e        *Executor
	key      string
	owner    string
	token    int64
	deadline time.Time
	timer    *time.Timer
	// lostCtx is cancelled when the lease expires; its Done channel is
	// Lost() and context.AfterFunc on it needs no goroutine.
	lostCtx  context.Context
	markLost context.CancelFunc
}

var (
	_ executor.Lease        = (*lease)(nil)
	_ executor.LostNotifier = (*lease)(nil)
)

func (l *lease) Token() int64 { return l.token }

func (l *lease) Lost() <-chan struct{} { return l.lostCtx.Done() }

func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: renew %q: %w: %w", l.key, executor.ErrBackend, err)
	}
	l.e.mu.Lock()
	defer l.e.mu.Unlock()
	if l.e.locks[l.key] != l {
		return fmt.Errorf("memory: renew %q: %w", l.key, executor.ErrLockNotHeld)
	}
	l.deadline = time.Now().Add(ttl)
	l.timer.Reset(ttl)
	return nil
}

func (l *lease) Release(context.Context) error {
	l.e.mu.Lock()
	ok := l.e.remove(l)
	l.e.mu.Unlock()
	if !ok {
		return fmt.Errorf("memory: release %q: %w", l.key, executor.ErrLockNotHeld)
	}
	return nil
}

// AfterLost implements [executor.LostNotifier] without a goroutine per lease.
func (l *lease) AfterLost(f func()) func() bool {
	return context.AfterFunc(l.lostCtx, f)
}

// expire runs from the lease's timer. A renewal may have raced with the
// timer firing, so the deadline decides.
func (l *lease) expire() {
	l.e.mu.Lock()
	if l.e.locks[l.key] != l {
		l.e.mu.Unlock()
		return
	}
	if left := time.Until(l.deadline); left > 0 {
		l.timer.Reset(left)
		l.e.mu.Unlock()
		return
	}
	l.e.remove(l)
	l.e.mu.Unlock()
	l.markLost()
}
