package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// lease is one held lock of an [Executor]. key, owner and token are
// immutable; the other fields are guarded by e.mu.
type lease struct {
	e        *Executor
	key      string
	owner    string
	token    int64
	start    time.Time
	deadline time.Time
	timer    *time.Timer
	held     bool // a holder of its key
	lost     bool
	lostCh   chan struct{} // made on first Lost()
	onLost   []lostFunc
	nextID   int
}

type lostFunc struct {
	id int
	f  func()
}

var (
	_ executor.Lease = (*lease)(nil)
)

func (l *lease) Token() int64 { return l.token }

// Start returns when the lease was granted.
func (l *lease) Start() time.Time { return l.start }

func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: renew %q: %w: %w", l.key, executor.ErrBackend, err)
	}
	l.e.mu.Lock()
	defer l.e.mu.Unlock()
	if !l.held {
		return fmt.Errorf("memory: renew %q: %w", l.key, executor.ErrLockNotHeld)
	}
	l.deadline = time.Now().Add(ttl)
	l.timer.Reset(ttl)
	return nil
}

func (l *lease) Release(context.Context) error {
	l.e.mu.Lock()
	ok := l.e.drop(l)
	l.e.mu.Unlock()
	if !ok {
		return fmt.Errorf("memory: release %q: %w", l.key, executor.ErrLockNotHeld)
	}
	return nil
}

// AfterLost implements [executor.Lease] without a goroutine per lease:
// f runs when the lease expires.
func (l *lease) AfterLost(f func()) func() bool {
	l.e.mu.Lock()
	if l.lost {
		l.e.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	id := l.nextID
	l.nextID++
	l.onLost = append(l.onLost, lostFunc{id: id, f: f})
	l.e.mu.Unlock()
	return func() bool {
		l.e.mu.Lock()
		defer l.e.mu.Unlock()
		for i, lf := range l.onLost {
			if lf.id == id {
				l.onLost = append(l.onLost[:i], l.onLost[i+1:]...)
				return true
			}
		}
		return false
	}
}

// expire runs from the lease's timer. A renewal may have raced with the
// timer firing, so the deadline decides.
func (l *lease) expire() {
	l.e.mu.Lock()
	if !l.held {
		l.e.mu.Unlock()
		return
	}
	if left := time.Until(l.deadline); left > 0 {
		l.timer.Reset(left)
		l.e.mu.Unlock()
		return
	}
	l.e.drop(l)
	fs := l.markLost()
	l.e.mu.Unlock()
	for _, lf := range fs {
		lf.f()
	}
}

// markLost marks l lost, closes its Lost channel and returns the functions
// registered with AfterLost, for the caller to run once it has unlocked
// l.e.mu, which it holds.
func (l *lease) markLost() []lostFunc {
	l.lost = true
	if l.lostCh != nil {
		close(l.lostCh)
	}
	fs := l.onLost
	l.onLost = nil
	return fs
}
