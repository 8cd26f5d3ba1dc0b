package memory

import (
	"context"
	"errors"
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
	held     bool  // a holder of its key
	lost     error // why it was lost, or nil
	onLost   []lostFunc
	nextID   int
}

type lostFunc struct {
	id int
	f  func()
}

var (
	_ executor.Lease      = (*lease)(nil)
	_ executor.LostCauser = (*lease)(nil)
)

// Causes of the loss of a lease (see [executor.LostCause]).
var (
	errExpired = errors.New("memory: lease expired")
	errForced  = errors.New("memory: lock force-released")
	errClosed  = fmt.Errorf("memory: the lock was held when the executor closed: %w", executor.ErrClosed)
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
		return l.notHeld("renew")
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
		l.e.mu.Lock()
		defer l.e.mu.Unlock()
		return l.notHeld("release")
	}
	return nil
}

// notHeld is the error of op on a lease no longer held, with the cause of
// its loss if it was lost. The caller holds l.e.mu.
func (l *lease) notHeld(op string) error {
	if l.lost != nil {
		return fmt.Errorf("memory: %s %q: %w: %w", op, l.key, executor.ErrLockNotHeld, l.lost)
	}
	return fmt.Errorf("memory: %s %q: %w", op, l.key, executor.ErrLockNotHeld)
}

// LostCause implements [executor.LostCauser].
func (l *lease) LostCause() error {
	l.e.mu.Lock()
	defer l.e.mu.Unlock()
	return l.lost
}

// AfterLost implements [executor.Lease] without a goroutine per lease:
// f runs when the lease expires.
func (l *lease) AfterLost(f func()) func() bool {
	l.e.mu.Lock()
	if l.lost != nil {
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
	fs := l.markLost(errExpired)
	l.e.mu.Unlock()
	for _, lf := range fs {
		lf.f()
	}
}

// markLost marks l lost for cause and returns the functions registered
// with AfterLost, for the caller to run once it has unlocked l.e.mu, which
// it holds.
func (l *lease) markLost(cause error) []lostFunc {
	l.lost = cause
	fs := l.onLost
	l.onLost = nil
	return fs
}
