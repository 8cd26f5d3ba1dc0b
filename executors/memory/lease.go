package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
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
	index    int  // in the executor's expiries, -1 when not there
	held     bool // a holder of its key
	// loss is set, under e.mu, when the lease is lost: expired,
	// force-released or ended by Close.
	loss leases.Loss
}

var (
	_ executor.Lease        = (*lease)(nil)
	_ executor.LostCauser   = (*lease)(nil)
	_ executor.LossNotifier = (*lease)(nil)
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
	l.e.reschedule(l)
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
	if cause := l.loss.Cause(); cause != nil {
		return fmt.Errorf("memory: %s %q: %w: %w", op, l.key, executor.ErrLockNotHeld, cause)
	}
	return fmt.Errorf("memory: %s %q: %w", op, l.key, executor.ErrLockNotHeld)
}

// LostCause implements [executor.LostCauser].
func (l *lease) LostCause() error { return l.loss.Cause() }

// AfterLost implements [executor.Lease] without a goroutine per lease:
// f runs when the lease expires, is force-released or Close ends it.
func (l *lease) AfterLost(f func()) func() bool { return l.loss.After(f) }

// NotifyLost implements [executor.LossNotifier]: AfterLost for a listener,
// without allocating.
func (l *lease) NotifyLost(ln executor.LossListener) (uint64, bool) { return l.loss.Notify(ln) }

// StopNotify implements [executor.LossNotifier].
func (l *lease) StopNotify(id uint64) bool { return l.loss.Forget(id) }
